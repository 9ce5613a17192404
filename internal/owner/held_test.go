package owner_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/owner"
	"github.com/sesame-mail/sesame/internal/review"
	"github.com/sesame-mail/sesame/internal/sending"
)

// fakeReview records the review messages queued; enqueue, when set, answers
// instead of accepting them.
type fakeReview struct {
	enqueue func(m sending.ReviewMessage) error

	mu       sync.Mutex
	messages []sending.ReviewMessage
}

func (f *fakeReview) Enqueue(_ context.Context, body any) error {
	m, ok := body.(sending.ReviewMessage)
	if !ok {
		return fmt.Errorf("not a review message: %T", body)
	}
	if f.enqueue != nil {
		if err := f.enqueue(m); err != nil {
			return err
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.messages = append(f.messages, m)
	return nil
}

func (f *fakeReview) queued() []sending.ReviewMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.messages)
}

// hold holds an email of workspaceID with body html as the send path does
// (a template seen for the first time is recorded pending; the store
// leaves a recorded one as it is); it returns the email's id.
func hold(t *testing.T, store dynamo.Repositories, workspaceID, html string) string {
	t.Helper()
	id := uuid.Must(uuid.NewV7()).String()
	fp := review.Fingerprint(html)
	he := sending.HeldEmail{
		Email: email.Email{ID: id, WorkspaceID: workspaceID, To: "bob@example.org", Subject: "Hi", Status: email.StatusHeld,
			Type: email.TypeTransactional, Environment: apikey.Live, SentAt: time.Now(), TrackingMode: email.TrackingFull},
		Fingerprint: fp,
		Request:     sending.Request{To: "bob@example.org", Subject: "Hi", HTML: html},
		From:        "hello@example.com",
	}
	if _, err := store.Sends.HoldEmail(t.Context(), he, true, nil); err != nil {
		t.Fatal(err)
	}
	return id
}

func newHeld(store dynamo.Repositories, queue owner.ReviewQueue) *owner.Held {
	return &owner.Held{Emails: store.Emails, Store: store.Held, Templates: store.Held, Review: queue}
}

// The owner's verdict is the template's while the template is undecided,
// or when the owner clears a denied one: every email held with it is
// reviewed under it. Otherwise it is about the one email.
func TestHeldDecisions(t *testing.T) {
	cases := map[string]struct {
		before    sending.TemplateState
		clear     bool
		wantState sending.TemplateState
		wantAll   bool // every email of the template queued, not just the one
	}{
		"clear a pending template":  {before: sending.TemplatePending, clear: true, wantState: sending.TemplateCleared, wantAll: true},
		"deny a pending template":   {before: sending.TemplatePending, clear: false, wantState: sending.TemplateDenied, wantAll: true},
		"clear a denied template":   {before: sending.TemplateDenied, clear: true, wantState: sending.TemplateCleared, wantAll: true},
		"deny in a denied template": {before: sending.TemplateDenied, clear: false, wantState: sending.TemplateDenied},
		// Held for reasons of its own (a foreign brand, a deceptive link).
		"clear in a cleared template": {before: sending.TemplateCleared, clear: true, wantState: sending.TemplateCleared},
		"deny in a cleared template":  {before: sending.TemplateCleared, clear: false, wantState: sending.TemplateCleared},
	}
	store := newStore(t)
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			ws := newWorkspace(t, store, "Acme")
			html := "<p>Order " + name + "</p>"
			fp := review.Fingerprint(html)
			looked, other := hold(t, store, ws.ID, html), hold(t, store, ws.ID, html)
			unrelated := hold(t, store, ws.ID, "<div>Something else</div>")
			if tc.before != sending.TemplatePending {
				if _, err := store.Held.DecideTemplate(ctx, ws.ID, fp, tc.before, []string{"by the review"}, false); err != nil {
					t.Fatal(err)
				}
			}
			queue := &fakeReview{}
			h := newHeld(store, queue)
			decide := map[bool]func(context.Context, string, string) error{true: h.Clear, false: h.Deny}[tc.clear]
			if err := decide(ctx, ws.ID, looked); err != nil {
				t.Fatal(err)
			}

			tpl, err := store.Held.GetTemplate(ctx, ws.ID, fp)
			if err != nil || tpl.State != tc.wantState {
				t.Errorf("template = %+v (err %v), want %s", tpl, err, tc.wantState)
			}
			if tc.wantState == sending.TemplateDenied && tc.before == sending.TemplatePending && !slices.Contains(tpl.Reasons, "denied by the workspace owner") {
				t.Errorf("denied template's reasons = %q, want the owner named", tpl.Reasons)
			}
			want := []sending.ReviewMessage{{WorkspaceID: ws.ID, EmailID: looked, Fingerprint: fp, Vouched: tc.clear, Denied: !tc.clear}}
			if tc.wantAll {
				want = append(want, sending.ReviewMessage{WorkspaceID: ws.ID, EmailID: other, Fingerprint: fp})
			}
			got := queue.queued()
			sortMessages(got)
			sortMessages(want)
			if !slices.Equal(got, want) {
				t.Errorf("queued %+v, want %+v", got, want)
			}
			for _, m := range got {
				if m.EmailID == unrelated {
					t.Error("an email of another template was queued")
				}
			}
		})
	}
}

