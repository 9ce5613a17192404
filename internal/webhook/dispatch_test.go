package webhook_test

import (
	"errors"
	"net/http"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/queue/batch"
	"github.com/sesame-mail/sesame/internal/queue/queuetest"
	"github.com/sesame-mail/sesame/internal/webhook"
	"github.com/sesame-mail/sesame/internal/webhook/post"
)

// testSchedule has distinct whole-minute delays, so the visibility set for
// a retry names the attempt it follows.
var testSchedule = []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute}

// dispatcher POSTs through the production client, reaching the networks
// allowed, and schedules retries through the SQS adapter over sqsAPI.
func dispatcher(t *testing.T, f *fixture, sqsAPI *fakeSQS, opts webhook.DispatcherOptions, allowed ...netip.Prefix) *webhook.Dispatcher {
	t.Helper()
	if opts.Schedule == nil {
		opts.Schedule = testSchedule
	}
	if opts.Jitter == nil {
		opts.Jitter = identity
	}
	if opts.Timeout == 0 {
		opts.Timeout = 5 * time.Second
	}
	opts.Logger = queuetest.Logger(t)
	poster := post.NewClient(post.Options{Timeout: opts.Timeout, AllowedPrefixes: allowed})
	later := &queue.Visibility{SQS: sqsAPI, QueueURL: "https://sqs.test/000000000000/webhooks"}
	return webhook.NewDispatcher(f.store.Webhooks, poster, later, opts)
}

func handle(t *testing.T, d *webhook.Dispatcher, msgs ...batch.Message) []string {
	t.Helper()
	return d.Handle(t.Context(), msgs)
}

// A failed attempt is recorded, counted on the endpoint, and scheduled by
// the message's visibility; the message is reported failed so SQS keeps it.
func TestFailedAttempts(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		answer     func(http.ResponseWriter, *http.Request, int)
		addr       string // receiver address; default 127.0.0.2:0
		url        func(rc *receiver) string
		noPrefixes bool // the production guard: nothing allowed
		wantStatus int
		wantError  string
		wantConns  int64 // -1: do not check
	}{
		"server error": {
			answer: status(http.StatusInternalServerError), wantStatus: 500, wantError: "HTTP 500", wantConns: -1,
		},
		"client error": {
			answer: status(http.StatusGone), wantStatus: 410, wantError: "HTTP 410", wantConns: -1,
		},
		"redirect is not followed": {
			answer: func(w http.ResponseWriter, r *http.Request, _ int) {
				http.Redirect(w, r, "/elsewhere", http.StatusFound)
			},
			wantStatus: 302, wantError: "redirect not followed (HTTP 302)", wantConns: -1,
		},
		"hanging receiver times out": {
			answer: func(_ http.ResponseWriter, r *http.Request, _ int) {
				select {
				case <-r.Context().Done():
				case <-time.After(10 * time.Second):
				}
			},
			wantError: "endpoint timed out", wantConns: -1,
		},
		"loopback without allowed prefixes is blocked at dial": {
			addr:       "127.0.0.1:0",
			url:        func(rc *receiver) string { return "http://localhost:" + rc.port() + "/hook" },
			noPrefixes: true,
			answer:     status(http.StatusOK),
			wantError:  "endpoint is not publicly reachable",
			wantConns:  0,
		},
		"connection refused": {
			url:       func(*receiver) string { return "http://127.0.0.2:1/hook" },
			answer:    status(http.StatusOK),
			wantError: "endpoint refused the connection or is unreachable",
			wantConns: 0,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			addr := tc.addr
			if addr == "" {
				addr = "127.0.0.2:0"
			}
			rc := newReceiver(t, addr, tc.answer)
			url := rc.URL + "/hook"
			if tc.url != nil {
				url = tc.url(rc)
			}
			ep := f.endpoint(url)
			sqsAPI := &fakeSQS{}
			var allowed []netip.Prefix
			if !tc.noPrefixes {
				allowed = testPrefixes
			}
			d := dispatcher(t, f, sqsAPI, webhook.DispatcherOptions{Timeout: 300 * time.Millisecond}, allowed...)
			e := testEvent(f.ws, event.Delivered)
			rec := message(t, job(t, ep, e), 2, time.Now())

			if failed := handle(t, d, rec); !slices.Equal(failed, []string{rec.ID}) {
				t.Fatalf("batch item failures = %v, want the message (to be retried)", failed)
			}
			if got := sqsAPI.visibility(); !slices.Equal(got, []int32{300}) {
				t.Errorf("visibility set to %v s, want [300] (the delay after attempt 2)", got)
			}
			if c := sqsAPI.calls; len(c) == 1 && *c[0].ReceiptHandle != rec.Receipt {
				t.Errorf("visibility changed for receipt %q, want %q", *c[0].ReceiptHandle, rec.Receipt)
			}
			as := f.attempts(ep.ID)
			if len(as) != 1 {
				t.Fatalf("attempts = %+v, want 1", as)
			}
			a := as[0]
			if a.Number != 2 || a.StatusCode != tc.wantStatus || a.Error != tc.wantError || a.EventID != e.ID || a.EventType != event.Delivered ||
				a.EmailID != e.Data.ID {
				t.Errorf("attempt = %+v, want number 2, status %d, error %q, the event's email", a, tc.wantStatus, tc.wantError)
			}
			if tc.wantConns >= 0 && rc.conns.Load() != tc.wantConns {
				t.Errorf("receiver accepted %d connections, want %d", rc.conns.Load(), tc.wantConns)
			}
			for _, r := range rc.requests() {
				if r.path != "/hook" {
					t.Errorf("a request went to %q: a redirect was followed", r.path)
				}
			}
			after := f.get(ep.ID)
			if !after.Enabled || after.ConsecutiveFailures != 1 {
				t.Errorf("endpoint = %+v, want enabled with 1 failure", after)
			}
			if f.isDelivered(ep.ID, e) {
				t.Error("a failed attempt is found delivered")
			}
		})
	}
}

