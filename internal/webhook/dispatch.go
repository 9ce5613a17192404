package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/queue/batch"
)

// DefaultTimeout bounds one delivery: connect, TLS, request and answer.
const DefaultTimeout = 10 * time.Second

// Poster makes one delivery POST and returns the answer's status code,
// without following a redirect (post.Client in production). An error means
// no answer came; fail.MessageOf says why in words safe to show the owner.
type Poster interface {
	Post(ctx context.Context, url string, header map[string]string, body []byte) (status int, err error)
}

// Postponer delays the next delivery of a received message: how a retry
// is scheduled on the queue's clock (queue.Visibility in production).
type Postponer = batch.Postponer

// faultCeiling bounds the wait after a store fault: the webhooks queue's
// own visibility timeout, which applied before.
const faultCeiling = time.Minute

// MaxRetryDelay caps one retry delay: SQS refuses a visibility timeout
// that ends more than 12 hours after the message was received, and a
// message is received a little before the dispatcher handles it.
const MaxRetryDelay = 12*time.Hour - 10*time.Minute

// DefaultSchedule is the wait after each failed attempt: 1m, 5m, 15m, 1h,
// 2h, 4h, 8h, then 12h six times (each at most MaxRetryDelay). Its 13
// delays give 14 attempts over about 3.6 days; the 14th failure is final.
func DefaultSchedule() []time.Duration {
	return []time.Duration{
		time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour, 2 * time.Hour, 4 * time.Hour, 8 * time.Hour,
		12 * time.Hour, 12 * time.Hour, 12 * time.Hour, 12 * time.Hour, 12 * time.Hour, 12 * time.Hour,
	}
}

// DefaultJitter lengthens a delay by a random 0–20%, so the retries of
// many events failing together spread out, and never shortens it, so the
// schedule lasts at least its nominal total (≥ 3 days by default).
func DefaultJitter(d time.Duration) time.Duration {
	if d <= 0 {
		return d
	}
	return d + time.Duration(rand.Int64N(int64(d)/5+1))
}

// DispatcherOptions configures a Dispatcher; zero values take defaults.
type DispatcherOptions struct {
	// Schedule is the wait after failed attempt 1, 2, …; a job gets
	// len(Schedule)+1 attempts. Default DefaultSchedule().
	Schedule []time.Duration
	// Timeout bounds one POST, whatever the Poster's own limits; default
	// DefaultTimeout (10 s).
	Timeout time.Duration
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Jitter turns a scheduled delay into the actual one; default
	// DefaultJitter. The result is capped at MaxRetryDelay.
	Jitter func(time.Duration) time.Duration
	// Concurrency bounds the deliveries of one batch in flight; default 10
	// (a whole SQS batch), so a batch takes about one Timeout at worst.
	Concurrency int
	Logger      *slog.Logger
}

// Dispatcher consumes the webhooks queue: one POST per job, retries
// scheduled by message visibility, every attempt recorded.
type Dispatcher struct {
	store       DispatchStore
	poster      Poster
	later       Postponer
	schedule    []time.Duration
	total       time.Duration // the schedule's nominal length
	timeout     time.Duration
	now         func() time.Time
	jitter      func(time.Duration) time.Duration
	concurrency int
	logger      *slog.Logger
}

// NewDispatcher returns a dispatcher that POSTs through poster and
// schedules retries with later.
func NewDispatcher(store DispatchStore, poster Poster, later Postponer, opts DispatcherOptions) *Dispatcher {
	d := &Dispatcher{
		store: store, poster: poster, later: later,
		schedule: opts.Schedule, timeout: opts.Timeout, now: opts.Now, jitter: opts.Jitter,
		concurrency: opts.Concurrency, logger: opts.Logger,
	}
	if d.schedule == nil {
		d.schedule = DefaultSchedule()
	}
	for _, step := range d.schedule {
		d.total += step
	}
	if d.timeout <= 0 {
		d.timeout = DefaultTimeout
	}
	if d.now == nil {
		d.now = time.Now
	}
	if d.jitter == nil {
		d.jitter = DefaultJitter
	}
	if d.concurrency <= 0 {
		d.concurrency = 10
	}
	if d.logger == nil {
		d.logger = slog.Default()
	}
	return d
}

