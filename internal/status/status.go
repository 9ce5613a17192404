package status

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/queue/batch"
	"github.com/sesame-mail/sesame/internal/suppression"
)

// ClickRecord is one tracked click on a link of an email.
type ClickRecord struct {
	ID        string
	EmailID   string
	URL       string
	UserAgent string
	ClickedAt time.Time
}

// Change is everything one SES event writes, applied atomically: a
// duplicate SES event finds its dedupe record (the feed item, or a small
// record for events the feed does not show) and changes nothing.
type Change struct {
	WorkspaceID string
	EmailID     string
	DedupeID    string    // stable per SES event: evt_… for feed events
	OccurredAt  time.Time // when the event happened
	// Event is the feed item; nil for events the feed does not show.
	Event *event.Event
	// Email is the email after the event, written only if its status is
	// still ExpectStatus; nil when the event does not change the email.
	Email        *email.Email
	ExpectStatus email.Status
	// FirstTimes names the *_at fields this event sets first; the email
	// update requires them still unset, so two events planned from the same
	// read cannot both count a first open.
	FirstTimes  []string
	OptOutClick bool     // count an unsubscribe click on the email
	Metrics     []string // daily counters to add one to
	UsageMonth  string   // YYYY-MM of a live send to count, "" for none
	Click       *ClickRecord
	Suppress    string             // address to put on the do-not-send list
	Reason      suppression.Reason // why it is suppressed
	// Reputation names the reputation breaker's counts (bounced,
	// complained) to add to the hour a campaign or automation email was
	// sent in, SentAt: the breaker's rates are of the emails sent in its
	// window.
	Reputation []string
	SentAt     time.Time
}

// FirstClick reports whether c records the email's first tracked click:
// its email update (which requires clicked_at still unset) may carry the
// click instead of a click record, one write less.
func (c Change) FirstClick() bool {
	return c.Click != nil && c.Email != nil && slices.Contains(c.FirstTimes, "clicked_at")
}

// Errors of Store.Apply.
var (
	ErrDuplicate = errors.New("SES event already applied")
	ErrStale     = errors.New("email changed meanwhile")
)

// DuplicateError is ErrDuplicate with the feed item's stored body, so a
// republished event carries exactly what was recorded.
type DuplicateError struct {
	Body []byte
}

func (e *DuplicateError) Error() string        { return ErrDuplicate.Error() }
func (e *DuplicateError) Is(target error) bool { return target == ErrDuplicate }

// Store reads emails and applies changes.
type Store interface {
	// GetEmail reads strongly consistently: the email as last written.
	GetEmail(ctx context.Context, workspaceID, id string) (email.Email, error)
	// PeekEmail reads eventually consistently (half the price): it may
	// miss an email just written or return an older version of it.
	PeekEmail(ctx context.Context, workspaceID, id string) (email.Email, error)
	// Apply writes everything of c but its counts, which the caller adds
	// to a Tally when Apply succeeds (never for a duplicate) and writes
	// with Count.
	Apply(ctx context.Context, c Change) error
	// Count adds t's counts, one write per counter item.
	Count(ctx context.Context, t Tally) error
}

// Processor is the status function's logic.
type Processor struct {
	Store     Store
	Publisher event.Publisher
	Logger    *slog.Logger
}

func (p *Processor) logger() *slog.Logger {
	if p.Logger == nil {
		return slog.Default()
	}
	return p.Logger
}