// Jobs that must not POST are dropped: they succeed and leave the queue.
func TestDroppedJobs(t *testing.T) {
	t.Parallel()
	cases := map[string]func(t *testing.T, f *fixture, ep webhook.Endpoint, e event.Event) batch.Message{
		"already delivered, published again": func(t *testing.T, f *fixture, ep webhook.Endpoint, e event.Event) batch.Message {
			f.delivered(ep, e, time.Now())
			j := job(t, ep, e)
			j.Again = true
			return message(t, j, 1, time.Now())
		},
		"already delivered, received again": func(t *testing.T, f *fixture, ep webhook.Endpoint, e event.Event) batch.Message {
			first := time.Now().Add(-time.Minute)
			f.delivered(ep, e, first.Add(time.Second))
			return message(t, job(t, ep, e), 2, first)
		},
		"disabled endpoint": func(t *testing.T, f *fixture, ep webhook.Endpoint, e event.Event) batch.Message {
			if _, err := f.store.Webhooks.SetEndpointEnabled(t.Context(), f.ws, ep.ID, false, "test"); err != nil {
				t.Fatal(err)
			}
			return message(t, job(t, ep, e), 1, time.Now())
		},
		"removed endpoint": func(t *testing.T, f *fixture, ep webhook.Endpoint, e event.Event) batch.Message {
			if err := f.store.Webhooks.DeleteEndpoint(t.Context(), f.ws, ep.ID); err != nil {
				t.Fatal(err)
			}
			return message(t, job(t, ep, e), 1, time.Now())
		},
		"endpoint of another workspace": func(t *testing.T, f *fixture, ep webhook.Endpoint, e event.Event) batch.Message {
			j := job(t, ep, e)
			j.WorkspaceID = uuid.NewString()
			return message(t, j, 1, time.Now())
		},
		"malformed job": func(t *testing.T, f *fixture, ep webhook.Endpoint, e event.Event) batch.Message {
			m := message(t, job(t, ep, e), 1, time.Now())
			m.Body = `{"workspace_id":`
			return m
		},
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			rc := newReceiver(t, "127.0.0.2:0", status(http.StatusOK))
			ep := f.endpoint(rc.URL)
			e := testEvent(f.ws, event.Opened)
			rec := setup(t, f, ep, e)
			before := len(f.attempts(ep.ID))
			sqsAPI := &fakeSQS{}
			d := dispatcher(t, f, sqsAPI, webhook.DispatcherOptions{}, testPrefixes...)
			if failed := handle(t, d, rec); len(failed) != 0 {
				t.Errorf("batch item failures = %v, want the job dropped", failed)
			}
			if n := len(rc.requests()); n != 0 {
				t.Errorf("receiver got %d requests, want none", n)
			}
			if v := sqsAPI.visibility(); len(v) != 0 {
				t.Errorf("visibility changed: %v", v)
			}
			if as := f.attempts(ep.ID); len(as) != before {
				t.Errorf("attempts recorded: %+v", as[:len(as)-before])
			}
		})
	}
}

