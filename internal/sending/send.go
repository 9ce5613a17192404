package sending

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/mail"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/attachment"
	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/emailtemplate"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/review"
)

// Limits of a message.
const (
	// MaxMessageBytes is the encoded size the spec promises SES takes.
	MaxMessageBytes = 20 << 20
	// warnMessageBytes is where a sendable message earns a warning: many
	// mailbox providers clip or refuse messages past about 10 MB.
	warnMessageBytes = 10 << 20
	// warnInlineBytes is where an inline attachment earns a warning.
	warnInlineBytes = 1 << 20
	// idempotencyTTL is how long an Idempotency-Key replays its answer.
	idempotencyTTL = 24 * time.Hour
)

// SendInput is one raw message handed to the Transport.
type SendInput struct {
	Raw              []byte
	ConfigurationSet string            // one per tracking mode; empty: none
	Tags             map[string]string // email_id, workspace_id: map delivery events back without a lookup
	From             string            // envelope sender, a verified identity
	To               string            // envelope recipient
}

// Transport delivers a raw message and returns the provider's message id
// (ses.Client in production). An error that fail.IsPermanent holds for is
// a refusal of this message for good, its fail.MessageOf a reason safe to
// store and show; any other error is transient: the message may go later.
type Transport interface {
	Send(ctx context.Context, in SendInput) (string, error)
}

// Capturer keeps the message a test key sent, as it would have gone to
// SES. The local stack keeps them (devstack.RawMessages); a deployed stack
// has none: a capture is the stored email alone.
type Capturer interface {
	Capture(ctx context.Context, in SendInput) error
}

// Resolver turns attachment inputs into files (fetch.Fetcher).
type Resolver interface {
	Resolve(ctx context.Context, in []attachment.Input) ([]attachment.File, error)
}

// Enqueuer puts a message on a queue (the review queue here).
type Enqueuer interface {
	Enqueue(ctx context.Context, body any) error
}

// ConfigSets are the SES configuration sets, one per tracking mode.
type ConfigSets struct {
	Full, Essential, Off string
}

func (c ConfigSets) For(m email.TrackingMode) string {
	switch m {
	case email.TrackingEssential:
		return c.Essential
	case email.TrackingOff:
		return c.Off
	}
	return c.Full
}

// Service sends email for the API and releases held email after review.
type Service struct {
	Store       Store
	Transport   Transport
	Attachments Resolver
	Review      Enqueuer
	Failures    FailureRecorder
	Captures    Capturer // nil: captures keep no message
	// Build writes a message's raw MIME form (compose/raw.Build): given
	// by the functions that send, so the ones that only read the table do
	// not link the MIME writer.
	Build      func(compose.Message) ([]byte, error)
	ConfigSets ConfigSets
	// Templates renders a send's stored template (emailtemplate.Service).
	Templates TemplateRenderer
	// Throttle tries a send SES throttled again before answering 503.
	Throttle ThrottleRetry
	// Connections tallies a connection's emails in the audit log
	// (NoteSends); nil records nothing.
	Connections ConnectionTally
	Logger      *slog.Logger
	Now         func() time.Time
}

// TemplateRenderer renders the latest version of a stored template for a
// send to one recipient (emailtemplate.Service).
type TemplateRenderer interface {
	Render(ctx context.Context, workspaceID, id, to string, vars map[string]string) (emailtemplate.Rendered, error)
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Service) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.Default()
	}
	return s.Logger
}

// Warning is a soft warning about a sendable message.
type Warning struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Response is the body of a send answer.
type Response struct {
	Success  bool         `json:"success"`
	ID       string       `json:"id"`
	Status   email.Status `json:"status"`
	Message  string       `json:"message"`
	Error    *string      `json:"error,omitempty"`
	Warnings []Warning    `json:"warnings,omitempty"`
}

// Outcome is the answer to an accepted send. StatusCode is the API's HTTP
// status: 200, or 202 for a held email (sent later). It is kept with an
// Idempotency-Key's first answer, so a replay answers alike.
type Outcome struct {
	StatusCode int
	Body       Response
	// Replayed is an Idempotency-Key's stored answer: no email was made.
	Replayed bool
}

// The status codes of Outcome, spelled here so the send logic needs no
// HTTP package.
const (
	statusOK       = 200
	statusAccepted = 202
)

// ReviewMessage is what the review queue carries: one held email.
type ReviewMessage struct {
	WorkspaceID string `json:"workspace_id"`
	EmailID     string `json:"email_id"`
	Fingerprint string `json:"fingerprint"`
	// Vouched marks an email the owner cleared by hand: no per-email check.
	Vouched bool `json:"vouched,omitempty"`
	// Denied marks an email the owner denied by hand: it is not sent.
	Denied bool `json:"denied,omitempty"`
	// Scheduled marks a scheduled email that is due (the tick's wake-up):
	// it starts as a send made now would.
	Scheduled bool `json:"scheduled,omitempty"`
}

