package engine

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/compose/raw"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/sending/capacity"
	"github.com/sesame-mail/sesame/internal/sending/capacity/capacitytest"
	"github.com/sesame-mail/sesame/internal/unsubscribe"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// world is an in-memory campaign, its chunks, contacts and the emails
// the sender claimed: the fakes of every port the engine has.
type world struct {
	mu          sync.Mutex
	c           campaign.Campaign
	chunks      [][]string
	contacts    map[string]campaign.Recipient
	emails      map[string]email.Email
	progress    map[int]campaign.Progress
	usage       int
	tally       campaign.Tally
	ses         []sending.SendInput
	transitions []campaign.Status
	enqueued    [][]byte
	slots       capacitytest.Slots
	due         map[campaign.DueStart]bool
	// sesFail, when set, answers a send instead of SES accepting it.
	sesFail func(n int, in sending.SendInput) error
	// commitFail, when set, fails a progress commit (a crash before it).
	commitFail func() error
}

const wsID = "0190c000-0000-7000-8000-0000000000aa"

var start = time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)

// newWorld is a sending campaign of n recipients in chunks of chunk.
func newWorld(n, chunk int) *world {
	w := &world{contacts: map[string]campaign.Recipient{}, emails: map[string]email.Email{}, progress: map[int]campaign.Progress{}, due: map[campaign.DueStart]bool{}}
	started := start
	w.c = campaign.Campaign{ID: "0190c000-0000-7000-8000-000000000001", WorkspaceID: wsID, Subject: "News", HTML: "<p>Hello</p>",
		Sender: identity.Sender{Name: "Shop", Email: "news@shop.example"}, Status: campaign.StatusSending,
		RecipientCount: n, StartedAt: &started}
	for i := range n {
		id := fmt.Sprintf("00000000-0000-7000-8000-%012d", i)
		w.contacts[id] = campaign.Recipient{ContactID: id, Email: fmt.Sprintf("r%d@example.com", i), Subscribed: true}
		if i%chunk == 0 {
			w.chunks = append(w.chunks, nil)
		}
		w.chunks[len(w.chunks)-1] = append(w.chunks[len(w.chunks)-1], id)
	}
	w.c.Chunks = len(w.chunks)
	return w
}

func (w *world) GetCampaignRecord(ctx context.Context, ws, id string) (campaign.Campaign, error) {
	c, err := w.GetCampaign(ctx, ws, id)
	c.HTML = ""
	return c, err
}

func (w *world) GetCampaign(_ context.Context, ws, id string) (campaign.Campaign, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if ws != w.c.WorkspaceID || id != w.c.ID {
		return campaign.Campaign{}, campaign.ErrNotFound
	}
	return w.c, nil
}

func (w *world) ReadChunk(_ context.Context, _, _ string, n int) ([]string, error) {
	return w.chunks[n], nil
}

func (w *world) TransitionCampaign(_ context.Context, _, _ string, from []campaign.Status, to campaign.Status, at time.Time, reason string) (campaign.Campaign, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	ok := false
	for _, f := range from {
		ok = ok || f == w.c.Status
	}
	if !ok {
		return w.c, fmt.Errorf("campaign is %s: %w", w.c.Status, campaign.ErrConflict)
	}
	w.c.Status, w.c.PauseReason = to, reason
	if to == campaign.StatusSending && w.c.StartedAt == nil {
		w.c.StartedAt = &at
	}
	w.transitions = append(w.transitions, to)
	return w.c, nil
}

func (w *world) Recipients(_ context.Context, _ string, ids []string) ([]campaign.Recipient, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]campaign.Recipient, len(ids))
	for i, id := range ids {
		out[i] = w.contacts[id]
		out[i].ContactID = id
	}
	return out, nil
}

func (w *world) ClaimEmail(_ context.Context, e email.Email) (bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.emails[e.ID]; ok {
		return false, nil
	}
	w.emails[e.ID] = e
	return true, nil
}