// Handle consumes a batch. A message is reported failed only to be
// retried: after a failed POST whose retry was scheduled, or when the
// store could not be read or written. Everything else (delivered, dropped,
// finally failed) succeeds and leaves the queue. The batch's attempts are
// recorded together after its POSTs: one item per endpoint.
func (d *Dispatcher) Handle(ctx context.Context, msgs []batch.Message) (retry []string) {
	again := make([]bool, len(msgs))
	made := make([]*Attempt, len(msgs))
	eps := &batchEndpoints{store: d.store}
	sem := make(chan struct{}, d.concurrency)
	var wg sync.WaitGroup
	for i, m := range msgs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			again[i] = d.handle(ctx, m, eps, &made[i])
		})
	}
	wg.Wait()
	d.record(ctx, made)
	for i, m := range msgs {
		if again[i] {
			retry = append(retry, m.ID)
		}
	}
	return retry
}

// record writes the batch's attempts. A write that fails is logged, not
// retried: the POSTs happened, and bringing their jobs back would POST
// again (a later duplicate of a delivered event then finds no record of
// it and is delivered again, which at-least-once allows).
func (d *Dispatcher) record(ctx context.Context, made []*Attempt) {
	var attempts []Attempt
	for _, a := range made {
		if a != nil {
			attempts = append(attempts, *a)
		}
	}
	if err := d.store.RecordAttempts(ctx, attempts); err != nil {
		d.logger.ErrorContext(ctx, "webhook attempts not recorded", slog.Int("attempts", len(attempts)), slog.Any("err", err))
	}
}

