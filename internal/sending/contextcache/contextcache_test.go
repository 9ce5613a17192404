package contextcache

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// contextStore is a Store whose context reads are functions; its writes
// are not called here.
type contextStore struct {
	sending.Store
	load  func(q sending.ContextQuery) (sending.Context, error)
	usage func(workspaceID, month string) (int, error)
}

func (s contextStore) LoadContext(_ context.Context, q sending.ContextQuery) (sending.Context, error) {
	return s.load(q)
}
func (s contextStore) MonthlyUsage(_ context.Context, ws, month string) (int, error) {
	return s.usage(ws, month)
}

// table is what the store holds, changed by a test between sends, and
// what each send asked of it.
type table struct {
	mu         sync.Mutex
	ws         workspace.Workspace
	suppressed map[string]bool
	verdict    sending.TemplateState // "" none
	sent       int
	old        bool // do-not-send entries before the shards
	// the layout's reference of any day; nil none
	ref []byte

	queries    []sending.ContextQuery
	usageReads int
	layoutAsks int
}

func (tb *table) store() contextStore {
	return contextStore{
		load: func(q sending.ContextQuery) (sending.Context, error) {
			tb.mu.Lock()
			defer tb.mu.Unlock()
			tb.queries = append(tb.queries, q)
			var c sending.Context
			if !q.Known.Workspace {
				c.Workspace = tb.ws
			}
			c.Suppressed = tb.suppressed[q.Recipient]
			if !q.Known.Template && tb.verdict != "" {
				c.Template = &sending.Template{Fingerprint: q.Fingerprint, State: tb.verdict}
			}
			if q.ReadUsage {
				c.MonthlySent, c.UsageKnown = tb.sent, true
			}
			if q.Day != "" && !q.Known.ContentRef {
				c.ContentRef = email.ContentRef{Layout: q.Fingerprint, Day: q.Day}
				if tb.ref != nil {
					c.ContentRef.Stored, c.ContentRef.Dict, c.ContentRef.Sum = true, tb.ref, []byte("sum")
				}
			}
			return c, nil
		},
		usage: func(string, string) (int, error) {
			tb.mu.Lock()
			defer tb.mu.Unlock()
			tb.usageReads++
			return tb.sent, nil
		},
	}
}

func (tb *table) OldSuppressions(context.Context, string) (bool, error) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	tb.layoutAsks++
	return tb.old, nil
}

func (tb *table) set(f func(tb *table)) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	f(tb)
}

func (tb *table) last() sending.ContextQuery {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return tb.queries[len(tb.queries)-1]
}

// fakeClock is a clock tests move by hand.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time          { return c.now }
func (c *fakeClock) advance(d time.Duration) { c.now = c.now.Add(d) }

// cached is tb's store behind an instance cache on clock.
func cached(tb *table, clock *fakeClock) sending.Store {
	return New(tb.store(), TTL, clock.Now, tb)
}

// decide loads a live send's context to ann and plans it, as Send does.
func decide(t *testing.T, s sending.Store, clock *fakeClock) (sending.Decision, error) {
	t.Helper()
	c, err := sending.LoadContext(t.Context(), s, sending.ContextQuery{WorkspaceID: "ws", Recipient: "ann@example.com", Fingerprint: "fp", Month: clock.now.Format("2006-01")})
	if err != nil {
		t.Fatal(err)
	}
	return sending.Plan(sending.PlanInput{
		Principal: apikey.Principal{WorkspaceID: "ws", Environment: apikey.Live},
		Request:   sending.Request{To: "ann@example.com", Subject: "Hi", HTML: "<p>Hi</p>"},
		Context:   c, EmailID: "e1", Now: clock.now,
	})
}

func newTable() *table {
	sender := identity.Sender{ID: "snd", Name: "Demo", Email: "hello@demo.test"}
	return &table{
		ws:         workspace.Workspace{ID: "ws", Name: "Demo", VerifiedDomains: []string{"demo.test"}, DefaultSender: &sender},
		suppressed: map[string]bool{}, verdict: sending.TemplateCleared,
	}
}

