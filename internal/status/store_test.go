package status_test

// These tests run the Processor over the real store (DynamoDB Local, see
// dynamotest) and read back what one SES event wrote.

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/dynamo/repositories"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/status"
)

// world is a processor over a fresh table, with a recording publisher.
type world struct {
	store repositories.Set
	rec   *dynamotest.Recorder
	pub   *fakePublisher
	p     *status.Processor
}

func newWorld(t *testing.T) *world {
	t.Helper()
	store, rec := dynamotest.NewStore(t)
	store.Table.Now = dynamotest.NewClock(at(10, 30, 0, 0)).Now
	pub := &fakePublisher{}
	return &world{store: store, rec: rec, pub: pub, p: &status.Processor{Store: store.Statuses, Publisher: pub, Logger: quiet()}}
}

// newEmail stores a sent email (see sentEmail) in a workspace of its own,
// so counters and the feed are the email's alone.
func (w *world) newEmail(t *testing.T, mutate ...func(*email.Email)) email.Email {
	t.Helper()
	ws, err := w.store.Workspaces.CreateWorkspace(t.Context(), "Acme")
	if err != nil {
		t.Fatal(err)
	}
	id := uuid.Must(uuid.NewV7()).String()
	e := sentEmail(append([]func(*email.Email){func(e *email.Email) { e.ID, e.WorkspaceID = id, ws.ID }}, mutate...)...)
	if err := w.store.Emails.PutEmail(t.Context(), e); err != nil {
		t.Fatal(err)
	}
	return e
}

// body is fixture name about e.
func body(t *testing.T, name string, e email.Email) []byte {
	t.Helper()
	return fixtureFor(t, name, e.WorkspaceID, e.ID, e.To)
}

// snapshot is everything the pipeline writes about one email.
type snapshot struct {
	Email      email.Email
	Feed       []event.Envelope
	Clicks     []email.Click
	Metrics    map[string]map[string]int
	Usage      int
	Suppressed bool
}