// The last attempt of the schedule decides: the delivery is recorded
// failed and the endpoint disabled, unless it succeeded after this event's
// first attempt.
func TestFinalAttempt(t *testing.T) {
	t.Parallel()
	now := time.Now().UTC().Truncate(time.Millisecond)
	first := now.Add(-80 * time.Hour)
	cases := map[string]struct {
		lastSuccess  *time.Time
		wantDisabled bool
	}{
		"never succeeded":                        {wantDisabled: true},
		"succeeded before the first attempt":     {lastSuccess: new(first.Add(-time.Hour)), wantDisabled: true},
		"succeeded after the first attempt":      {lastSuccess: new(first.Add(30 * time.Hour)), wantDisabled: false},
		"succeeded in the first attempt's milli": {lastSuccess: new(first), wantDisabled: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			rc := newReceiver(t, "127.0.0.2:0", status(http.StatusBadGateway))
			ep := f.endpoint(rc.URL)
			if tc.lastSuccess != nil {
				if err := f.store.Webhooks.EndpointSucceeded(t.Context(), f.ws, ep.ID, *tc.lastSuccess); err != nil {
					t.Fatal(err)
				}
			}
			sqsAPI := &fakeSQS{}
			d := dispatcher(t, f, sqsAPI, webhook.DispatcherOptions{Now: dynamotest.NewClock(now).Now}, testPrefixes...)
			e := testEvent(f.ws, event.Complained)
			rec := message(t, job(t, ep, e), len(testSchedule)+1, first)
			if failed := handle(t, d, rec); len(failed) != 0 {
				t.Errorf("batch item failures = %v, want the message deleted after the last attempt", failed)
			}
			if v := sqsAPI.visibility(); len(v) != 0 {
				t.Errorf("visibility changed after the last attempt: %v", v)
			}
			if n := len(rc.requests()); n != 1 {
				t.Errorf("receiver got %d requests, want the last attempt", n)
			}
			after := f.get(ep.ID)
			if after.Enabled == tc.wantDisabled {
				t.Errorf("endpoint enabled = %v, want disabled %v", after.Enabled, tc.wantDisabled)
			}
			if tc.wantDisabled && after.DisabledReason != webhook.AutoDisableReason {
				t.Errorf("disabled reason = %q", after.DisabledReason)
			}
		})
	}
}

// The retry delay is the schedule's entry for the attempt, through the
// jitter, capped below SQS's 12-hour visibility limit.
func TestRetryDelay(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rc := newReceiver(t, "127.0.0.2:0", status(http.StatusServiceUnavailable))
	ep := f.endpoint(rc.URL)
	cases := map[string]struct {
		attempt int
		jitter  func(time.Duration) time.Duration
		want    int32
	}{
		"first attempt":             {attempt: 1, jitter: identity, want: 60},
		"third attempt":             {attempt: 3, jitter: identity, want: 900},
		"jitter lengthens":          {attempt: 2, jitter: func(d time.Duration) time.Duration { return d * 6 / 5 }, want: 360},
		"capped below SQS's limit":  {attempt: 3, jitter: func(time.Duration) time.Duration { return 13 * time.Hour }, want: int32(webhook.MaxRetryDelay / time.Second)},
		"negative jitter is zero":   {attempt: 1, jitter: func(time.Duration) time.Duration { return -time.Minute }, want: 0},
		"sub-second rounds to zero": {attempt: 1, jitter: func(time.Duration) time.Duration { return 400 * time.Millisecond }, want: 0},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			sqsAPI := &fakeSQS{}
			d := dispatcher(t, f, sqsAPI, webhook.DispatcherOptions{Jitter: tc.jitter}, testPrefixes...)
			rec := message(t, job(t, ep, testEvent(f.ws, event.Clicked)), tc.attempt, time.Now())
			if failed := handle(t, d, rec); len(failed) != 1 {
				t.Fatalf("batch item failures = %v, want the message", failed)
			}
			if got := sqsAPI.visibility(); !slices.Equal(got, []int32{tc.want}) {
				t.Errorf("visibility = %v s, want [%d]", got, tc.want)
			}
		})
	}

	// A visibility change that fails still leaves the message to SQS (it
	// comes back after the queue's own visibility timeout).
	sqsAPI := &fakeSQS{err: errors.New("receipt handle expired")}
	d := dispatcher(t, f, sqsAPI, webhook.DispatcherOptions{}, testPrefixes...)
	rec := message(t, job(t, ep, testEvent(f.ws, event.Clicked)), 1, time.Now())
	if failed := handle(t, d, rec); len(failed) != 1 {
		t.Errorf("batch item failures = %v, want the message", failed)
	}
}