// Handle consumes a batch of the ses-events queue. Messages that can never
// apply (malformed, unknown type, no tags, unknown email) are dropped with
// a log line; faults are reported as batch item failures and retried. The
// counts of the applied events are written once per counter item at the
// end of the batch, and their events published together (a
// SendMessageBatch carries up to 10 webhook jobs).
func (p *Processor) Handle(ctx context.Context, msgs []batch.Message) (retry []string) {
	tally := Tally{}
	var events []event.Event
	var publishers []string // the message of each event
	for _, m := range msgs {
		ev, err := Parse([]byte(m.Body))
		if err != nil {
			p.logger().WarnContext(ctx, "SES event dropped", slog.String("message_id", m.ID), slog.String("reason", err.Error()))
			continue
		}
		// A message the queue gives for the first time that finds its event
		// recorded is another SES event of the same effect (a later open of
		// an essential email): nothing to publish. A redelivered one may be
		// this consumer's own retry after a failed fan-out.
		out, err := p.apply(ctx, ev, m.ReceiveCount == 1)
		if err != nil {
			p.logger().ErrorContext(ctx, "SES event failed; will retry", slog.String("message_id", m.ID), slog.Any("err", err))
			retry = append(retry, m.ID)
			continue
		}
		if out.applied != nil {
			tally.Add(*out.applied)
		}
		if out.publish != nil {
			events = append(events, *out.publish)
			publishers = append(publishers, m.ID)
		}
	}
	p.count(ctx, tally)
	if len(events) > 0 && p.Publisher != nil {
		if err := p.Publisher.Publish(ctx, events...); err != nil {
			// Their redelivery finds each event recorded and publishes it
			// again; the dispatcher drops what was delivered.
			p.logger().ErrorContext(ctx, "SES events not published; will retry", slog.Int("events", len(events)), slog.Any("err", err))
			retry = append(retry, publishers...)
		}
	}
	return retry
}

// count writes the counts of applied events. They cannot be redone: a
// redelivered event finds its dedupe record and counts nothing, so a
// failure here (after the store's own retries) loses them, an undercount
// that is logged with what was lost.
func (p *Processor) count(ctx context.Context, t Tally) {
	if len(t) == 0 {
		return
	}
	if err := p.Store.Count(ctx, t); err != nil {
		p.logger().ErrorContext(ctx, "SES event counts lost", slog.Any("counts", t.lines()), slog.Any("err", err))
	}
}

// maxAttempts bounds the optimistic retries of one event against
// concurrent changes of the same email.
const maxAttempts = 5

// finish counts and publishes what one applied event owes (one event
// outside a batch: RecordFailure).
func (p *Processor) finish(ctx context.Context, out outcome) error {
	if out.applied != nil {
		t := Tally{}
		t.Add(*out.applied)
		if len(t) > 0 {
			if err := p.Store.Count(ctx, t); err != nil {
				return fmt.Errorf("count SES event: %w", err)
			}
		}
	}
	if out.publish == nil || p.Publisher == nil {
		return nil
	}
	return p.Publisher.Publish(ctx, *out.publish)
}

// outcome is what applying one event leaves to do: the change to count
// (nil for a duplicate or nothing applied) and the event to publish.
type outcome struct {
	applied *Change
	publish *event.Event
}

func (p *Processor) apply(ctx context.Context, ev SESEvent, firstDelivery bool) (outcome, error) {
	ws, id := ev.Tag("workspace_id"), ev.Tag("email_id")
	for attempt := range maxAttempts {
		e, err := p.read(ctx, ws, id, attempt == 0)
		if errors.Is(err, email.ErrNotFound) {
			// Unknown, or of another workspace: the tags name no email of ours.
			p.logger().WarnContext(ctx, "SES event for an unknown email dropped", slog.String("workspace_id", ws), slog.String("email_id", id), slog.String("type", ev.EventType))
			return outcome{}, nil
		}
		if err != nil {
			return outcome{}, err
		}
		c := Plan(e, ev)
		if c == nil {
			return outcome{}, nil
		}
		err = p.Store.Apply(ctx, *c)
		var dup *DuplicateError
		switch {
		case errors.As(err, &dup) && firstDelivery:
			return outcome{}, nil
		case err == nil, errors.Is(err, ErrDuplicate):
			// A duplicate is published again, as recorded: if the first try
			// died before its fan-out, this is the fan-out; deliveries are
			// deduplicated.
			var out outcome
			if err == nil {
				out.applied = c
			}
			if c.Event != nil {
				if dup != nil && len(dup.Body) > 0 {
					c.Event.Raw = dup.Body
				}
				c.Event.Again = err != nil
				out.publish = c.Event
			}
			return out, nil
		case errors.Is(err, ErrStale):
			continue
		default:
			return outcome{}, err
		}
	}
	return outcome{}, fmt.Errorf("email %s kept changing; retry later", id)
}