// RequestHash identifies a request body for Idempotency-Key comparison.
func RequestHash(route string, v any) string {
	b, _ := json.Marshal(v) // plain structs always marshal
	sum := sha256.Sum256(append([]byte(route+"\n"), b...))
	return hex.EncodeToString(sum[:])
}

// Send handles one validated request of principal p. idemKey and reqHash
// are empty without an Idempotency-Key. Client errors are *fail.Error.
// Plan makes every decision; Send does the reads and writes around it.
func (s *Service) Send(ctx context.Context, p apikey.Principal, req Request, idemKey, reqHash string) (Outcome, error) {
	now := s.now().UTC()
	if idemKey != "" {
		// A test key and a live key never share an answer.
		idemKey = string(p.Environment) + ":" + idemKey
	}
	if req.TemplateID != "" {
		r, err := s.Templates.Render(ctx, p.WorkspaceID, req.TemplateID, req.To, req.Variables)
		if err != nil {
			return Outcome{}, err
		}
		req.Subject, req.HTML = r.Subject, r.HTML
	}
	fp := review.Fingerprint(req.HTML)
	c, err := LoadContext(ctx, s.Store, ContextQuery{
		WorkspaceID: p.WorkspaceID, SenderID: req.SenderID, Recipient: req.To,
		Fingerprint: fp, Month: now.Format("2006-01"), Day: now.Format(time.DateOnly), IdempotencyKey: idemKey,
	})
	if err != nil {
		return Outcome{}, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return Outcome{}, err
	}
	d, err := Plan(PlanInput{Principal: p, Request: req, RequestHash: reqHash, Context: c, EmailID: id.String(), Now: now})
	if err != nil {
		return Outcome{}, err
	}
	if d.Action == ActionReplay {
		return d.Answer, nil
	}

	e := d.Email
	msg := messageOf(req, d.From, d.ReplyTo, e.ID)
	raw, warnings, err := s.build(ctx, &msg, req.Attachments)
	if err != nil {
		return Outcome{}, err
	}
	out := d.Answer
	out.Body.Warnings = warnings
	claim, err := newClaim(idemKey, reqHash, out, now)
	if err != nil {
		return Outcome{}, err
	}

	switch d.Action {
	case ActionHold:
		held := HeldEmail{Email: e, Fingerprint: fp, Request: req, From: d.From.String(), ReplyTo: d.ReplyTo, Kept: keptOf(msg), KeptRef: c.ContentRef}
		return s.hold(ctx, held, d.NewTemplate, claim, out)
	case ActionSchedule:
		return s.schedule(ctx, HeldEmail{Email: e, Fingerprint: fp, Request: req, From: d.From.String(), ReplyTo: d.ReplyTo, Kept: keptOf(msg), KeptRef: c.ContentRef}, claim, out)
	}
	if held, err := s.Store.CreateEmail(ctx, e, keptOf(msg), c.ContentRef, claim); errors.Is(err, ErrIdempotencyTaken) {
		return replay(*held, reqHash, now) // a concurrent twin won
	} else if err != nil {
		return Outcome{}, err
	}
	switch d.Action {
	case ActionFail:
		s.recordFailure(ctx, e)
	case ActionCapture:
		s.logger().InfoContext(ctx, "captured test email", slog.Bool("test", true),
			slog.String("email_id", e.ID), slog.String("workspace_id", e.WorkspaceID),
			slog.String("to", e.To), slog.String("subject", e.Subject))
		if s.Captures != nil {
			in := SendInput{Raw: raw, Tags: map[string]string{"email_id": e.ID, "workspace_id": e.WorkspaceID}, From: d.From.Address, To: e.To}
			if err := s.Captures.Capture(ctx, in); err != nil {
				s.logger().WarnContext(ctx, "captured message not kept", slog.String("email_id", e.ID), slog.Any("err", err))
			}
		}
	case ActionDeliver:
		if out, err = s.deliver(ctx, e, d.From, raw, idemKey, out); err != nil {
			return Outcome{}, err
		}
	}
	s.finish(ctx, e.WorkspaceID, claim, out)
	return out, nil
}

// messageOf is the message a request becomes, from its resolved sender
// and reply-to: the same at once, after review and when it is due.
func messageOf(req Request, from mail.Address, replyTo []string, id string) compose.Message {
	return compose.Message{
		From: from, To: req.To, ReplyTo: replyTo, Subject: req.Subject, HTML: req.HTML, Text: req.Text,
		Headers: req.Headers, EmailID: id,
	}
}