func sortMessages(ms []sending.ReviewMessage) {
	slices.SortFunc(ms, func(a, b sending.ReviewMessage) int { return strings.Compare(a.EmailID, b.EmailID) })
}

func TestHeldDecisionRefusals(t *testing.T) {
	ctx := t.Context()
	store := newStore(t)
	ws, other := newWorkspace(t, store, "Acme"), newWorkspace(t, store, "Other")
	html := "<p>Your code</p>"
	id := hold(t, store, ws.ID, html)
	queue := &fakeReview{}
	h := newHeld(store, queue)

	err := h.Clear(ctx, ws.ID, uuid.NewString())
	wantErr(t, err, sending.ErrNotHeld)
	err = h.Deny(ctx, other.ID, id) // another workspace's email is not there
	wantErr(t, err, sending.ErrNotHeld)
	if err == nil || !strings.Contains(err.Error(), id) {
		t.Errorf("err = %v, want it to name the email", err)
	}
	wantInput(t, h.Clear(ctx, "", id), "workspace")
	wantErr(t, newHeld(store, nil).Clear(ctx, ws.ID, id), owner.ErrNoReviewQueue)
	if q := queue.queued(); len(q) != 0 {
		t.Errorf("refusals queued %+v", q)
	}
	if tpl, err := store.Held.GetTemplate(ctx, ws.ID, review.Fingerprint(html)); err != nil || tpl.State != sending.TemplatePending {
		t.Errorf("refusals decided the template: %+v (err %v)", tpl, err)
	}

	// A queue fault is the caller's to see (the verdict stands; clearing
	// again queues the review again).
	failing := &fakeReview{enqueue: func(sending.ReviewMessage) error { return errors.New("queue down") }}
	if err := newHeld(store, failing).Clear(ctx, ws.ID, id); err == nil || !strings.Contains(err.Error(), "queue down") {
		t.Errorf("err = %v, want the queue fault", err)
	}
	if err := h.Clear(ctx, ws.ID, id); err != nil {
		t.Fatal(err)
	}
	if q := queue.queued(); len(q) != 1 || q[0].EmailID != id || !q[0].Vouched {
		t.Errorf("clearing again queued %+v", q)
	}
}

func TestHeldAndCapturedLists(t *testing.T) {
	ctx := t.Context()
	store := newStore(t)
	ws, other := newWorkspace(t, store, "Acme"), newWorkspace(t, store, "Other")
	put := func(workspaceID string, env apikey.Environment, status email.Status) string {
		t.Helper()
		id := uuid.Must(uuid.NewV7()).String()
		if err := store.Emails.PutEmail(ctx, email.Email{ID: id, WorkspaceID: workspaceID, To: "bob@example.org", Subject: "Hi",
			Status: status, Type: email.TypeTransactional, Environment: env, SentAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
		return id
	}
	h := newHeld(store, nil)
	c := &owner.Captured{Emails: store.Emails}
	for name, list := range map[string]func(context.Context, string) ([]email.Email, error){"held": h.List, "captured": c.List} {
		if none, err := list(ctx, ws.ID); err != nil || none == nil || len(none) != 0 {
			t.Errorf("%s list of no emails = %#v (err %v), want an empty list", name, none, err)
		}
		_, err := list(ctx, "")
		wantInput(t, err, "workspace")
	}

	// More captured emails than one page of the store.
	var captured []string
	for range 101 {
		captured = append([]string{put(ws.ID, apikey.Test, email.StatusSent)}, captured...)
	}
	held := []string{put(ws.ID, apikey.Live, email.StatusHeld)}
	put(ws.ID, apikey.Live, email.StatusSent)
	put(other.ID, apikey.Test, email.StatusSent)
	put(other.ID, apikey.Live, email.StatusHeld)
	held = append([]string{put(ws.ID, apikey.Live, email.StatusHeld)}, held...)

	for name, tc := range map[string]struct {
		list func(context.Context, string) ([]email.Email, error)
		want []string
	}{"held": {h.List, held}, "captured": {c.List, captured}} {
		got, err := tc.list(ctx, ws.ID)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, e := range got {
			ids = append(ids, e.ID)
		}
		if !slices.Equal(ids, tc.want) {
			t.Errorf("%s list = %d emails, want %d newest first, this workspace's only", name, len(ids), len(tc.want))
		}
	}
}