// read reads the email an event is about: the first try eventually
// consistently, which is safe because every email update Plan makes is
// conditional on the status and first-event times it read, so a stale
// read fails as ErrStale and the retry reads strongly; an update-free
// plan (the event changes nothing) only owes counts recorded on the email
// by this same event. A miss is read again strongly before the event is
// dropped: the send path may have written the email a moment ago.
func (p *Processor) read(ctx context.Context, ws, id string, first bool) (email.Email, error) {
	if first {
		e, err := p.Store.PeekEmail(ctx, ws, id)
		if !errors.Is(err, email.ErrNotFound) {
			return e, err
		}
	}
	return p.Store.GetEmail(ctx, ws, id)
}

// countReputation adds name to the breaker's counts of a campaign or
// automation email: transactional email is the workspace's own business,
// and no campaign pauses for it.
func (c *Change) countReputation(e email.Email, name string) {
	if e.Type == email.TypeCampaign || e.Type == email.TypeAutomation {
		c.Reputation, c.SentAt = append(c.Reputation, name), e.SentAt
	}
}

// Plan decides what an SES event changes for email e; nil when nothing.
func Plan(e email.Email, ev SESEvent) *Change {
	when, _ := ev.when()
	when = when.UTC()
	c := &Change{WorkspaceID: e.WorkspaceID, EmailID: e.ID, OccurredAt: when, ExpectStatus: e.Status}
	next := e
	metric := func(name string) string {
		return string(e.Type) + "_" + string(e.Environment) + "_" + name
	}
	var evType event.Type
	switch ev.EventType {
	case TypeSend:
		// The configuration sets no longer publish Send (issue 9): the
		// allowance counts an email when SES finishes with it (see
		// countsUsage). One left on the queue by an older stack changes
		// nothing.
		return nil
	case TypeDeliveryDelay:
		return nil // SES keeps trying; a final failure arrives as a Bounce
	case TypeDelivery:
		evType = event.Delivered
		if e.DeliveredAt == nil {
			next.DeliveredAt = &when
			c.Metrics = []string{metric("delivered")}
			if e.BouncedAt == nil {
				c.Metrics = append(c.Metrics, metric("sent"))
			}
		}
		next.Status = higher(e.Status, email.StatusDelivered)
	case TypeBounce:
		// SES publishes a Transient bounce only once it stops retrying.
		evType = event.Bounced
		if e.BouncedAt == nil {
			next.BouncedAt = &when
			c.Metrics = []string{metric("bounced")}
			c.countReputation(e, "bounced")
			if e.DeliveredAt == nil {
				c.Metrics = append(c.Metrics, metric("sent"))
			}
		}
		next.Status = higher(e.Status, email.StatusBounced)
		if ev.Bounce.BounceType == "Permanent" {
			c.Suppress, c.Reason = e.To, suppression.Bounced
		}
	case TypeComplaint:
		evType = event.Complained
		if e.ComplainedAt == nil {
			next.ComplainedAt = &when
			c.Metrics = []string{metric("complained")}
			c.countReputation(e, "complained")
		}
		next.Status = higher(e.Status, email.StatusComplained)
		c.Suppress, c.Reason = e.To, suppression.Complained
	case TypeReject, TypeRenderingFailure:
		evType = event.Failed
		if e.Status.Rank() < email.StatusFailed.Rank() {
			next.Status = email.StatusFailed
			next.Error = "rejected by SES: " + ev.Reject.reason()
			if ev.EventType == TypeRenderingFailure {
				next.Error = "rendering failed: " + ev.Failure.ErrorMessage
			}
			c.Metrics = []string{metric("failed")}
		}
	case TypeOpen:
		switch e.TrackingMode {
		case email.TrackingOff:
			return nil // not tracked: opened_at stays null
		case email.TrackingEssential:
			// One email.opened per message, with a fixed id: a later open
			// finds its feed item and only publishes it again, which the
			// webhook dispatcher drops as delivered (and which redoes a
			// publish that failed the first time).
			c.DedupeID = eventID(e, SESEvent{EventType: TypeOpen}, "essential")
			if e.OpenedAt == nil {
				day := time.Date(when.Year(), when.Month(), when.Day(), 0, 0, 0, 0, time.UTC)
				next.OpenedAt = &day
				next.Status = higher(e.Status, email.StatusOpened)
				c.Metrics = []string{metric("opened")}
				c.Email = &next
			} else if e.LastEventID == c.DedupeID {
				c.Metrics = e.LastEventMetrics // owed by an earlier try
			}
			c.OccurredAt = *next.OpenedAt
			c.Event = &event.Event{ID: c.DedupeID, WorkspaceID: e.WorkspaceID, Type: event.Opened, CreatedAt: *next.OpenedAt, Data: view(next)}
			c.FirstTimes = firstTimes(e, next)
			return c
		}
		evType = event.Opened
		if e.OpenedAt == nil {
			next.OpenedAt = &when
			c.Metrics = []string{metric("opened")}
		}
		next.Status = higher(e.Status, email.StatusOpened)
	case TypeClick:
		if e.TrackingMode == email.TrackingOff {
			return nil
		}
		c.DedupeID = eventID(e, ev, ev.Click.Link)
		if IsUnsubscribe(ev.Click) {
			// Opt-outs are counted, never listed, and are not engagement.
			c.OptOutClick = true
			return c
		}
		evType = event.Clicked
		if e.ClickedAt == nil {
			next.ClickedAt = &when
			c.Metrics = []string{metric("clicked")}
		}
		next.Status = higher(e.Status, email.StatusClicked)
		// The clicker's IP address is not kept: nothing needs it. A click
		// the email already keeps as its first (an earlier try of this
		// event, whose time and link make its id) is not recorded again.
		if f := e.FirstClick; f == nil || f.URL != ev.Click.Link || !f.ClickedAt.Equal(when) {
			c.Click = &ClickRecord{ID: c.DedupeID, EmailID: e.ID, URL: ev.Click.Link, UserAgent: ev.Click.UserAgent, ClickedAt: when}
		}
	default:
		return nil
	}
	if c.DedupeID == "" {
		c.DedupeID = eventID(e, ev, "")
	}
	if !sameEmail(e, next) {
		c.Email = &next
		c.FirstTimes = firstTimes(e, next)
	} else if e.LastEventID == c.DedupeID {
		// This very event changed the email on an earlier try that failed
		// before its counts: they are still owed.
		c.Metrics = e.LastEventMetrics
	}
	if e.Environment == apikey.Live && countsUsage(c.Metrics, metric) {
		// The month SES accepted the email in, as Send counted it.
		c.UsageMonth = ev.Mail.Timestamp.UTC().Format("2006-01")
	}
	c.Event = &event.Event{ID: c.DedupeID, WorkspaceID: e.WorkspaceID, Type: evType, CreatedAt: when, Data: view(next)}
	return c
}