// A batch is delivered concurrently and answered per message.
func TestHandleBatch(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ok := newReceiver(t, "127.0.0.2:0", status(http.StatusOK))
	bad := newReceiver(t, "127.0.0.2:0", status(http.StatusInternalServerError))
	okEP, badEP := f.endpoint(ok.URL), f.endpoint(bad.URL)
	var recs []batch.Message
	var wantFailed []string
	for i := range 10 {
		ep := okEP
		if i%3 == 0 {
			ep = badEP
		}
		rec := message(t, job(t, ep, testEvent(f.ws, event.Delivered)), 1, time.Now())
		recs = append(recs, rec)
		if ep.ID == badEP.ID {
			wantFailed = append(wantFailed, rec.ID)
		}
	}
	d := dispatcher(t, f, &fakeSQS{}, webhook.DispatcherOptions{}, testPrefixes...)
	if failed := handle(t, d, recs...); !slices.Equal(failed, wantFailed) {
		t.Errorf("batch item failures = %v, want %v", failed, wantFailed)
	}
	if n := len(ok.requests()); n != 6 {
		t.Errorf("good receiver got %d requests, want 6", n)
	}
	if n := f.get(badEP.ID).ConsecutiveFailures; n != 4 {
		t.Errorf("failing endpoint counts %d failures, want 4", n)
	}
}

func TestDefaultSchedule(t *testing.T) {
	s := webhook.DefaultSchedule()
	if len(s) != 13 {
		t.Fatalf("default schedule has %d delays (%d attempts), want 13 (14 attempts)", len(s), len(s)+1)
	}
	var least, most time.Duration
	for i, d := range s {
		if i > 0 && d < s[i-1] {
			t.Errorf("delay %d (%v) shorter than the one before", i, d)
		}
		least += min(d, webhook.MaxRetryDelay)
		most += min(d*6/5, webhook.MaxRetryDelay)
	}
	if least < 72*time.Hour {
		t.Errorf("retries can end after %v, want at least 3 days", least)
	}
	if most > 92*time.Hour {
		t.Errorf("retries can last %v, want well within SQS's default 4-day retention", most)
	}
	s[0] = 0
	if webhook.DefaultSchedule()[0] != time.Minute {
		t.Error("DefaultSchedule returns a shared slice")
	}
}

func TestDefaultJitter(t *testing.T) {
	for _, d := range []time.Duration{0, time.Nanosecond, time.Minute, 12 * time.Hour} {
		for range 200 {
			if j := webhook.DefaultJitter(d); j < d || j > d+d/5 {
				t.Fatalf("DefaultJitter(%v) = %v, want within [d, 1.2d]", d, j)
			}
		}
	}
}

// Receives that never POSTed (store faults, throttled invocations) count
// in the receive number too: a message past the schedule's count but not
// its length is retried, and the endpoint stays enabled.
func TestScheduleEndsByTimeNotByCount(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rc := newReceiver(t, "127.0.0.2:0", status(http.StatusServiceUnavailable))
	ep := f.endpoint(rc.URL + "/hook")
	sqsAPI := &fakeSQS{}
	d := dispatcher(t, f, sqsAPI, webhook.DispatcherOptions{}, testPrefixes...)
	e := testEvent(f.ws, event.Delivered)
	// Receive 14 of a schedule of 3, first received 10 minutes ago: the
	// schedule's 21 minutes have not passed.
	rec := message(t, job(t, ep, e), 14, time.Now().Add(-10*time.Minute))
	if failed := handle(t, d, rec); !slices.Equal(failed, []string{rec.ID}) {
		t.Fatalf("batch item failures = %v, want the message retried", failed)
	}
	if got := sqsAPI.visibility(); !slices.Equal(got, []int32{900}) {
		t.Errorf("visibility = %v, want the schedule's last step (900 s)", got)
	}
	got, err := f.store.Webhooks.GetEndpoint(t.Context(), f.ws, ep.ID)
	if err != nil || !got.Enabled {
		t.Errorf("endpoint = %+v (err %v), want still enabled", got, err)
	}
	// Once the schedule's length has passed, the next failure is the last.
	late := message(t, job(t, ep, e), 15, time.Now().Add(-30*time.Minute))
	if failed := handle(t, d, late); len(failed) != 0 {
		t.Fatalf("batch item failures = %v, want the message dropped after its last attempt", failed)
	}
	if got, err := f.store.Webhooks.GetEndpoint(t.Context(), f.ws, ep.ID); err != nil || got.Enabled {
		t.Errorf("endpoint = %+v (err %v), want disabled after every attempt failed", got, err)
	}
}

