package sending_test

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
	"github.com/sesame-mail/sesame/internal/dynamo/repositories"
	"github.com/sesame-mail/sesame/internal/dynamo/storetest"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail/failtest"
	"github.com/sesame-mail/sesame/internal/review"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/workspace"
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
func hold(t *testing.T, store repositories.Set, workspaceID, html string) string {
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

func newHeld(store repositories.Set, queue sending.Enqueuer) *sending.Held {
	return &sending.Held{Emails: store.Emails, Store: store.Held, Workspaces: store.Workspaces, Review: queue}
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
	store := storetest.New(t)
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			ws := storetest.Workspace(t, store, "Acme")
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
	store := storetest.New(t)
	ws, other := storetest.Workspace(t, store, "Acme"), storetest.Workspace(t, store, "Other")
	html := "<p>Your code</p>"
	id := hold(t, store, ws.ID, html)
	queue := &fakeReview{}
	h := newHeld(store, queue)

	err := h.Clear(ctx, ws.ID, uuid.NewString())
	failtest.WantIs(t, err, sending.ErrNotHeld)
	err = h.Deny(ctx, other.ID, id) // another workspace's email is not there
	failtest.WantIs(t, err, sending.ErrNotHeld)
	if err == nil || !strings.Contains(err.Error(), id) {
		t.Errorf("err = %v, want it to name the email", err)
	}
	failtest.WantInput(t, h.Clear(ctx, "", id), "workspace")
	failtest.WantIs(t, newHeld(store, nil).Clear(ctx, ws.ID, id), sending.ErrNoReviewQueue)
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
	store := storetest.New(t)
	ws, other := storetest.Workspace(t, store, "Acme"), storetest.Workspace(t, store, "Other")
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
	c := &email.Captured{Emails: store.Emails}
	if none, err := h.List(ctx, ws.ID); err != nil || none == nil || len(none) != 0 {
		t.Errorf("held list of no emails = %#v (err %v), want an empty list", none, err)
	}
	if none, err := c.List(ctx, ws.ID); err != nil || none == nil || len(none) != 0 {
		t.Errorf("captured list of no emails = %#v (err %v), want an empty list", none, err)
	}
	_, err := h.List(ctx, "")
	failtest.WantInput(t, err, "workspace")
	_, err = c.List(ctx, "")
	failtest.WantInput(t, err, "workspace")

	// More captured emails than one page of the store.
	var captured []string
	for range 101 {
		captured = append([]string{put(ws.ID, apikey.Test, email.StatusSent)}, captured...)
	}
	held := []string{hold(t, store, ws.ID, "<p>First</p>")}
	put(ws.ID, apikey.Live, email.StatusSent)
	put(other.ID, apikey.Test, email.StatusSent)
	hold(t, store, other.ID, "<p>Theirs</p>")
	held = append([]string{hold(t, store, ws.ID, "<p>Second</p>")}, held...)
	// Marked held, but its content is gone: released while the list is read.
	put(ws.ID, apikey.Live, email.StatusHeld)

	gotCaptured, err := c.List(ctx, ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	gotHeld, err := h.List(ctx, ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct{ got, want []string }{
		"held":     {ids(gotHeld, func(e sending.HeldEntry) string { return e.ID }), held},
		"captured": {ids(gotCaptured, func(e email.Email) string { return e.ID }), captured},
	} {
		if !slices.Equal(tc.got, tc.want) {
			t.Errorf("%s list = %d emails, want %d newest first, this workspace's only", name, len(tc.got), len(tc.want))
		}
	}
}

func ids[T any](list []T, id func(T) string) []string {
	var out []string
	for _, e := range list {
		out = append(out, id(e))
	}
	return out
}

// held list says why each email is held: its template's review, or the
// email's own check once the template is cleared.
func TestHeldListReasons(t *testing.T) {
	ctx := t.Context()
	store := storetest.New(t)
	ws := storetest.Workspace(t, store, "Acme")
	h := newHeld(store, nil)
	layout := `<div><p>Hello %s</p><a href="%s">Your order</a></div>`
	html := func(name, link string) string { return fmt.Sprintf(layout, name, link) }
	pending := hold(t, store, ws.ID, `<table><tr><td>New</td></tr></table>`)
	plain := hold(t, store, ws.ID, html("Bob", "https://acme.example/o"))
	brand := hold(t, store, ws.ID, html("PayPal customer", "https://acme.example/o"))
	link := hold(t, store, ws.ID, strings.Replace(html("Ann", "https://evil.example/o"), "Your order", "https://acme.example/o", 1))
	denied := hold(t, store, ws.ID, `<form><input type="password" name="p"></form>`)
	decide := func(body string, state sending.TemplateState, reasons ...string) {
		t.Helper()
		if _, err := store.Held.DecideTemplate(ctx, ws.ID, review.Fingerprint(body), state, reasons, false); err != nil {
			t.Fatal(err)
		}
	}
	decide(html("", ""), sending.TemplateCleared)
	decide(`<form><input type="password" name="p"></form>`, sending.TemplateDenied, "asks for a password")

	list, err := h.List(ctx, ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range list {
		got[e.ID] = strings.Join(e.Reasons, " | ")
	}
	for id, want := range map[string]string{
		pending: "new template: its first security review is pending",
		brand:   "names a brand the workspace does not own: paypal",
		link:    "a link shows one address and goes to another",
		denied:  "its template was denied by the security review: asks for a password",
		plain:   "its template is cleared and its own check passes now",
	} {
		if !strings.Contains(got[id], want) {
			t.Errorf("email %s is held because %q, want it to say %q", id, got[id], want)
		}
	}
	// The owner makes the brand its own: the check passes now, and the
	// list says so instead of a reason that no longer holds.
	if _, err := store.Workspaces.UpdateWorkspace(ctx, ws.ID, workspace.Settings{Brands: &[]string{"PayPal"}}); err != nil {
		t.Fatal(err)
	}
	list, err = h.List(ctx, ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range list {
		if e.ID == brand && !strings.Contains(strings.Join(e.Reasons, " "), "its own check passes now") {
			t.Errorf("after the brand became the workspace's, email %s is held because %q", e.ID, e.Reasons)
		}
	}
}
