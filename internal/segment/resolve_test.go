package segment_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/segment"
)

// fakeContacts streams its contacts; fakeSuppressions its addresses.
type fakeContacts struct {
	each func(ws string, fn func(contact.Contact) error) error
}

func (f fakeContacts) EachContact(_ context.Context, ws string, fn func(contact.Contact) error) error {
	return f.each(ws, fn)
}

type fakeSuppressions struct {
	each func(ws string, fn func(string) error) error
}

func (f fakeSuppressions) EachSuppressedAddress(_ context.Context, ws string, fn func(string) error) error {
	return f.each(ws, fn)
}

func streamOf(cs ...contact.Contact) fakeContacts {
	return fakeContacts{each: func(_ string, fn func(contact.Contact) error) error {
		for _, c := range cs {
			if err := fn(c); err != nil {
				return err
			}
		}
		return nil
	}}
}

func addresses(list ...string) fakeSuppressions {
	return fakeSuppressions{each: func(_ string, fn func(string) error) error {
		for _, a := range list {
			if err := fn(a); err != nil {
				return err
			}
		}
		return nil
	}}
}

func withEmail(c contact.Contact, id, email string, subscribed bool) contact.Contact {
	c.ID, c.Email, c.Subscribed = id, email, subscribed
	return c
}