func (w *world) snapshot(t *testing.T, e email.Email) snapshot {
	t.Helper()
	ctx := t.Context()
	var s snapshot
	var err error
	if s.Email, err = w.store.Emails.GetEmail(ctx, e.WorkspaceID, e.ID); err != nil {
		t.Fatal(err)
	}
	bodies, _, _, err := w.store.Events.ListEvents(ctx, e.WorkspaceID, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bodies {
		var env event.Envelope
		if err := json.Unmarshal(b, &env); err != nil {
			t.Fatalf("feed item %s: %v", b, err)
		}
		s.Feed = append(s.Feed, env)
	}
	// The clicks as the click list reads them: the first one may be kept
	// on the email.
	records, more, err := w.store.Clicks.ListClicks(ctx, e.WorkspaceID, e.ID, 100)
	if err != nil {
		t.Fatal(err)
	}
	s.Clicks, _ = email.MergeClicks(s.Email, records, more, 100)
	if s.Metrics, err = w.store.Metrics.DailyMetrics(ctx, e.WorkspaceID, "2026-11-01", "2026-11-30"); err != nil {
		t.Fatal(err)
	}
	c, err := w.store.Sends.LoadContext(ctx, sending.ContextQuery{WorkspaceID: e.WorkspaceID, Recipient: e.To, Fingerprint: "none", Month: "2026-11", ReadUsage: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Usage, s.Suppressed = c.MonthlySent, c.Suppressed
	return s
}

func TestApplyingTheSameEventTwiceChangesNothing(t *testing.T) {
	w := newWorld(t)
	type want struct {
		status     email.Status
		feed       event.Type // "" for none
		metrics    []string   // counted for the day; none when empty
		clicks     int
		usage      int
		suppressed bool
		optOut     int
	}
	cases := map[string]want{
		"delivery":          {email.StatusDelivered, event.Delivered, []string{"transactional_live_delivered", "transactional_live_sent"}, 0, 1, false, 0},
		"open":              {email.StatusOpened, event.Opened, []string{"transactional_live_opened"}, 0, 0, false, 0},
		"click":             {email.StatusClicked, event.Clicked, []string{"transactional_live_clicked"}, 1, 0, false, 0},
		"click-unsubscribe": {email.StatusSent, "", nil, 0, 0, false, 1},
		"bounce-permanent":  {email.StatusBounced, event.Bounced, []string{"transactional_live_bounced", "transactional_live_sent"}, 0, 1, true, 0},
		"bounce-transient":  {email.StatusBounced, event.Bounced, []string{"transactional_live_bounced", "transactional_live_sent"}, 0, 1, false, 0},
		"complaint":         {email.StatusComplained, event.Complained, []string{"transactional_live_complained"}, 0, 0, true, 0},
		// The end of the email in SES adds it to the month's allowance usage.
		"reject": {email.StatusFailed, event.Failed, []string{"transactional_live_failed"}, 0, 1, false, 0},
		// SES no longer publishes Send; one left on the queue changes nothing.
		"send": {email.StatusSent, "", nil, 0, 0, false, 0},
	}
	for name, wt := range cases {
		t.Run(name, func(t *testing.T) {
			e := w.newEmail(t)
			b := body(t, name, e)
			if failed := handle(t, w.p, b); len(failed) != 0 {
				t.Fatalf("first delivery failed: %v", failed)
			}
			first := w.snapshot(t, e)
			published := w.pub.publishedFor(e.ID)

			if first.Email.Status != wt.status || first.Email.OptOutClicks != wt.optOut {
				t.Errorf("email status %s, opt-outs %d; want %s, %d", first.Email.Status, first.Email.OptOutClicks, wt.status, wt.optOut)
			}
			if wt.feed == "" {
				if len(first.Feed) != 0 || len(published) != 0 {
					t.Errorf("feed %v, published %v; want neither", first.Feed, published)
				}
			} else if len(first.Feed) != 1 || first.Feed[0].Type != wt.feed || first.Feed[0].Data.ID != e.ID ||
				len(published) != 1 || published[0].ID != first.Feed[0].ID {
				t.Errorf("feed %+v, published %+v; want one %s item, published once", first.Feed, published, wt.feed)
			}
			wantMetrics := map[string]map[string]int{}
			for _, m := range wt.metrics {
				if wantMetrics["2026-11-22"] == nil {
					wantMetrics["2026-11-22"] = map[string]int{}
				}
				wantMetrics["2026-11-22"][m] = 1
			}
			if !reflect.DeepEqual(first.Metrics, wantMetrics) {
				t.Errorf("metrics = %v, want %v", first.Metrics, wantMetrics)
			}
			if len(first.Clicks) != wt.clicks || first.Usage != wt.usage || first.Suppressed != wt.suppressed {
				t.Errorf("clicks %d, usage %d, suppressed %v; want %d, %d, %v", len(first.Clicks), first.Usage, first.Suppressed, wt.clicks, wt.usage, wt.suppressed)
			}

			// SQS redelivers it, raw and inside an SNS notification.
			if failed := handle(t, w.p, b, sns(t, "Notification", b)); len(failed) != 0 {
				t.Fatalf("duplicates failed: %v", failed)
			}
			if again := w.snapshot(t, e); !reflect.DeepEqual(again, first) {
				t.Errorf("a duplicate changed what was written:\nfirst %+v\nagain %+v", first, again)
			}
			// The duplicates are published again, with the same id: the
			// first try may have died between its write and its publish,
			// and a duplicate is then the only chance of the fan-out. The
			// webhook dispatcher deduplicates deliveries per event and
			// endpoint, so receivers see the event once.
			again := w.pub.publishedFor(e.ID)
			if wt.feed == "" && len(again) != 0 {
				t.Errorf("published %v for an event the feed does not show", again)
			}
			if wt.feed != "" {
				if len(again) != 3 {
					t.Errorf("published %d times after two duplicates, want 3", len(again))
				}
				for _, p := range again {
					if p.ID != first.Feed[0].ID {
						t.Errorf("republished id %s, want %s", p.ID, first.Feed[0].ID)
					}
				}
			}
		})
	}
}

// publishedFor returns the published events about email id.
func (f *fakePublisher) publishedFor(id string) []event.Event {
	var out []event.Event
	for _, e := range f.published() {
		if e.Data != nil && e.Data.ID == id {
			out = append(out, e)
		}
	}
	return out
}

func TestEventForAnEmailNotOursIsDropped(t *testing.T) {
	w := newWorld(t)
	mine := w.newEmail(t)
	other, err := w.store.Workspaces.CreateWorkspace(t.Context(), "Other")
	if err != nil {
		t.Fatal(err)
	}
	before := w.snapshot(t, mine)
	cases := map[string][]byte{
		"tags name another workspace": fixtureFor(t, "delivery", other.ID, mine.ID, mine.To),
		"no such email":               fixtureFor(t, "delivery", mine.WorkspaceID, uuid.NewString(), mine.To),
		"no such workspace":           fixtureFor(t, "bounce-permanent", uuid.NewString(), mine.ID, mine.To),
		"click of another workspace":  fixtureFor(t, "click", other.ID, mine.ID, mine.To),
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			w.rec.Reset()
			if failed := handle(t, w.p, b); len(failed) != 0 {
				t.Errorf("batch item failures %v, want the event dropped", failed)
			}
			if n := w.rec.Writes(); n != 0 {
				t.Errorf("%d items written, want none", n)
			}
		})
	}
	if len(w.pub.published()) != 0 {
		t.Errorf("published %+v", w.pub.published())
	}
	if after := w.snapshot(t, mine); !reflect.DeepEqual(after, before) {
		t.Errorf("the email changed: %+v", after)
	}
}

func TestUnparseableMessagesAreDroppedWithoutWrites(t *testing.T) {
	w := newWorld(t)
	cases := badBodies(t)
	bodies := make([][]byte, 0, len(cases))
	for _, tc := range cases {
		bodies = append(bodies, tc.body)
	}
	w.rec.Reset()
	if failed := handle(t, w.p, bodies...); len(failed) != 0 {
		t.Errorf("batch item failures %v, want every message dropped", failed)
	}
	if n, calls := w.rec.Writes(), w.rec.Total(); n != 0 || calls != 0 {
		t.Errorf("%d items written in %d calls, want no call at all", n, calls)
	}
}

// writeOps are the DynamoDB operations that write.
var writeOps = map[string]bool{"PutItem": true, "UpdateItem": true, "DeleteItem": true, "TransactWriteItems": true, "BatchWriteItem": true}

// failing makes the recorder fail the calls for which fail says so, with
// an injected error, until cleared.
func failing(rec *dynamotest.Recorder, fail func(op string) bool) {
	rec.Fail = func(op string) error {
		if fail(op) {
			return errors.New("injected " + op + " fault")
		}
		return nil
	}
}

// wantDeliveredOnce checks an email after its delivery applied exactly
// once: delivered, one feed item, counted once (metric and monthly
// usage), and published.
func (w *world) wantDeliveredOnce(t *testing.T, e email.Email, pub *fakePublisher) {
	t.Helper()
	s := w.snapshot(t, e)
	if s.Email.Status != email.StatusDelivered || s.Email.DeliveredAt == nil || !s.Email.DeliveredAt.Equal(at(10, 0, 1, 250)) {
		t.Errorf("status %s, delivered_at %s; want delivered at the event's time", s.Email.Status, timeOf(s.Email.DeliveredAt))
	}
	if len(s.Feed) != 1 || s.Feed[0].Type != event.Delivered {
		t.Fatalf("feed %+v, want one email.delivered item", s.Feed)
	}
	if n := s.Metrics["2026-11-22"]["transactional_live_delivered"]; n != 1 {
		t.Errorf("delivered counted %d times, want once", n)
	}
	if s.Usage != 1 {
		t.Errorf("the monthly usage is %d, want the email counted once", s.Usage)
	}
	got := pub.publishedFor(e.ID)
	if len(got) == 0 {
		t.Fatal("never published")
	}
	for _, p := range got {
		if p.ID != s.Feed[0].ID {
			t.Errorf("published %s, want the feed item %s", p.ID, s.Feed[0].ID)
		}
	}
}

func TestFaultIsRetriedThenAppliedOnce(t *testing.T) {
	w := newWorld(t)
	// The batch: m1 malformed (dropped), m2 a delivery, m3 a delivery
	// delay (read, nothing to write).
	cases := map[string]struct {
		fail       func(op string) bool
		wantFailed []string
	}{
		"reads fail": {func(op string) bool { return op == "GetItem" }, []string{"m2", "m3"}},
		// TransactWriteItems, or each write call of a store without them.
		"writes fail": {func(op string) bool { return writeOps[op] }, []string{"m2"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := w.newEmail(t)
			before := w.snapshot(t, e)
			failing(w.rec, tc.fail)
			failed := handle(t, w.p, []byte("{malformed"), body(t, "delivery", e), body(t, "delivery-delay", e))
			w.rec.Fail = nil
			if !slices.Equal(failed, tc.wantFailed) {
				t.Fatalf("batch item failures = %v, want exactly %v", failed, tc.wantFailed)
			}
			if after := w.snapshot(t, e); !reflect.DeepEqual(after, before) {
				t.Errorf("a failed event wrote something: %+v", after)
			}
			if got := w.pub.publishedFor(e.ID); len(got) != 0 {
				t.Errorf("a failed event was published: %+v", got)
			}
			// SQS redelivers it after the fault cleared: it applies once.
			if failed := handle(t, w.p, body(t, "delivery", e)); len(failed) != 0 {
				t.Fatalf("retry failed: %v", failed)
			}
			w.wantDeliveredOnce(t, e, w.pub)
			if got := w.pub.publishedFor(e.ID); len(got) != 1 {
				t.Errorf("published %d times, want once", len(got))
			}
		})
	}
}

// Whichever write of an event fails (the store may write in one
// transaction or in several calls), the redelivered event completes it:
// nothing is lost and nothing counted twice.
func TestFaultAtEachWriteIsRetriedThenAppliedOnce(t *testing.T) {
	w := newWorld(t)
	// How many write calls does a clean delivery take?
	twin := w.newEmail(t)
	w.rec.Reset()
	if failed := handle(t, w.p, body(t, "delivery", twin)); len(failed) != 0 {
		t.Fatal(failed)
	}
	calls := 0
	for op := range writeOps {
		calls += w.rec.Calls(op)
	}
	if calls == 0 {
		t.Fatal("a delivery wrote nothing")
	}
	for k := 1; k <= calls; k++ {
		t.Run(fmt.Sprintf("write %d of %d fails", k, calls), func(t *testing.T) {
			e := w.newEmail(t)
			pub := &fakePublisher{}
			p := &status.Processor{Store: w.store.Statuses, Publisher: pub, Logger: quiet()}
			n := 0
			failing(w.rec, func(op string) bool {
				if writeOps[op] {
					n++
					return n == k
				}
				return false
			})
			failed := handle(t, p, body(t, "delivery", e))
			w.rec.Fail = nil
			// The store retries a failed counter write itself (the last two:
			// the day's metrics and the month's usage); any other failed
			// write fails the message, and SQS redelivers it.
			switch {
			case len(failed) == 0 && k > calls-2:
			case slices.Equal(failed, []string{"m1"}):
				if failed := handle(t, p, body(t, "delivery", e)); len(failed) != 0 {
					t.Fatalf("retry failed: %v", failed)
				}
			default:
				t.Fatalf("batch item failures = %v at write %d of %d", failed, k, calls)
			}
			w.wantDeliveredOnce(t, e, pub)
		})
	}
}

// A publish that fails after the write is retried: at least once.
func TestPublishFaultIsRetried(t *testing.T) {
	w := newWorld(t)
	cases := map[string]struct {
		fixture string
		mutate  func(*email.Email)
	}{
		"delivery":        {"delivery", nil},
		"click":           {"click", nil},
		"complaint":       {"complaint", nil},
		"open, full":      {"open", nil},
		"open, essential": {"open", func(e *email.Email) { e.TrackingMode = email.TrackingEssential }},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var mutate []func(*email.Email)
			if tc.mutate != nil {
				mutate = append(mutate, tc.mutate)
			}
			e := w.newEmail(t, mutate...)
			pub := &fakePublisher{}
			fail := true
			pub.publish = func(event.Event) error {
				if fail {
					return errors.New("webhooks queue unavailable")
				}
				return nil
			}
			p := &status.Processor{Store: w.store.Statuses, Publisher: pub, Logger: quiet()}
			if failed := handle(t, p, body(t, tc.fixture, e)); !slices.Equal(failed, []string{"m1"}) {
				t.Fatalf("batch item failures = %v, want [m1]: the event is not out yet", failed)
			}
			fail = false
			if failed := handle(t, p, body(t, tc.fixture, e)); len(failed) != 0 {
				t.Fatalf("retry failed: %v", failed)
			}
			s := w.snapshot(t, e)
			if len(s.Feed) != 1 {
				t.Fatalf("feed has %d items, want 1", len(s.Feed))
			}
			got := pub.published()
			if len(got) != 2 || got[1].ID != s.Feed[0].ID {
				t.Errorf("published %+v, want the failed attempt and the retry of %s", got, s.Feed[0].ID)
			}
		})
	}
}