// A warm instance sees a changed setting at most TTL late, and a
// do-not-send entry at once.
func TestContextCacheLateness(t *testing.T) {
	tb, clock := newTable(), &fakeClock{now: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)}
	s := cached(tb, clock)
	if d, err := decide(t, s, clock); err != nil || d.Action != sending.ActionDeliver {
		t.Fatalf("first send: %v %v, want delivered", d.Action, err)
	}
	if q := tb.last(); q.Known != (sending.Known{}) {
		t.Fatalf("a cold instance knew %+v", q.Known)
	}
	// The owner changes a setting (here: a cap already used up).
	tb.set(func(tb *table) { tb.ws.MonthlyAllowance, tb.sent = 5, 5 })
	clock.advance(TTL - time.Millisecond)
	if d, err := decide(t, s, clock); err != nil || d.Action != sending.ActionDeliver {
		t.Fatalf("within the TTL: %v %v, want delivered on the setting read before", d.Action, err)
	}
	if q := tb.last(); !q.Known.Workspace || !q.Known.Template {
		t.Errorf("a warm instance read %+v again", q.Known)
	}
	clock.advance(time.Millisecond)
	if _, err := decide(t, s, clock); fail.KindOf(err) != fail.KindTooMany {
		t.Fatalf("at the TTL: %v, want the new allowance's 429", err)
	}

	// An unsubscribe is honoured by the very next send.
	tb.set(func(tb *table) { tb.ws.MonthlyAllowance, tb.sent = 0, 0 })
	clock.advance(TTL)
	if d, _ := decide(t, s, clock); d.Action != sending.ActionDeliver {
		t.Fatalf("send: %v, want delivered", d.Action)
	}
	tb.set(func(tb *table) { tb.suppressed["ann@example.com"] = true })
	if d, _ := decide(t, s, clock); d.Action != sending.ActionRecord || d.Email.Status != "suppressed" {
		t.Errorf("send right after the suppression: %v %v, want suppressed", d.Action, d.Email.Status)
	}
}

// Only a decided verdict is kept: a layout's first emails are held and
// each reads the review's verdict, so its clearing is seen at once.
func TestContextCacheKeepsOnlyDecidedVerdicts(t *testing.T) {
	tb, clock := newTable(), &fakeClock{now: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)}
	tb.verdict = sending.TemplatePending
	s := cached(tb, clock)
	if d, _ := decide(t, s, clock); d.Action != sending.ActionHold {
		t.Fatalf("pending layout: %v, want held", d.Action)
	}
	tb.set(func(tb *table) { tb.verdict = sending.TemplateCleared })
	if d, _ := decide(t, s, clock); d.Action != sending.ActionDeliver {
		t.Errorf("right after the clearing: %v, want delivered", d.Action)
	}
	tb.set(func(tb *table) { tb.verdict = sending.TemplateDenied })
	if d, _ := decide(t, s, clock); d.Action != sending.ActionDeliver {
		t.Errorf("within the TTL of a cleared verdict: %v, want delivered (at most a second late)", d.Action)
	}
	clock.advance(TTL)
	if d, _ := decide(t, s, clock); d.Action != sending.ActionFail {
		t.Errorf("after the TTL: %v, want failed by the denied verdict", d.Action)
	}
}

