package runner

import (
	"context"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/unsubscribe"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// world is an in-memory stand-in for the table, the queue and SES.
type world struct {
	mu       sync.Mutex
	now      time.Time
	run      automation.Run
	steps    []automation.Step
	contact  *contact.Contact
	suppress bool
	claims   map[string]email.Email
	sent     []sending.SendInput
	captured []sending.SendInput
	tags     map[string]bool
	wakes    []time.Duration
	// wakeMessages are the messages queued, as wakes their delays.
	wakeMessages []automation.WakeMessage
	wakeItems    []time.Time
	usage        int
	allowance    int
	verified     []string // the workspace's verified domains
	// refuse is SES's answer to every send (nil: taken); unbuildable is
	// the MIME writer's refusal of every message (nil: written).
	refuse      error
	unbuildable error
}

func newWorld(t *testing.T, env apikey.Environment, steps ...automation.Step) *world {
	t.Helper()
	now := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	first := "Ada"
	return &world{
		now: now, steps: steps, claims: map[string]email.Email{}, tags: map[string]bool{},
		run: automation.Run{ID: "run-1", WorkspaceID: "ws", AutomationID: "auto", Version: 1, ContactID: "c1", Environment: env,
			Payload: map[string]string{"product_name": "<script>x</script>"}, Status: automation.RunActive, DueAt: now, StartedAt: now},
		contact:  &contact.Contact{ID: "c1", Email: "ada@example.com", FirstName: &first, Subscribed: true},
		verified: []string{"example.com"},
	}
}

func (w *world) runner() *Runner {
	return &Runner{
		Runs: fakeRuns{w}, Audience: fakeAudience{w}, Mail: fakeMail{w}, Workspaces: fakeWorkspaces{w},
		Queue: fakeQueue{w}, Transport: fakeTransport{w}, Captures: fakeCaptures{w},
		Links: fakeLinks{}, Build: func(m compose.Message) ([]byte, error) {
			if w.unbuildable != nil {
				return nil, w.unbuildable
			}
			return []byte(m.Subject + "|" + m.HTML), nil
		},
		Now: func() time.Time { w.mu.Lock(); defer w.mu.Unlock(); return w.now },
	}
}

func (w *world) wake(t *testing.T) {
	t.Helper()
	if err := w.runner().Wake(context.Background(), automation.WakeMessage{WorkspaceID: "ws", AutomationID: "auto", RunID: "run-1"}); err != nil {
		t.Fatalf("Wake: %v", err)
	}
}

type fakeRuns struct{ w *world }

func (f fakeRuns) GetRun(_ context.Context, _, _, _ string) (automation.Run, error) {
	f.w.mu.Lock()
	defer f.w.mu.Unlock()
	r := f.w.run
	r.Log = append([]automation.StepLog(nil), r.Log...)
	return r, nil
}

func (f fakeRuns) Steps(context.Context, string, string, int) ([]automation.Step, error) {
	return f.w.steps, nil
}

func (f fakeRuns) Advance(_ context.Context, r automation.Run, a automation.Advance) error {
	f.w.mu.Lock()
	defer f.w.mu.Unlock()
	if f.w.run.Status != automation.RunActive || f.w.run.Step != r.Step {
		return automation.ErrRunMoved
	}
	f.w.run = applied(f.w.run, a, f.w.now)
	if a.Wake {
		f.w.wakeItems = append(f.w.wakeItems, a.DueAt)
	}
	return nil
}

type fakeAudience struct{ w *world }

func (f fakeAudience) GetContact(context.Context, string, string) (contact.Contact, error) {
	if f.w.contact == nil {
		return contact.Contact{}, contact.ErrNotFound
	}
	return *f.w.contact, nil
}

// UpdateContact applies p as the contact store does (contact.Patch.Apply,
// with its caps) to the contact whose tags are w.tags.
func (f fakeAudience) UpdateContact(_ context.Context, _, _ string, p contact.Patch) (contact.Contact, error) {
	if f.w.contact == nil {
		return contact.Contact{}, contact.ErrNotFound
	}
	c := *f.w.contact
	c.Tags = slices.Sorted(maps.Keys(f.w.tags))
	next, err := p.Apply(c, f.w.now)
	if err != nil {
		return contact.Contact{}, err
	}
	clear(f.w.tags)
	for _, t := range next.Tags {
		f.w.tags[t] = true
	}
	return next, nil
}

func (f fakeAudience) Suppressed(context.Context, string, string) (bool, error) {
	return f.w.suppress, nil
}

type fakeMail struct{ w *world }

func (f fakeMail) ClaimEmail(_ context.Context, e email.Email) (bool, error) {
	if _, ok := f.w.claims[e.ID]; ok {
		return false, nil
	}
	f.w.claims[e.ID] = e
	return true, nil
}
func (f fakeMail) ClaimedAt(_ context.Context, _, id string) (time.Time, bool, error) {
	e, ok := f.w.claims[id]
	return e.SentAt, ok, nil
}
func (f fakeMail) ReleaseEmail(_ context.Context, _, id string) error {
	delete(f.w.claims, id)
	return nil
}
func (f fakeMail) FailEmail(context.Context, string, string, string) error   { return nil }
func (f fakeMail) MonthlyUsage(context.Context, string, string) (int, error) { return f.w.usage, nil }

type fakeWorkspaces struct{ w *world }

func (f fakeWorkspaces) GetWorkspace(context.Context, string) (workspace.Workspace, error) {
	return workspace.Workspace{ID: "ws", PostalAddress: "1 Main St", MonthlyAllowance: f.w.allowance, VerifiedDomains: f.w.verified,
		DefaultSender: &identity.Sender{ID: "s1", Email: "shop@example.com", Name: "Shop"}}, nil
}

func (f fakeWorkspaces) GetSender(context.Context, string, string) (identity.Sender, error) {
	return identity.Sender{}, identity.ErrSenderNotFound
}

type fakeQueue struct{ w *world }

func (f fakeQueue) EnqueueAfter(_ context.Context, m any, d time.Duration) error {
	f.w.wakes = append(f.w.wakes, d)
	f.w.wakeMessages = append(f.w.wakeMessages, m.(automation.WakeMessage))
	return nil
}

type fakeTransport struct{ w *world }

func (f fakeTransport) Send(_ context.Context, in sending.SendInput) (string, error) {
	if f.w.refuse != nil {
		return "", f.w.refuse
	}
	f.w.sent = append(f.w.sent, in)
	return "ses-id", nil
}

type fakeCaptures struct{ w *world }

func (f fakeCaptures) Capture(_ context.Context, in sending.SendInput) error {
	f.w.captured = append(f.w.captured, in)
	return nil
}

type fakeLinks struct{}

func (fakeLinks) URL(t unsubscribe.Token) (string, error) {
	return "https://sesame.test/u/" + t.ContactID, nil
}
