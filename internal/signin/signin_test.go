package signin_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/signin"
)

// memStore is a Store in memory.
type memStore struct {
	links    map[string]signin.Link
	sessions map[string]signin.Session
	counts   map[string]int
	touched  int
}

func newMem() *memStore {
	return &memStore{links: map[string]signin.Link{}, sessions: map[string]signin.Session{}, counts: map[string]int{}}
}

func (m *memStore) PutLink(_ context.Context, h string, l signin.Link) error {
	m.links[h] = l
	return nil
}
func (m *memStore) ConsumeLink(_ context.Context, h string, now time.Time) (signin.Link, error) {
	l, ok := m.links[h]
	if !ok || !now.Before(l.ExpiresAt) {
		return signin.Link{}, signin.ErrLinkInvalid
	}
	delete(m.links, h)
	return l, nil
}
func (m *memStore) CountRequest(_ context.Context, key string, w time.Time) (int, error) {
	m.counts[key+w.String()]++
	return m.counts[key+w.String()], nil
}
func (m *memStore) PutSession(_ context.Context, s signin.Session) error {
	m.sessions[s.Hash] = s
	return nil
}
func (m *memStore) GetSession(_ context.Context, h string) (signin.Session, error) {
	s, ok := m.sessions[h]
	if !ok {
		return signin.Session{}, signin.ErrNoSession
	}
	return s, nil
}
func (m *memStore) TouchSession(_ context.Context, h string, t time.Time) error {
	s := m.sessions[h]
	s.LastSeen = t
	m.sessions[h] = s
	m.touched++
	return nil
}
func (m *memStore) SetSessionWorkspace(_ context.Context, h, ws string) error {
	s := m.sessions[h]
	s.WorkspaceID = ws
	m.sessions[h] = s
	return nil
}
func (m *memStore) DeleteSession(_ context.Context, h string) error {
	delete(m.sessions, h)
	return nil
}

type ownersOf map[string][]string

func (o ownersOf) WorkspacesOf(_ context.Context, a string) ([]string, error) { return o[a], nil }

type mailbox map[string][]string

func (m mailbox) SendSignInLink(_ context.Context, to, link string) error {
	m[to] = append(m[to], link)
	return nil
}

func newService(now *time.Time) (*signin.Service, *memStore, mailbox) {
	store, mail := newMem(), mailbox{}
	return &signin.Service{
		Store: store, Owners: ownersOf{"ann@example.org": {"ws1"}, "bob@example.org": {"ws1", "ws2"}}, Mailer: mail,
		LinkURL: func(token string) string { return "https://x/dashboard/sign-in/" + token },
		Now:     func() time.Time { return *now },
	}, store, mail
}

func TestLinkLifecycle(t *testing.T) {
	ctx := t.Context()
	now := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	svc, store, mail := newService(&now)
	outcome, link, err := svc.RequestLink(ctx, " Ann@Example.org ", "1.2.3.4")
	if err != nil || outcome != signin.Sent || len(mail["ann@example.org"]) != 1 || mail["ann@example.org"][0] != link {
		t.Fatalf("RequestLink = %v %q %v, mail %v", outcome, link, err, mail)
	}
	token := link[len("https://x/dashboard/sign-in/"):]
	if _, stored := store.links[token]; stored {
		t.Error("the link is stored under its token")
	}
	if outcome, _, _ := svc.RequestLink(ctx, "zed@example.org", "1.2.3.4"); outcome != signin.Unknown || len(mail["zed@example.org"]) != 0 {
		t.Errorf("an unknown address: %v, mail %v", outcome, mail["zed@example.org"])
	}
	now = now.Add(signin.LinkTTL - time.Second)
	sess, err := svc.Consume(ctx, token)
	if err != nil || sess.Address != "ann@example.org" || sess.WorkspaceID != "ws1" || sess.Hash != signin.Hash(sess.ID) {
		t.Fatalf("Consume = %+v %v", sess, err)
	}
	if _, err := svc.Consume(ctx, token); !errors.Is(err, signin.ErrLinkInvalid) {
		t.Errorf("a second use: %v", err)
	}
	_, link, _ = svc.RequestLink(ctx, "bob@example.org", "1.2.3.4")
	now = now.Add(signin.LinkTTL)
	if _, err := svc.Consume(ctx, link[len("https://x/dashboard/sign-in/"):]); !errors.Is(err, signin.ErrLinkInvalid) {
		t.Errorf("an expired link: %v", err)
	}
}