// A layout's reference of the day is read until it exists, then kept
// the whole day (it never changes), and the next day's is read anew.
func TestContextCacheKeepsTheDaysReference(t *testing.T) {
	tb, clock := newTable(), &fakeClock{now: time.Date(2026, 11, 27, 0, 0, 1, 0, time.UTC)}
	s := cached(tb, clock)
	load := func() sending.Context {
		t.Helper()
		c, err := sending.LoadContext(t.Context(), s, sending.ContextQuery{WorkspaceID: "ws", Recipient: "ann@example.com",
			Fingerprint: "fp", Month: clock.now.Format("2006-01"), Day: clock.now.Format(time.DateOnly)})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for range 2 {
		if c := load(); tb.last().Known.ContentRef || c.ContentRef.Dict != nil || c.ContentRef.Day != "2026-11-27" {
			t.Fatalf("before the day's reference exists: known %v, %+v", tb.last().Known.ContentRef, c.ContentRef)
		}
	}
	tb.set(func(tb *table) { tb.ref = []byte("<p>Hi Ann</p>") })
	if c := load(); tb.last().Known.ContentRef || string(c.ContentRef.Dict) != "<p>Hi Ann</p>" {
		t.Fatalf("once written, the reference is not read: %+v", c.ContentRef)
	}
	clock.advance(23 * time.Hour)
	if c := load(); !tb.last().Known.ContentRef || string(c.ContentRef.Dict) != "<p>Hi Ann</p>" || c.ContentRef.Day != "2026-11-27" {
		t.Errorf("later that day: known %v, %+v, want the kept reference", tb.last().Known.ContentRef, c.ContentRef)
	}
	clock.advance(time.Hour)
	if c := load(); tb.last().Known.ContentRef || c.ContentRef.Day != "2026-11-28" {
		t.Errorf("the next day: known %v, %+v, want the next day's read", tb.last().Known.ContentRef, c.ContentRef)
	}
}

// The allowance refuses exactly at its boundary: near it every send reads
// the counter; far from it a warm instance trusts its second-old sum; past
// it the refusal needs no read (the counter only grows in a month).
func TestContextCacheAllowanceBoundary(t *testing.T) {
	tb, clock := newTable(), &fakeClock{now: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)}
	tb.ws.MonthlyAllowance, tb.sent = 3, 1
	s := cached(tb, clock)
	// A cold instance does not know the cap: the usage is a second read.
	if d, err := decide(t, s, clock); err != nil || d.Action != sending.ActionDeliver {
		t.Fatalf("1 of 3 used: %v %v", d.Action, err)
	}
	if tb.usageReads != 1 || tb.last().ReadUsage {
		t.Errorf("cold instance: %d usage reads, in the context read %v; want one read apart", tb.usageReads, tb.last().ReadUsage)
	}
	tb.set(func(tb *table) { tb.sent = 2 })
	if d, err := decide(t, s, clock); err != nil || d.Action != sending.ActionDeliver {
		t.Fatalf("2 of 3 used: %v %v", d.Action, err)
	}
	if q := tb.last(); !q.ReadUsage {
		t.Error("near the allowance a warm instance did not read the usage")
	}
	tb.set(func(tb *table) { tb.sent = 3 })
	if _, err := decide(t, s, clock); fail.KindOf(err) != fail.KindTooMany {
		t.Fatalf("3 of 3 used, read within the TTL of 2: %v, want 429", err)
	}
	reads := len(tb.queries)
	if _, err := decide(t, s, clock); fail.KindOf(err) != fail.KindTooMany {
		t.Fatalf("again: %v, want 429", err)
	}
	if q := tb.last(); q.ReadUsage || len(tb.queries) != reads+1 {
		t.Error("a used-up allowance was read again within the TTL")
	}

	// Far from a large allowance the cached sum decides for a second.
	tb.set(func(tb *table) { tb.ws.MonthlyAllowance, tb.sent = 1_000_000, 10 })
	clock.advance(TTL)
	if d, err := decide(t, s, clock); err != nil || d.Action != sending.ActionDeliver {
		t.Fatalf("far from the allowance: %v %v", d.Action, err)
	}
	if q := tb.last(); !q.ReadUsage {
		t.Fatal("a capped workspace's usage was not read with its context")
	}
	if d, err := decide(t, s, clock); err != nil || d.Action != sending.ActionDeliver {
		t.Fatalf("far, warm: %v %v", d.Action, err)
	}
	if q := tb.last(); q.ReadUsage || !q.Known.Workspace {
		t.Errorf("far from the allowance a warm instance read the usage again (%+v)", q)
	}
	// The margin's edge: UsageExactMargin+1 left is far, UsageExactMargin is near.
	for left, read := range map[int]bool{UsageExactMargin + 1: false, UsageExactMargin: true} {
		tb.set(func(tb *table) { tb.sent = tb.ws.MonthlyAllowance - left })
		clock.advance(TTL)
		decide(t, s, clock) // reads and keeps the sum
		if _, err := decide(t, s, clock); err != nil {
			t.Fatal(err)
		}
		if got := tb.last().ReadUsage; got != read {
			t.Errorf("%d left: warm send read the usage %v, want %v", left, got, read)
		}
	}
}

// The do-not-send partition before the shards is read until the instance
// learns the workspace has nothing there, and asked again only a
// layoutTTL later; without a layout it is always read.
func TestContextCacheOldSuppressions(t *testing.T) {
	tb, clock := newTable(), &fakeClock{now: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)}
	tb.old = true
	s := cached(tb, clock)
	decide(t, s, clock)
	if tb.last().NoOldSuppressions {
		t.Error("old entries present, the old partition was skipped")
	}
	tb.set(func(tb *table) { tb.old = false })
	clock.advance(layoutTTL)
	decide(t, s, clock)
	decide(t, s, clock)
	if !tb.last().NoOldSuppressions || tb.layoutAsks != 2 {
		t.Errorf("skip %v after %d asks, want skipped after 2", tb.last().NoOldSuppressions, tb.layoutAsks)
	}
	decide(t, tb.store(), clock)
	if tb.last().NoOldSuppressions || tb.last().Known != (sending.Known{}) {
		t.Errorf("without a cache the send skipped %+v", tb.last())
	}
}

// A store fault is the send's error and nothing is kept from it.
func TestContextCacheFault(t *testing.T) {
	clock := &fakeClock{now: time.Unix(0, 0)}
	down := errors.New("down")
	s := New(contextStore{load: func(sending.ContextQuery) (sending.Context, error) { return sending.Context{}, down }}, TTL, clock.Now, nil)
	if _, err := s.LoadContext(t.Context(), sending.ContextQuery{WorkspaceID: "ws"}); !errors.Is(err, down) {
		t.Fatalf("err = %v, want the store's", err)
	}
	if s.workspaces.Len() != 0 {
		t.Error("a failed read was kept")
	}
}