// Budget: one SES event costs one read and at most 3 written items (the
// email, the feed item or dedupe record, the daily counter); a click adds
// its click record. The event that ends the email in SES also counts it in
// the month's usage: one more counter item, which a batch writes once
// however many of its emails end (TestBatchCountsOnceAWorkspace).
func TestWriteBudget(t *testing.T) {
	w := newWorld(t)
	cases := map[string]struct {
		max   int
		exact bool
	}{
		"delivery":          {4, true}, // the email, feed item, daily counter, usage
		"open":              {3, false},
		"send":              {0, true}, // no longer published by SES: nothing to do
		"reject":            {4, true},
		"bounce-transient":  {4, true},
		"click-unsubscribe": {3, false},
		"click":             {4, false},
		// The documented exception: a hard bounce and a complaint also put
		// the recipient on the do-not-send list, one more item.
		"bounce-permanent": {5, true},
		"complaint":        {4, true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := w.newEmail(t)
			b := body(t, name, e)
			w.rec.Reset()
			if failed := handle(t, w.p, b); len(failed) != 0 {
				t.Fatalf("failed: %v", failed)
			}
			n := w.rec.Writes()
			if n > tc.max || (tc.exact && n != tc.max) {
				t.Errorf("%d items written, want %s %d", n, map[bool]string{true: "exactly", false: "at most"}[tc.exact], tc.max)
			}
			if gets := w.rec.Calls("GetItem"); gets != 1 {
				t.Errorf("%d GetItem calls, want the one read of the email", gets)
			}
		})
	}
}

