package sending

import (
	"encoding/json"
	"fmt"
	"html"
	"net/mail"
	"slices"
	"strings"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/review"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// inFlight is how long a claimed key can be in use by its request (the
// send function's 28 s timeout, with margin); a twin asking meanwhile is
// told to retry.
const inFlight = 60 * time.Second

// PlanInput is everything one send is decided on: Plan reads nothing else,
// so every rule can be tested without a store, a queue or a clock.
type PlanInput struct {
	Principal   apikey.Principal
	Request     Request // validated
	RequestHash string  // of the body; "" without an Idempotency-Key
	Context     Context // what the store read for this send
	EmailID     string  // the id a new email gets
	Now         time.Time
}

// Action is what Send does with a decided email.
type Action uint8

const (
	// ActionReplay answers with an Idempotency-Key's stored answer: the
	// send was done (or refused) before, nothing is stored or sent.
	ActionReplay Action = iota + 1
	// ActionRecord only stores the email (a suppressed recipient).
	ActionRecord
	// ActionFail stores the email failed and reports the failure to the
	// feed, webhooks and metrics.
	ActionFail
	// ActionCapture stores a test-mode email and logs it, undelivered.
	ActionCapture
	// ActionHold stores the email held and queues its review.
	ActionHold
	// ActionDeliver stores the email and hands it to SES.
	ActionDeliver
	// ActionSchedule stores the email scheduled, with its due time's
	// wake-up; it is decided as a send when due (Reviewer).
	ActionSchedule
)

var actionNames = [...]string{
	ActionReplay: "replay", ActionRecord: "record", ActionFail: "fail",
	ActionCapture: "capture", ActionHold: "hold", ActionDeliver: "deliver", ActionSchedule: "schedule",
}

func (a Action) String() string {
	if int(a) < len(actionNames) && actionNames[a] != "" {
		return actionNames[a]
	}
	return fmt.Sprintf("action(%d)", a)
}

// Decision is what a send does. For ActionReplay only Answer is set.
type Decision struct {
	Action Action
	// Answer is the API's answer; Send adds the warnings of the built
	// message.
	Answer Outcome
	// Email is the email to store, with its status and tracking mode.
	Email   email.Email
	From    mail.Address
	ReplyTo []string
	// NewTemplate records the held email's template as pending review: it
	// was never seen before.
	NewTemplate bool
}

// Plan decides one send, rule by rule in this order: an Idempotency-Key
// already used answers as it did (or 409) before anything else is checked;
// then the sender, the tracking mode and the monthly allowance, each of
// which can refuse the send; then the email's status. Refusals are
// *fail.Error; a stored answer that cannot be read is an internal error.
func Plan(in PlanInput) (Decision, error) {
	now := in.Now.UTC()
	c, req := in.Context, in.Request
	if c.Idempotency != nil {
		out, err := replay(*c.Idempotency, in.RequestHash, now)
		if err != nil {
			return Decision{}, err
		}
		return Decision{Action: ActionReplay, Answer: out}, nil
	}
	from, replyTo, err := resolveSender(c, req)
	if err != nil {
		return Decision{}, err
	}
	mode, err := resolveTracking(c.Workspace, req.Tracking)
	if err != nil {
		return Decision{}, err
	}
	if in.Principal.Environment == apikey.Live {
		if err := checkAllowance(c.Workspace.MonthlyAllowance, c.MonthlySent, now); err != nil {
			return Decision{}, err
		}
	}
	due, err := checkSchedule(req.ScheduledAt, now)
	if err != nil {
		return Decision{}, err
	}
	d := Decision{
		Email: email.Email{
			ID: in.EmailID, WorkspaceID: in.Principal.WorkspaceID, To: req.To, Subject: req.Subject,
			Type: email.TypeTransactional, Environment: in.Principal.Environment, SentAt: now, TrackingMode: mode,
			Tags: req.Tags, Connection: connectionOf(in.Principal),
		},
		From: from, ReplyTo: replyTo,
	}
	if due != nil {
		d.Email.ScheduledAt = due
		d.Email.Status, d.Action = email.StatusScheduled, ActionSchedule
		d.Answer = Outcome{StatusCode: statusOK, Body: Response{
			Success: true, ID: d.Email.ID, Status: email.StatusScheduled,
			Message: "scheduled for " + due.Format(time.RFC3339) + "; POST /api/v1/emails/" + d.Email.ID + "/cancel cancels it until then",
		}}
		return d, nil
	}
	decideStatus(&d, in)
	return d, nil
}

// connectionOf is the connection a send by p records: nil for a key.
func connectionOf(p apikey.Principal) *email.Connection {
	if p.GrantID == "" {
		return nil
	}
	return &email.Connection{GrantID: p.GrantID, ClientID: p.ClientID, ClientName: p.ClientName}
}

// MaxScheduleAhead is how far ahead scheduled_at may be.
const MaxScheduleAhead = 30 * 24 * time.Hour

// checkSchedule reads scheduled_at (validated RFC 3339): nil when absent;
// refused unless after now and at most MaxScheduleAhead ahead.
func checkSchedule(scheduledAt string, now time.Time) (*time.Time, error) {
	if scheduledAt == "" {
		return nil, nil
	}
	at, err := time.Parse(time.RFC3339, scheduledAt)
	if err != nil {
		return nil, fail.Invalid("scheduled_at", "scheduled_at must be an RFC 3339 time with its offset")
	}
	at = at.UTC()
	switch {
	case !at.After(now):
		return nil, fail.Invalid("scheduled_at", "scheduled_at must be in the future (it is %s, now is %s); leave it out to send at once",
			at.Format(time.RFC3339), now.Format(time.RFC3339))
	case at.Sub(now) > MaxScheduleAhead:
		return nil, fail.Invalid("scheduled_at", "scheduled_at must be at most 30 days ahead")
	}
	return &at, nil
}

// decideStatus sets the email's status, the action and the answer. A
// suppressed recipient comes first (nothing goes to them, not even a
// capture), test mode next (captured, so no reputation to protect and no
// hold), then the template's review and the email's own check.
func decideStatus(d *Decision, in PlanInput) {
	c, req := in.Context, in.Request
	e := &d.Email
	switch {
	case c.Suppressed:
		e.Status, d.Action = email.StatusSuppressed, ActionRecord
	case in.Principal.Environment == apikey.Test:
		e.Status, d.Action = email.StatusSent, ActionCapture
	case c.Template != nil && c.Template.State == TemplateDenied:
		e.Status, d.Action = email.StatusFailed, ActionFail
		e.Error = "not sent: this template did not pass the security review"
	case c.Template == nil || c.Template.State == TemplatePending:
		e.Status, d.Action = email.StatusHeld, ActionHold
		d.NewTemplate = c.Template == nil
	case !checkEmail(req, c.Workspace).Cleared:
		// The fingerprint ignores links and text, so a cleared layout can
		// still carry a foreign brand or a deceptive link: such an email
		// waits for a review of its own.
		e.Status, d.Action = email.StatusHeld, ActionHold
	default:
		e.Status, d.Action = email.StatusSent, ActionDeliver
	}
	body := Response{Success: true, ID: e.ID, Status: e.Status}
	code := statusOK
	switch d.Action {
	case ActionRecord:
		body.Success = false
		body.Message = "the recipient is on the workspace's do-not-send list; the email was recorded and not sent"
	case ActionCapture:
		body.Message = "captured in test mode; not delivered"
	case ActionFail:
		reason := e.Error
		body.Success, body.Error, body.Message = false, &reason, reason
	case ActionHold:
		code = statusAccepted
		body.Message = "held for a quick security review; it keeps this id and is sent once cleared"
	case ActionDeliver:
		body.Message = "accepted for delivery"
	}
	d.Answer = Outcome{StatusCode: code, Body: body}
}

// checkEmail is the per-email part of the security review (brands, links,
// markup), for an email whose template is cleared: the same at send time
// and when a held email is reviewed.
func checkEmail(req Request, ws workspace.Workspace) review.Verdict {
	body := req.HTML
	if req.Text != "" {
		// The caller's text part reaches readers too: its brands count.
		body += "<pre>" + html.EscapeString(req.Text) + "</pre>"
	}
	return review.Check(req.Subject, body, ws.OwnBrands())
}

// replay answers a request whose Idempotency-Key is taken: the first
// answer for the same body, 409 for another body, and "retry shortly"
// while the first request is still running.
func replay(rec IdempotencyRecord, reqHash string, now time.Time) (Outcome, error) {
	if err := CheckReplay(rec, reqHash, now); err != nil {
		return Outcome{}, err
	}
	var body Response
	if err := json.Unmarshal(rec.Body, &body); err != nil {
		return Outcome{}, fmt.Errorf("stored idempotent response: %w", err)
	}
	return Outcome{StatusCode: rec.StatusCode, Body: body, Replayed: true}, nil
}

// CheckReplay refuses to replay the stored answer of an Idempotency-Key
// to a request whose body hash is reqHash: 409 for another body, and
// "retry shortly" while the first request is still running. Every route
// that takes the header replays by this rule.
func CheckReplay(rec IdempotencyRecord, reqHash string, now time.Time) error {
	if rec.RequestHash != reqHash {
		return fail.Errorf(fail.KindConflict, fail.IdempotencyConflict, "Idempotency-Key", "this Idempotency-Key was used with a different request body in the last 24 hours; use a new key")
	}
	if rec.Pending && now.Sub(rec.CreatedAt) < inFlight {
		e := fail.Errorf(fail.KindConflict, fail.IdempotencyInProgress, "Idempotency-Key", "a request with this Idempotency-Key is still being processed; retry shortly")
		e.RetryAfter = time.Second
		return e
	}
	return nil
}

// DefaultSender is the sender of a send that names none: the
// workspace's default, refused as /send refuses it (none set, or not on
// a verified domain).
func DefaultSender(ws workspace.Workspace) (identity.Sender, error) {
	if _, _, err := resolveSender(Context{Workspace: ws}, Request{}); err != nil {
		return identity.Sender{}, err
	}
	return *ws.DefaultSender, nil
}

// CheckSender refuses a stored sender a send names by sender_id as /send
// refuses it: not on a verified domain of ws, or an address the
// message reading no longer accepts.
func CheckSender(ws workspace.Workspace, sender identity.Sender) error {
	_, _, err := resolveSender(Context{Workspace: ws, Sender: &sender}, Request{SenderID: sender.ID})
	return err
}

// resolveSender picks the From: sender_id, else from, else the workspace
// default; it must be on a verified domain of the workspace. reply_to
// given in the request wins over the sender's own.
func resolveSender(c Context, req Request) (mail.Address, []string, error) {
	var (
		sender *identity.Sender
		param  string
	)
	switch {
	case req.SenderID != "":
		if c.Sender == nil {
			return mail.Address{}, nil, fail.Errorf(fail.KindNotFound, fail.SenderNotFound, "sender_id", "no sender with this id in the workspace")
		}
		sender, param = c.Sender, "sender_id"
	case req.From != "":
		a, err := compose.ParseAddress(req.From)
		if err != nil {
			return mail.Address{}, nil, fail.Invalid("from", "from must be one email address")
		}
		sender, param = &identity.Sender{Name: a.Name, Email: a.Address}, "from"
	case c.Workspace.DefaultSender != nil:
		sender = c.Workspace.DefaultSender // no field of the request to name
	default:
		return mail.Address{}, nil, fail.Errorf(fail.KindMissing, "", "from",
			"from is required: this workspace has no default sender; give from or sender_id, or set a default with `sesame senders add --default`")
	}
	if verified := c.Workspace.VerifiedDomains; !slices.Contains(verified, identity.DomainOf(sender.Email)) {
		domains := "it has none yet: add one with `sesame domains add`"
		if len(verified) > 0 {
			domains = "its verified domains: " + strings.Join(verified, ", ")
		}
		return mail.Address{}, nil, fail.Errorf(fail.KindForbidden, fail.SenderNotVerified, param, "%s is not on a verified domain of this workspace (%s)", sender.Email, domains)
	}
	// A stored sender may predate a rule of the address reading: refused
	// here, it is the owner's to fix, rather than a message Build refuses.
	stored := sender.Address()
	from, err := compose.ParseSender(stored.String())
	if err != nil {
		return mail.Address{}, nil, fail.Invalid(param, "the sender %s is not acceptable: %s", sender.Email, err)
	}
	replyTo := []string(req.ReplyTo)
	if len(replyTo) == 0 {
		if err := checkReplyTo(sender.ReplyTo, param); err != nil {
			return mail.Address{}, nil, fail.Invalid(param, "the sender's default reply-to is not valid (%s); the workspace owner must correct the sender", fail.MessageOf(err))
		}
		replyTo = sender.ReplyTo
	}
	return from, replyTo, nil
}

// resolveTracking picks the mode: the request's, else the workspace's
// default, else full. Off needs its configuration set provisioned, which
// is an owner action: no Retry-After.
func resolveTracking(ws workspace.Workspace, requested string) (email.TrackingMode, error) {
	mode := email.TrackingMode(requested)
	if mode == "" {
		mode = email.TrackingMode(ws.DefaultTracking)
	}
	if mode == "" {
		mode = email.TrackingFull
	}
	if mode == email.TrackingOff && !ws.TrackingOffProvisioned {
		return "", fail.Errorf(fail.KindUnavailable, "", "tracking", "tracking off is not provisioned for this workspace yet; nothing was sent")
	}
	return mode, nil
}

// checkAllowance refuses a live send once the month's usage reached the
// allowance (0: no cap), until the first of next month (UTC).
func checkAllowance(allowance, sent int, now time.Time) error {
	if allowance <= 0 || sent < allowance {
		return nil
	}
	next := time.Date(now.Year(), now.Month()+1, 1, 0, 0, 0, 0, time.UTC)
	e := fail.Errorf(fail.KindTooMany, fail.QuotaExceeded, "", "the workspace has used its monthly allowance of %d live emails; it renews on %s", allowance, next.Format("2006-01-02"))
	e.RetryAfter = next.Sub(now)
	return e
}