func (w *world) ReleaseEmail(_ context.Context, _, id string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.emails, id)
	return nil
}

func (w *world) FailEmail(_ context.Context, _, id, reason string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	e := w.emails[id]
	e.Status, e.Error = email.StatusFailed, reason
	w.emails[id] = e
	return nil
}

func (w *world) Progress(_ context.Context, _, _ string, chunk int) (campaign.Progress, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.progress[chunk], nil
}

func (w *world) CommitProgress(_ context.Context, _, _ string, chunk int, prev, next campaign.Progress, sent, skipped int) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.commitFail != nil {
		if err := w.commitFail(); err != nil {
			return err
		}
	}
	if w.progress[chunk].Version != prev.Version {
		return campaign.ErrProgressMoved
	}
	w.progress[chunk] = next
	w.c.SentCount += sent
	w.c.SkippedCount += skipped
	return nil
}

func (w *world) MonthlyUsage(context.Context, string, string) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.usage, nil
}

func (w *world) GetWorkspace(context.Context, string) (workspace.Workspace, error) {
	return workspace.Workspace{ID: wsID, PostalAddress: "1 Main St, Springfield", MonthlyAllowance: 0}, nil
}

func (w *world) CountSent(_ context.Context, _ string, _ time.Time, n int) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.tally.Sent += n
	return nil
}

func (w *world) Tally(context.Context, string, time.Time, time.Time) (campaign.Tally, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.tally, nil
}

func (w *world) Send(_ context.Context, in sending.SendInput) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.sesFail != nil {
		if err := w.sesFail(len(w.ses), in); err != nil {
			return "", err
		}
	}
	w.ses = append(w.ses, in)
	return fmt.Sprintf("ses-%d", len(w.ses)), nil
}

func (w *world) EnqueueAll(_ context.Context, bodies [][]byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.enqueued = append(w.enqueued, bodies...)
	return nil
}

func (w *world) PutDue(_ context.Context, d campaign.DueStart) error {
	w.due[d] = true
	return nil
}

func (w *world) DueBy(_ context.Context, t time.Time) ([]campaign.DueStart, error) {
	var out []campaign.DueStart
	for d := range w.due {
		if !d.At.After(t) {
			out = append(out, d)
		}
	}
	return out, nil
}

func (w *world) ClearDue(_ context.Context, d campaign.DueStart) error {
	delete(w.due, d)
	return nil
}

// sentTo counts the SES sends per recipient.
func (w *world) sentTo() map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]int{}
	for _, in := range w.ses {
		out[in.To]++
	}
	return out
}

// clock is a fake clock that sleeping moves forward.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Sleep(_ context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return nil
}

// newSender is a sender over w at rate sends per second on a fake clock.
func newSender(w *world, rate float64) (*Sender, *clock) {
	clk := &clock{now: start.Add(time.Hour)}
	return &Sender{
		Campaigns: w, Store: w, Workspaces: w, Reputation: w, Transport: w, Queue: w,
		Pacer:      &capacity.Pacer{Slots: &w.slots, Rate: capacity.FixedRate(rate), Shares: capacity.DefaultShares, Now: clk.Now, Sleep: clk.Sleep},
		Build:      raw.Build,
		Links:      unsubscribe.Links{BaseURL: "https://mail.example", Signer: unsubscribe.Signer{Secret: []byte("k")}},
		ConfigSets: sending.ConfigSets{Full: "full", Essential: "essential", Off: "off"},
		Breaker:    DefaultThresholds, Now: clk.Now, Sleep: clk.Sleep, Logger: slog.New(slog.DiscardHandler),
	}, clk
}

// throttled is SES's throttling as the ses adapter reports it: transient.
var throttled = fmt.Errorf("ses: throttled")

// rejected is a permanent refusal.
var rejected = fail.Errorf(fail.KindInvalid, "", "", "address rejected")