// Counters count once per email: two first opens of an email already
// clicked, planned from the same read (two consumers at once), must not
// both count "opened".
func TestConcurrentFirstOpensCountOnce(t *testing.T) {
	w := newWorld(t)
	e := w.newEmail(t, func(e *email.Email) { e.Status, e.ClickedAt = email.StatusClicked, ptr(at(10, 5, 0, 0)) })
	read, err := w.store.Emails.GetEmail(t.Context(), e.WorkspaceID, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	open1 := parsed(t, body(t, "open", e))
	open2 := parsed(t, edited(t, "open", func(m map[string]any) { obj(t, m, "open")["timestamp"] = "2026-11-22T10:11:00.000Z" }))
	open2.Mail = open1.Mail
	err1 := w.applyAndCount(t, *status.Plan(read, open1))
	err2 := w.applyAndCount(t, *status.Plan(read, open2))
	if err1 != nil {
		t.Fatalf("first open: %v", err1)
	}
	s := w.snapshot(t, e)
	if !s.Email.OpenedAt.Equal(at(10, 10, 0, 0)) {
		t.Errorf("opened_at = %s, want the first applied open", timeOf(s.Email.OpenedAt))
	}
	if n := s.Metrics["2026-11-22"]["transactional_live_opened"]; n != 1 {
		t.Errorf("the second concurrent first open applied (err %v) and counted opened %d times", err2, n)
	}
}

// applyAndCount applies c and, as the processor does, counts it only if
// it applied.
func (w *world) applyAndCount(t *testing.T, c status.Change) error {
	t.Helper()
	if err := w.store.Statuses.Apply(t.Context(), c); err != nil {
		return err
	}
	tally := status.Tally{}
	tally.Add(c)
	if err := w.store.Statuses.Count(t.Context(), tally); err != nil {
		t.Fatal(err)
	}
	return nil
}

// handleReceived hands bodies to the processor as SQS would on the
// receive-th delivery of each message.
func handleReceived(t *testing.T, p *status.Processor, receive int, bodies ...[]byte) []string {
	t.Helper()
	msgs := messages(bodies...)
	for i := range msgs {
		msgs[i].ReceiveCount = receive
	}
	return append([]string{}, p.Handle(t.Context(), msgs)...)
}

// An essential email's later opens are other SES events with the same
// effect: received for the first time, they find the one email.opened and
// publish nothing. A redelivered message (a retry after a failed fan-out)
// publishes again, exactly as recorded, even if the email moved on since.
func TestDuplicatesPublishOnlyOnRedelivery(t *testing.T) {
	w := newWorld(t)
	e := w.newEmail(t, func(e *email.Email) { e.TrackingMode = email.TrackingEssential })
	first := body(t, "open", e)
	if failed := handleReceived(t, w.p, 1, first); len(failed) != 0 {
		t.Fatal(failed)
	}
	later := edited(t, "open", func(m map[string]any) {
		m["mail"].(map[string]any)["tags"].(map[string]any)["email_id"] = []any{e.ID}
		m["mail"].(map[string]any)["tags"].(map[string]any)["workspace_id"] = []any{e.WorkspaceID}
		obj(t, m, "open")["timestamp"] = "2026-11-23T09:00:00.000Z"
	})
	if failed := handleReceived(t, w.p, 1, later, later); len(failed) != 0 {
		t.Fatal(failed)
	}
	if got := w.pub.publishedFor(e.ID); len(got) != 1 {
		t.Fatalf("published %d times after later opens, want once", len(got))
	}
	recorded, err := w.pub.publishedFor(e.ID)[0].Body()
	if err != nil {
		t.Fatal(err)
	}
	// The email moves on; the first open's message comes back.
	if failed := handleReceived(t, w.p, 1, body(t, "click", e)); len(failed) != 0 {
		t.Fatal(failed)
	}
	if failed := handleReceived(t, w.p, 2, first); len(failed) != 0 {
		t.Fatal(failed)
	}
	var republished []event.Event
	for _, p := range w.pub.publishedFor(e.ID) {
		if p.Type == event.Opened {
			republished = append(republished, p)
		}
	}
	if len(republished) != 2 {
		t.Fatalf("email.opened published %d times, want the first and the redelivery", len(republished))
	}
	again, err := republished[1].Body()
	if err != nil || string(again) != string(recorded) {
		t.Errorf("republished body\n%s\nwant as recorded\n%s", again, recorded)
	}
}