// A recipient is subscribed, off the do-not-send list and matches the
// filter.
func TestResolveKeepsSubscribedUnsuppressedMatches(t *testing.T) {
	contacts := streamOf(
		withEmail(ann, "in", "in@acme.test", true),
		withEmail(ann, "unsubscribed", "unsub@acme.test", false),
		withEmail(ann, "suppressed", "bounced@acme.test", true),
		withEmail(bob, "no-match", "bob@acme.test", true),
		withEmail(ann, "in-too", "in2@acme.test", true),
	)
	r := &segment.Resolver{Contacts: contacts, Suppressions: addresses("bounced@acme.test", "other@x.test")}
	f := mustParse(t, one(`{"field":"tags","op":"has_tag","value":"vip"}`))
	var ids []string
	err := r.Resolve(context.Background(), "ws_1", f, now, func(c contact.Contact) error {
		ids = append(ids, c.ID)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"in", "in-too"}; !slices.Equal(ids, want) {
		t.Errorf("recipients %v, want %v", ids, want)
	}
	n, err := r.Count(context.Background(), "ws_1", f, now)
	if err != nil || n != 2 {
		t.Errorf("Count = %d, %v; want 2", n, err)
	}
	p, err := r.Preview(context.Background(), "ws_1", f, now, 1)
	if err != nil || p.Count != 2 || len(p.Sample) != 1 || p.Sample[0].ID != "in" {
		t.Errorf("Preview = %+v, %v; want count 2 and a sample of 1", p, err)
	}
}

// Faults of either read, and an error of fn, stop the resolution.
func TestResolveStops(t *testing.T) {
	boom := errors.New("boom")
	f := mustParse(t, one(`{"field":"email","op":"contains","value":"@"}`))
	t.Run("do-not-send list", func(t *testing.T) {
		read := false
		r := &segment.Resolver{
			Contacts:     fakeContacts{each: func(string, func(contact.Contact) error) error { read = true; return nil }},
			Suppressions: fakeSuppressions{each: func(string, func(string) error) error { return boom }},
		}
		if _, err := r.Count(context.Background(), "ws_1", f, now); !errors.Is(err, boom) {
			t.Errorf("err = %v, want boom", err)
		}
		if read {
			t.Error("contacts read after the do-not-send list failed")
		}
	})
	t.Run("fn", func(t *testing.T) {
		r := &segment.Resolver{Contacts: streamOf(withEmail(ann, "1", "a@x.test", true), withEmail(ann, "2", "b@x.test", true)), Suppressions: addresses()}
		calls := 0
		err := r.Resolve(context.Background(), "ws_1", f, now, func(contact.Contact) error { calls++; return boom })
		if !errors.Is(err, boom) || calls != 1 {
			t.Errorf("err %v after %d calls, want boom after 1", err, calls)
		}
	})
}

// fakeStore records the segments it is given.
type fakeStore struct {
	segment.Store // reads and deletes: not used by Create
	created       []segment.Segment
	err           error
}

func (s *fakeStore) CreateSegment(_ context.Context, seg segment.Segment) error {
	s.created = append(s.created, seg)
	return s.err
}

func str(s string) *string { return &s }

func TestCreate(t *testing.T) {
	store := &fakeStore{}
	reads := 0
	contacts := fakeContacts{each: func(ws string, fn func(contact.Contact) error) error {
		reads++
		if ws != "ws_1" {
			t.Errorf("read workspace %q", ws)
		}
		return streamOf(withEmail(ann, "1", "a@x.test", true), withEmail(bob, "2", "b@x.test", true)).each(ws, fn)
	}}
	svc := &segment.Service{Store: store, Resolver: &segment.Resolver{Contacts: contacts, Suppressions: addresses()}, Now: func() time.Time { return now }}
	seg, err := svc.Create(context.Background(), "ws_1", segment.NewSegment{
		Name: str("  VIPs  "), Filter: json.RawMessage(one(`{"field":"tags","op":"has_tag","value":"vip"}`)),
	})
	if err != nil {
		t.Fatal(err)
	}
	if seg.Name != "VIPs" || seg.ContactCount != 1 || !seg.CreatedAt.Equal(now) || seg.WorkspaceID != "ws_1" || len(seg.ID) != 36 {
		t.Errorf("segment %+v", seg)
	}
	if len(store.created) != 1 || store.created[0].ID != seg.ID {
		t.Errorf("stored %+v", store.created)
	}
	body, _ := json.Marshal(seg.View())
	want := `{"id":"` + seg.ID + `","name":"VIPs","filter":{"all":[{"field":"tags","op":"has_tag","value":"vip"}]},"contact_count":1,"created_at":"2026-03-15T12:00:00.000Z"}`
	if string(body) != want {
		t.Errorf("JSON\n got %s\nwant %s", body, want)
	}

	// Refusals: nothing read, nothing stored.
	reads, store.created = 0, nil
	refusals := map[string]struct {
		in    segment.NewSegment
		kind  fail.Kind
		param string
	}{
		"no name":         {segment.NewSegment{Filter: json.RawMessage(`{"all":[]}`)}, fail.KindMissing, "name"},
		"blank name":      {segment.NewSegment{Name: str(" \t"), Filter: json.RawMessage(`{}`)}, fail.KindInvalid, "name"},
		"long name":       {segment.NewSegment{Name: str(strings.Repeat("é", 201)), Filter: json.RawMessage(`{}`)}, fail.KindInvalid, "name"},
		"control in name": {segment.NewSegment{Name: str("a\x00b"), Filter: json.RawMessage(`{}`)}, fail.KindInvalid, "name"},
		"no filter":       {segment.NewSegment{Name: str("x")}, fail.KindMissing, "filter"},
		"null filter":     {segment.NewSegment{Name: str("x"), Filter: json.RawMessage(`null`)}, fail.KindMissing, "filter"},
		"bad filter":      {segment.NewSegment{Name: str("x"), Filter: json.RawMessage(`{"all":[]}`)}, fail.KindInvalid, "filter.all"},
	}
	for name, tc := range refusals {
		t.Run(name, func(t *testing.T) {
			_, err := svc.Create(context.Background(), "ws_1", tc.in)
			e, ok := fail.As(err)
			if !ok || e.Kind != tc.kind || e.Param != tc.param {
				t.Errorf("err = %v, want %v on %s", err, tc.kind, tc.param)
			}
		})
	}
	if reads != 0 || len(store.created) != 0 {
		t.Errorf("a refused segment read contacts %d times and stored %d", reads, len(store.created))
	}
}