// newClaim is the pending record an Idempotency-Key is claimed with,
// holding the answer this request expects to give; nil without a key.
func newClaim(idemKey, reqHash string, out Outcome, now time.Time) (*IdempotencyRecord, error) {
	if idemKey == "" {
		return nil, nil
	}
	return NewIdempotencyRecord(idemKey, reqHash, out.StatusCode, out.Body, true, now)
}

// NewIdempotencyRecord is the record of an Idempotency-Key's answer
// (status and body), kept 24 hours from now; pending until the request
// that claims it has its final answer.
func NewIdempotencyRecord(key, reqHash string, status int, body any, pending bool, now time.Time) (*IdempotencyRecord, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	return &IdempotencyRecord{
		Key: key, RequestHash: reqHash, StatusCode: status, Body: b,
		Pending: pending, CreatedAt: now, ExpiresAt: now.Add(idempotencyTTL),
	}, nil
}

// keptOf is what the owner is shown of the email msg became: its html and
// its attachments' names and sizes.
func keptOf(msg compose.Message) email.KeptContent {
	kept := email.KeptContent{HTML: msg.HTML}
	for _, a := range msg.Attachments {
		kept.Attachments = append(kept.Attachments, email.AttachmentInfo{Filename: a.Filename, ContentType: a.ContentType, Size: len(a.Data)})
	}
	return kept
}

// hold stores a held email and queues its review.
func (s *Service) hold(ctx context.Context, h HeldEmail, newTemplate bool, claim *IdempotencyRecord, out Outcome) (Outcome, error) {
	ws := h.Email.WorkspaceID
	if held, err := s.Store.HoldEmail(ctx, h, newTemplate, claim); errors.Is(err, ErrIdempotencyTaken) {
		return replay(*held, claim.RequestHash, claim.CreatedAt)
	} else if err != nil {
		return Outcome{}, err
	}
	if err := s.Review.Enqueue(ctx, ReviewMessage{WorkspaceID: ws, EmailID: h.Email.ID, Fingerprint: h.Fingerprint}); err != nil {
		// A held email nobody will review would wait for ever: undo it.
		s.logger().ErrorContext(ctx, "review enqueue failed", slog.String("email_id", h.Email.ID), slog.Any("err", err))
		if derr := s.Store.DeleteHeld(context.WithoutCancel(ctx), ws, h.Email.ID); derr != nil {
			s.logger().ErrorContext(ctx, "cleanup of unqueued held email failed", slog.String("email_id", h.Email.ID), slog.Any("err", derr))
		}
		return Outcome{}, s.abandon(ctx, ws, "", claim, unavailable("the review queue"))
	}
	s.finish(ctx, ws, claim, out)
	return out, nil
}

// finish stores the final answer of a claimed Idempotency-Key. If it
// fails, the pending record still holds the answer this request expected,
// which is what it answered.
func (s *Service) finish(ctx context.Context, workspaceID string, claim *IdempotencyRecord, out Outcome) {
	if claim == nil {
		return
	}
	body, err := json.Marshal(out.Body)
	if err == nil {
		final := *claim
		final.StatusCode, final.Body, final.Pending = out.StatusCode, body, false
		err = s.Store.FinishIdempotency(context.WithoutCancel(ctx), workspaceID, final)
	}
	if err != nil {
		s.logger().ErrorContext(ctx, "idempotency answer not stored", slog.Any("err", err))
	}
}

// recordFailure reports an email that failed before SES took it to the
// feed, webhooks and metrics; the email itself is already failed.
func (s *Service) recordFailure(ctx context.Context, e email.Email) {
	if s.Failures == nil {
		return
	}
	err := retry(ctx, func(ctx context.Context) error { return s.Failures.RecordFailure(ctx, e) })
	if err != nil {
		s.logger().ErrorContext(ctx, "failure event not recorded", slog.String("email_id", e.ID), slog.Any("err", err))
	}
}