// handle processes one message, sets *made to the attempt it made (if it
// POSTed), and reports whether the message must come back.
func (d *Dispatcher) handle(ctx context.Context, m batch.Message, eps *batchEndpoints, made **Attempt) bool {
	var job Job
	if err := json.Unmarshal([]byte(m.Body), &job); err != nil || job.WorkspaceID == "" || job.EndpointID == "" || job.EventID == "" {
		d.logger.ErrorContext(ctx, "malformed webhook job dropped", slog.String("message_id", m.ID))
		return false
	}
	log := d.logger.With(slog.String("workspace_id", job.WorkspaceID), slog.String("endpoint_id", job.EndpointID),
		slog.String("event_id", job.EventID))
	ep, err := eps.get(ctx, job.WorkspaceID, job.EndpointID)
	if errors.Is(err, ErrEndpointNotFound) {
		log.InfoContext(ctx, "webhook job dropped: endpoint removed")
		return false
	}
	if err != nil {
		log.ErrorContext(ctx, "webhook job: read endpoint", slog.Any("err", err))
		return d.afterFault(ctx, log, m)
	}
	if !ep.Enabled {
		log.InfoContext(ctx, "webhook job dropped: endpoint disabled")
		return false
	}
	if since, ok := earlierDelivery(job, m); ok {
		delivered, err := d.store.DeliveredSince(ctx, job.WorkspaceID, job.EndpointID, job.EmailID, job.EventID, since)
		if err != nil {
			log.ErrorContext(ctx, "webhook job: read attempts", slog.Any("err", err))
			return d.afterFault(ctx, log, m)
		}
		if delivered {
			log.InfoContext(ctx, "webhook job dropped: already delivered")
			return false
		}
	}
	n := attemptNumber(m)
	a := d.post(ctx, ep, job, n)
	// The attempt is also the delivery's record, written with the batch's.
	*made = &a
	if a.Succeeded() {
		// The POST happened: a bookkeeping failure is logged, not retried,
		// which would POST again.
		if successNews(ep, a.At) {
			if err := d.store.EndpointSucceeded(ctx, job.WorkspaceID, job.EndpointID, a.At); err != nil {
				log.ErrorContext(ctx, "webhook endpoint success not recorded", slog.Any("err", err))
			}
		}
		// Debug: the attempt log item already records every delivery, and
		// a line per delivery was a third of the fan-out's log bill.
		log.DebugContext(ctx, "webhook delivered", slog.Int("attempt", n), slog.Int("status", a.StatusCode))
		return false
	}
	if err := d.store.EndpointFailed(ctx, job.WorkspaceID, job.EndpointID); err != nil {
		log.ErrorContext(ctx, "webhook endpoint failure not counted", slog.Any("err", err))
	}
	// Receives that never POSTed (a store fault, a throttled or timed-out
	// invocation) also count in the receive number, so the schedule ends by
	// time, not by count: until its whole length has passed since the first
	// attempt, the event is tried again.
	elapsed := a.At.Sub(firstAttempt(m, a.At))
	if n <= len(d.schedule) || elapsed < d.total {
		delay := min(max(d.jitter(d.schedule[min(n, len(d.schedule))-1]), 0), MaxRetryDelay)
		log.WarnContext(ctx, "webhook attempt failed; retry scheduled", slog.Int("attempt", n),
			slog.Int("status", a.StatusCode), slog.String("error", a.Error), slog.Duration("retry_in", delay))
		d.delay(ctx, log, m, delay)
		return true
	}
	// The schedule is exhausted: the delivery failed for good (its
	// attempts in the log say so).
	disabled, err := d.store.DisableFailingEndpoint(ctx, job.WorkspaceID, job.EndpointID, AutoDisableReason, firstAttempt(m, a.At))
	if err != nil {
		log.ErrorContext(ctx, "webhook endpoint not disabled", slog.Any("err", err))
		return true
	}
	log.WarnContext(ctx, "webhook delivery failed after every attempt", slog.Int("attempt", n),
		slog.String("error", a.Error), slog.Bool("endpoint_disabled", disabled))
	return false
}

// clockSkew covers the difference between the clocks that stamp an
// event (SES's) and an attempt (the dispatcher's).
const clockSkew = 5 * time.Minute

// earlierDelivery says whether job m may have been delivered before, and
// since when: a job received again (an attempt that died after its POST)
// since its first receive, a republished event since the event. A first
// job of a first publication reads nothing: only a duplicate can find a
// delivery.
func earlierDelivery(job Job, m batch.Message) (time.Time, bool) {
	var since time.Time
	if m.ReceiveCount > 1 {
		since = firstAttempt(m, time.Time{})
	}
	if job.Again {
		var env struct {
			CreatedAt time.Time `json:"created_at"`
		}
		if err := json.Unmarshal([]byte(job.Payload), &env); err != nil || env.CreatedAt.IsZero() {
			return time.Time{}, true // the whole attempt log
		}
		since = env.CreatedAt
	} else if m.ReceiveCount <= 1 {
		return time.Time{}, false
	}
	if since.IsZero() {
		return since, true
	}
	return since.Add(-clockSkew), true
}

// SuccessRefresh is how stale a healthy endpoint's last success may be
// shown: its successes are written at most once a SuccessRefresh, not on
// every delivery (a write unit each, about 2 % of SES's price for an
// endpoint subscribed to every event).
const SuccessRefresh = time.Minute

// successNews reports whether a success at at says something the
// endpoint ep (as read for this job) does not: it follows a failure, which
// it resets (and which a failing delivery's auto-disable check relies on:
// every success after a failure is written), or ep's last success is
// unknown or older than SuccessRefresh.
func successNews(ep Endpoint, at time.Time) bool {
	return ep.ConsecutiveFailures > 0 || ep.LastSuccessAt == nil || at.Sub(*ep.LastSuccessAt) >= SuccessRefresh
}