// countsUsage reports whether a change with metrics is the end of the
// email in SES, which the monthly allowance counts once: its first
// Delivery or Bounce (the ones that count "sent") or the Reject or
// Rendering Failure that fails it. A DeliveryDelay is not an end (SES
// retries, and its outcome arrives as a Delivery or a Bounce), and a
// Complaint follows a Delivery. Derived from the metrics, which a retry
// after a fault finds owed on the email (LastEventMetrics), so the usage
// is owed with them and counted once.
func countsUsage(metrics []string, metric func(string) string) bool {
	return slices.Contains(metrics, metric("sent")) || slices.Contains(metrics, metric("failed"))
}

func (r *Reject) reason() string {
	if r == nil || r.Reason == "" {
		return "rejected"
	}
	return r.Reason
}

// IsUnsubscribe reports whether a click was on an unsubscribe link: tagged
// sesame_link=unsubscribe (the campaign footer does this), or a link whose
// path says unsubscribe.
func IsUnsubscribe(c *Click) bool {
	for _, v := range c.LinkTags["sesame_link"] {
		if v == "unsubscribe" {
			return true
		}
	}
	u, err := url.Parse(c.Link)
	return err == nil && strings.Contains(strings.ToLower(u.Path), "unsubscribe")
}

func higher(a, b email.Status) email.Status {
	if b.Rank() > a.Rank() {
		return b
	}
	return a
}