// deliver hands a recorded email to SES, again while a brief throttle
// lasts (Throttle). A rejection fails the email; a longer throttle or a
// fault removes it so the client can retry.
func (s *Service) deliver(ctx context.Context, e email.Email, from mail.Address, raw []byte, idemKey string, out Outcome) (Outcome, error) {
	_, err := s.Throttle.Send(ctx, s.Transport, SendInput{
		Raw: raw, ConfigurationSet: s.ConfigSets.For(e.TrackingMode),
		Tags: map[string]string{"email_id": e.ID, "workspace_id": e.WorkspaceID},
		From: from.Address, To: e.To,
	})
	switch {
	case err == nil:
		return out, nil
	case fail.IsPermanent(err):
		reason := "rejected by the email provider: " + fail.MessageOf(err)
		if ferr := s.Store.FailEmail(context.WithoutCancel(ctx), e.WorkspaceID, e.ID, reason); ferr != nil {
			// Not recorded as failed: undo the email so no "sent" stays behind.
			return Outcome{}, s.abandon(ctx, e.WorkspaceID, e.ID, claimOf(idemKey), ferr)
		}
		e.Status, e.Error = email.StatusFailed, reason
		s.recordFailure(ctx, e)
		out.Body.Success, out.Body.Status, out.Body.Error, out.Body.Message = false, email.StatusFailed, &reason, reason
		return out, nil
	default:
		s.logger().ErrorContext(ctx, "ses send failed", slog.String("email_id", e.ID), slog.Any("err", err))
		return Outcome{}, s.abandon(ctx, e.WorkspaceID, e.ID, claimOf(idemKey), unavailable("the email provider"))
	}
}

// claimOf is the claim of a key to release, nil without a key.
func claimOf(idemKey string) *IdempotencyRecord {
	if idemKey == "" {
		return nil
	}
	return &IdempotencyRecord{Key: idemKey}
}

// unavailable is the 503 of a dependency that refused: nothing was sent.
func unavailable(what string) error {
	return fail.Unavailable(5*time.Second, "%s is not accepting work right now; nothing was sent, retry shortly (with the same Idempotency-Key if you sent one)", what)
}

// abandon undoes what a failed send wrote, so a retry starts clean. It
// runs even when the request's context is done: that is when it matters.
func (s *Service) abandon(ctx context.Context, workspaceID, emailID string, claim *IdempotencyRecord, cause error) error {
	ctx = context.WithoutCancel(ctx)
	if emailID != "" {
		if err := s.Store.DeleteEmail(ctx, workspaceID, emailID); err != nil {
			s.logger().ErrorContext(ctx, "cleanup of unsent email failed", slog.String("email_id", emailID), slog.Any("err", err))
		}
	}
	if claim != nil {
		if err := s.Store.ReleaseIdempotency(ctx, workspaceID, claim.Key); err != nil {
			s.logger().ErrorContext(ctx, "release of idempotency key failed", slog.Any("err", err))
		}
	}
	return cause
}

// build resolves attachments into msg and renders the MIME message,
// enforcing the size ceiling and collecting soft warnings.
func (s *Service) build(ctx context.Context, msg *compose.Message, inputs []attachment.Input) ([]byte, []Warning, error) {
	var warnings []Warning
	if len(inputs) > 0 {
		files, err := s.Attachments.Resolve(ctx, inputs)
		if err != nil {
			return nil, nil, err
		}
		for i, f := range files {
			msg.Attachments = append(msg.Attachments, compose.Attachment{Filename: f.Filename, ContentType: f.ContentType, Data: f.Data})
			if inputs[i].Content != nil && len(f.Data) > warnInlineBytes {
				warnings = append(warnings, Warning{Code: "large_attachment", Message: fmt.Sprintf(
					"attachment %q is %.1f MB inline; host the file and pass its url (or link to it) to keep requests small", f.Filename, mb(len(f.Data)))})
			}
		}
	}
	// Attachments that alone encode past the ceiling are refused before
	// the build, which would hold the MIME and the library's copy of each
	// part only to refuse them (internal/bench BenchmarkSendMemory).
	if n := encodedAtLeast(msg.Attachments); n > MaxMessageBytes {
		return nil, nil, fail.Errorf(fail.KindTooLarge, "", "", "the attachments alone encode to %.1f MB; the limit is 20 MB encoded. Host large files and link to them instead of attaching them", mb(n))
	}
	raw, err := s.Build(*msg)
	if err != nil {
		// Inputs are validated before this, so this is our fault.
		return nil, nil, fmt.Errorf("build message: %w", err)
	}
	if len(raw) > MaxMessageBytes {
		return nil, nil, fail.Errorf(fail.KindTooLarge, "", "", "the encoded message is %.1f MB; the limit is 20 MB encoded. Host large files and link to them instead of attaching them", mb(len(raw)))
	}
	if len(raw) > warnMessageBytes {
		warnings = append(warnings, Warning{Code: "large_message", Message: fmt.Sprintf(
			"the encoded message is %.1f MB; many mailbox providers clip or refuse messages over 10 MB. Host large files and link to them", mb(len(raw)))})
	}
	return raw, warnings, nil
}

// encodedAtLeast is the least the attachments take encoded: base64
// without its line breaks.
func encodedAtLeast(files []compose.Attachment) int {
	n := 0
	for _, f := range files {
		n += base64.StdEncoding.EncodedLen(len(f.Data))
	}
	return n
}

func mb(n int) float64 { return float64(n) / (1 << 20) }