// A success is written to the endpoint when it says something new: after
// a failure (the count resets), or when the last success shown is unknown
// or a minute old; a healthy endpoint's every delivery is not a write.
func TestSuccessWrittenWhenNews(t *testing.T) {
	t.Parallel()
	now := time.Now().UTC().Truncate(time.Millisecond)
	cases := map[string]struct {
		lastSuccess *time.Time
		failedSince bool
		wantWritten bool
	}{
		"never succeeded":                 {wantWritten: true},
		"succeeded a second ago":          {lastSuccess: new(now.Add(-time.Second)), wantWritten: false},
		"succeeded a minute ago":          {lastSuccess: new(now.Add(-time.Minute)), wantWritten: true},
		"failed since its recent success": {lastSuccess: new(now.Add(-time.Second)), failedSince: true, wantWritten: true},
		"failed, never succeeded":         {failedSince: true, wantWritten: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			rc := newReceiver(t, "127.0.0.2:0", status(http.StatusNoContent))
			ep := f.endpoint(rc.URL)
			ctx := t.Context()
			if tc.lastSuccess != nil {
				if err := f.store.Webhooks.EndpointSucceeded(ctx, f.ws, ep.ID, *tc.lastSuccess); err != nil {
					t.Fatal(err)
				}
			}
			if tc.failedSince {
				if err := f.store.Webhooks.EndpointFailed(ctx, f.ws, ep.ID); err != nil {
					t.Fatal(err)
				}
			}
			d := dispatcher(t, f, &fakeSQS{}, webhook.DispatcherOptions{Now: dynamotest.NewClock(now).Now}, testPrefixes...)
			if failed := handle(t, d, message(t, job(t, ep, testEvent(f.ws, event.Delivered)), 1, now)); len(failed) != 0 {
				t.Fatalf("batch item failures = %v", failed)
			}
			after := f.get(ep.ID)
			written := after.LastSuccessAt != nil && after.LastSuccessAt.Equal(now)
			if written != tc.wantWritten {
				t.Errorf("last success %v, written = %v, want %v", after.LastSuccessAt, written, tc.wantWritten)
			}
			if tc.wantWritten && after.ConsecutiveFailures != 0 {
				t.Errorf("consecutive failures %d after a written success, want 0", after.ConsecutiveFailures)
			}
		})
	}
}

// A job that meets a store fault comes back after a short wait growing
// with its receives (seconds, not the queue's minute), and nothing is
// POSTed.
func TestStoreFaultRetriesWithinSeconds(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rcv := newReceiver(t, "127.0.0.2:0", status(http.StatusOK))
	ep := f.endpoint(rcv.URL)
	f.rec.Fail = func(op string) error {
		if op == "GetItem" {
			return errors.New("store paused")
		}
		return nil
	}
	sqsAPI := &fakeSQS{}
	d := dispatcher(t, f, sqsAPI, webhook.DispatcherOptions{}, testPrefixes...)
	for _, receive := range []int{1, 4} {
		msg := message(t, job(t, ep, testEvent(f.ws, event.Delivered)), receive, time.Now())
		if failed := handle(t, d, msg); !slices.Equal(failed, []string{msg.ID}) {
			t.Fatalf("receive %d: failures %v, want the job back", receive, failed)
		}
	}
	got := sqsAPI.visibility()
	if len(got) != 2 || got[0] < 1 || got[0] > 2 || got[1] < 8 || got[1] > 16 {
		t.Errorf("visibility set %v, want 1-2 s after the first receive and 8-16 s after the fourth", got)
	}
	if n := len(rcv.requests()); n != 0 {
		t.Errorf("%d POSTs while the store was down", n)
	}
}