// firstTimes lists the time fields set in next but not in e.
func firstTimes(e, next email.Email) []string {
	var out []string
	for name, pair := range map[string][2]*time.Time{
		"delivered_at": {e.DeliveredAt, next.DeliveredAt}, "opened_at": {e.OpenedAt, next.OpenedAt},
		"clicked_at": {e.ClickedAt, next.ClickedAt}, "bounced_at": {e.BouncedAt, next.BouncedAt},
		"complained_at": {e.ComplainedAt, next.ComplainedAt},
	} {
		if pair[0] == nil && pair[1] != nil {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

func sameEmail(a, b email.Email) bool {
	eq := func(x, y *time.Time) bool { return (x == nil) == (y == nil) && (x == nil || x.Equal(*y)) }
	return a.Status == b.Status && a.Error == b.Error && eq(a.DeliveredAt, b.DeliveredAt) &&
		eq(a.OpenedAt, b.OpenedAt) && eq(a.ClickedAt, b.ClickedAt) && eq(a.BouncedAt, b.BouncedAt) &&
		eq(a.ComplainedAt, b.ComplainedAt)
}

func view(e email.Email) *email.View {
	v := e.View()
	return &v
}

// eventID derives a stable id from what identifies an SES event, so a
// redelivered event gets the same id (and the same feed item).
func eventID(e email.Email, ev SESEvent, extra string) string {
	when, _ := ev.when()
	sum := sha256.Sum256([]byte(strings.Join([]string{
		e.WorkspaceID, e.ID, ev.EventType, when.UTC().Format(time.RFC3339Nano), extra,
	}, "\x00")))
	return "evt_" + hex.EncodeToString(sum[:16])
}

// RecordFailure records an email that failed before SES took it (refused
// by SES at once, or not cleared by the review): the email.failed event in
// the feed and to webhooks, and the failed count. The email is already
// stored as failed. The event's id and time are fixed by the email (its
// send time), so recording it again finds its feed item and counts nothing.
func (p *Processor) RecordFailure(ctx context.Context, e email.Email) error {
	at := e.SentAt.UTC()
	id := eventID(e, SESEvent{EventType: "SendFailure"}, "sync")
	c := Change{
		WorkspaceID: e.WorkspaceID, EmailID: e.ID, DedupeID: id, OccurredAt: at,
		Metrics: []string{string(e.Type) + "_" + string(e.Environment) + "_failed"},
		Event:   &event.Event{ID: id, WorkspaceID: e.WorkspaceID, Type: event.Failed, CreatedAt: at, Data: view(e)},
	}
	out := outcome{applied: &c, publish: c.Event}
	err := p.Store.Apply(ctx, c)
	if errors.Is(err, ErrDuplicate) {
		out.applied = nil
		c.Event.Again = true
	} else if err != nil {
		return err
	}
	return p.finish(ctx, out)
}