func TestSessionIdleAndPick(t *testing.T) {
	ctx := t.Context()
	now := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	svc, store, _ := newService(&now)
	_, link, _ := svc.RequestLink(ctx, "bob@example.org", "1.2.3.4")
	sess, err := svc.Consume(ctx, link[len("https://x/dashboard/sign-in/"):])
	if err != nil || sess.WorkspaceID != "" {
		t.Fatalf("an owner of two workspaces picks one: %+v %v", sess, err)
	}
	if _, err := svc.Pick(ctx, sess, "ws3"); !errors.Is(err, signin.ErrNotOwner) {
		t.Errorf("picking a workspace not owned: %v", err)
	}
	if sess, err = svc.Pick(ctx, sess, "ws2"); err != nil || store.sessions[sess.Hash].WorkspaceID != "ws2" {
		t.Fatalf("Pick = %+v %v", sess, err)
	}
	now = now.Add(time.Minute)
	if _, err := svc.Session(ctx, sess.ID); err != nil || store.touched != 0 {
		t.Errorf("a use within 5 minutes: %v, %d writes", err, store.touched)
	}
	now = now.Add(signin.SessionIdle - time.Minute - time.Second)
	if _, err := svc.Session(ctx, sess.ID); err != nil || store.touched != 1 {
		t.Errorf("a use just before the idle expiry: %v, %d writes", err, store.touched)
	}
	now = now.Add(signin.SessionIdle)
	if _, err := svc.Session(ctx, sess.ID); !errors.Is(err, signin.ErrNoSession) || len(store.sessions) != 0 {
		t.Errorf("after 12 hours idle: %v, %d sessions left", err, len(store.sessions))
	}
}

func TestRateLimits(t *testing.T) {
	ctx := t.Context()
	now := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	svc, _, mail := newService(&now)
	for i := range signin.PerAddress + 1 {
		outcome, _, err := svc.RequestLink(ctx, "ann@example.org", "1.2.3.4")
		if want := i < signin.PerAddress; err != nil || (outcome == signin.Sent) != want {
			t.Errorf("request %d: %v %v", i+1, outcome, err)
		}
	}
	if len(mail["ann@example.org"]) != signin.PerAddress {
		t.Errorf("%d links sent", len(mail["ann@example.org"]))
	}
	now = now.Add(signin.RateWindow)
	if outcome, _, _ := svc.RequestLink(ctx, "ann@example.org", "1.2.3.4"); outcome != signin.Sent {
		t.Errorf("the next window: %v", outcome)
	}
}

func TestSigner(t *testing.T) {
	s := signin.Signer{Secret: []byte("k")}
	id := signin.NewSecret()
	if got, ok := s.SessionID(s.Cookie(id)); !ok || got != id {
		t.Errorf("SessionID(Cookie) = %q %v", got, ok)
	}
	for _, bad := range []string{id, id + ".", "." + s.CSRF(id), id + "." + s.CSRF(id), signin.Signer{Secret: []byte("other")}.Cookie(id)} {
		if _, ok := s.SessionID(bad); ok {
			t.Errorf("cookie %q accepted", bad)
		}
	}
	if !s.CheckCSRF(id, s.CSRF(id)) || s.CheckCSRF(id, s.CSRF(signin.NewSecret())) || s.CheckCSRF("", s.CSRF("")) {
		t.Error("CheckCSRF")
	}
}