// delay postpones the message's next delivery; on failure the queue's own
// visibility timeout applies.
func (d *Dispatcher) delay(ctx context.Context, log *slog.Logger, m batch.Message, delay time.Duration) {
	if err := d.later.Postpone(ctx, m.Receipt, delay); err != nil {
		log.ErrorContext(ctx, "webhook retry delay not set", slog.Any("err", err))
	}
}

// afterFault brings back a message whose job met a store fault after a
// short, growing wait (a pause of seconds costs seconds), and reports
// that it must come back.
func (d *Dispatcher) afterFault(ctx context.Context, log *slog.Logger, m batch.Message) bool {
	if err := (batch.Backoff{Later: d.later, Ceiling: faultCeiling}).Retry(ctx, m); err != nil {
		log.ErrorContext(ctx, "webhook retry delay not set", slog.Any("err", err))
	}
	return true
}

// post sends one attempt and describes its outcome.
func (d *Dispatcher) post(ctx context.Context, ep Endpoint, job Job, n int) Attempt {
	start := d.now()
	a := Attempt{
		WorkspaceID: job.WorkspaceID, EndpointID: job.EndpointID, EventID: job.EventID,
		EventType: job.EventType, EmailID: job.EmailID, Number: n, At: start.UTC(),
	}
	body := []byte(job.Payload)
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	header := map[string]string{
		"Content-Type":  "application/json",
		"User-Agent":    UserAgent,
		HeaderEventID:   job.EventID,
		HeaderEventType: string(job.EventType),
		HeaderSignature: Sign(start, body, ep.SigningSecrets(start)...),
	}
	clock := time.Now() // latency is measured on the monotonic clock
	status, err := d.poster.Post(ctx, ep.URL, header, body)
	a.LatencyMS = time.Since(clock).Milliseconds()
	switch {
	case err != nil:
		a.Error = fail.MessageOf(err)
	case status >= 300 && status <= 399:
		a.StatusCode = status
		a.Error = fmt.Sprintf("redirect not followed (HTTP %d)", status)
	case status < 200 || status > 299:
		a.StatusCode = status
		a.Error = fmt.Sprintf("HTTP %d", status)
	default:
		a.StatusCode = status
	}
	return a
}

// attemptNumber is the message's receive count: attempt n of a job is its
// n-th receive (a receive that failed before POSTing uses a number too).
func attemptNumber(m batch.Message) int {
	return max(m.ReceiveCount, 1)
}

// firstAttempt is when the job was first received, i.e. its first attempt;
// else when it was enqueued; else fallback.
func firstAttempt(m batch.Message, fallback time.Time) time.Time {
	for _, t := range []time.Time{m.FirstReceived, m.Sent} {
		if !t.IsZero() {
			return t
		}
	}
	return fallback
}

// batchEndpoints reads each endpoint a batch's jobs name once: the jobs
// are delivered at once, so one read serves them all, and an endpoint's
// item is read per batch, not per event (its partition would otherwise
// take a read per event of every email).
type batchEndpoints struct {
	store DispatchStore
	mu    sync.Mutex
	reads map[[2]string]*endpointRead
}

type endpointRead struct {
	once sync.Once
	ep   Endpoint
	err  error
}

func (b *batchEndpoints) get(ctx context.Context, workspaceID, id string) (Endpoint, error) {
	b.mu.Lock()
	if b.reads == nil {
		b.reads = map[[2]string]*endpointRead{}
	}
	r := b.reads[[2]string{workspaceID, id}]
	if r == nil {
		r = &endpointRead{}
		b.reads[[2]string{workspaceID, id}] = r
	}
	b.mu.Unlock()
	r.once.Do(func() { r.ep, r.err = b.store.GetEndpoint(ctx, workspaceID, id) })
	return r.ep, r.err
}
