package sending

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/mail"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/attachment"
	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/review"
	"github.com/sesame-mail/sesame/internal/ses"
	"github.com/sesame-mail/sesame/internal/workspace"
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

// Transport delivers a raw message (ses.Client in production).
type Transport interface {
	Send(ctx context.Context, in ses.SendInput) (string, error)
}

// Resolver turns attachment inputs into files (attachment.Fetcher).
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
	ConfigSets  ConfigSets
	Logger      *slog.Logger
	Now         func() time.Time
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

// Outcome is the HTTP status and body of an accepted send.
type Outcome struct {
	StatusCode int
	Body       Response
}

// ReviewMessage is what the review queue carries: one held email.
type ReviewMessage struct {
	WorkspaceID string `json:"workspace_id"`
	EmailID     string `json:"email_id"`
	Fingerprint string `json:"fingerprint"`
}

// RequestHash identifies a request body for Idempotency-Key comparison.
func RequestHash(route string, v any) string {
	b, _ := json.Marshal(v) // plain structs always marshal
	sum := sha256.Sum256(append([]byte(route+"\n"), b...))
	return hex.EncodeToString(sum[:])
}

// Send handles one validated request of principal p. idemKey and reqHash
// are empty without an Idempotency-Key. Client errors are *httpapi.Error.
func (s *Service) Send(ctx context.Context, p apikey.Principal, req Request, idemKey, reqHash string) (Outcome, error) {
	now := s.now().UTC()
	fp := review.Fingerprint(req.HTML)
	c, err := s.Store.LoadContext(ctx, ContextQuery{
		WorkspaceID: p.WorkspaceID, SenderID: req.SenderID, Recipient: req.To,
		Fingerprint: fp, Month: now.Format("2006-01"), IdempotencyKey: idemKey,
	})
	if err != nil {
		return Outcome{}, err
	}
	if c.Idempotency != nil {
		return replay(*c.Idempotency, reqHash)
	}
	from, replyTo, err := resolveSender(c, req)
	if err != nil {
		return Outcome{}, err
	}
	mode, err := resolveTracking(c.Workspace, req.Tracking)
	if err != nil {
		return Outcome{}, err
	}
	if p.Environment == apikey.Live && c.Workspace.MonthlyAllowance > 0 && c.MonthlySent >= c.Workspace.MonthlyAllowance {
		next := time.Date(now.Year(), now.Month()+1, 1, 0, 0, 0, 0, time.UTC)
		e := httpapi.Errorf(httpapi.CodeQuotaExceeded, "", "the workspace has used its monthly allowance of %d live emails; it renews on %s", c.Workspace.MonthlyAllowance, next.Format("2006-01-02"))
		e.RetryAfter = next.Sub(now)
		return Outcome{}, e
	}

	id := uuid.Must(uuid.NewV7()).String()
	msg := compose.Message{
		From: from, To: req.To, ReplyTo: replyTo, Subject: req.Subject, HTML: req.HTML, EmailID: id,
	}
	raw, warnings, err := s.build(ctx, msg, req.Attachments)
	if err != nil {
		return Outcome{}, err
	}

	e := email.Email{
		ID: id, WorkspaceID: p.WorkspaceID, To: req.To, Subject: req.Subject,
		Type: email.TypeTransactional, Environment: p.Environment, SentAt: now, TrackingMode: mode,
	}
	out := Outcome{StatusCode: http.StatusOK, Body: Response{Success: true, ID: id, Warnings: warnings}}
	newTemplate := false
	switch {
	case c.Suppressed:
		e.Status = email.StatusSuppressed
		out.Body.Success = false
		out.Body.Message = "the recipient is on the workspace's do-not-send list; the email was recorded and not sent"
	case p.Environment == apikey.Test:
		// Test sends are captured, so there is no reputation to protect.
		e.Status = email.StatusSent
		out.Body.Message = "captured in test mode; not delivered"
	case c.Template != nil && c.Template.State == TemplateDenied:
		e.Status, e.Error = email.StatusFailed, "not sent: this template did not pass the security review"
		out.Body.Success, out.Body.Error = false, &e.Error
		out.Body.Message = e.Error
	case c.Template == nil || c.Template.State == TemplatePending:
		newTemplate = c.Template == nil
		e.Status = email.StatusHeld
	case len(review.ForeignBrands(req.Subject, req.HTML, ownBrands(c.Workspace))) > 0:
		e.Status = email.StatusHeld
	default:
		e.Status = email.StatusSent
		out.Body.Message = "accepted for delivery"
	}
	if e.Status == email.StatusHeld {
		out.StatusCode = http.StatusAccepted
		out.Body.Message = "held for a quick security review; it keeps this id and is sent once cleared"
	}
	out.Body.Status = e.Status

	if idemKey != "" {
		body, _ := json.Marshal(out.Body)
		rec := IdempotencyRecord{Key: idemKey, RequestHash: reqHash, StatusCode: out.StatusCode, Body: body, ExpiresAt: now.Add(idempotencyTTL)}
		held, err := s.Store.ClaimIdempotency(ctx, p.WorkspaceID, rec)
		if errors.Is(err, ErrIdempotencyTaken) {
			return replay(*held, reqHash) // a concurrent twin won; answer as it does
		}
		if err != nil {
			return Outcome{}, err
		}
	}

	if e.Status == email.StatusHeld {
		h := HeldEmail{Email: e, Fingerprint: fp, Request: req, From: from.String(), ReplyTo: replyTo}
		if err := s.Store.HoldEmail(ctx, h, newTemplate); err != nil {
			return Outcome{}, s.abandon(ctx, p.WorkspaceID, "", idemKey, err)
		}
		if err := s.Review.Enqueue(ctx, ReviewMessage{WorkspaceID: p.WorkspaceID, EmailID: id, Fingerprint: fp}); err != nil {
			// Still held and listed by `sesame held list`; the owner can clear it.
			s.logger().ErrorContext(ctx, "review enqueue failed", slog.String("email_id", id), slog.Any("err", err))
		}
		return out, nil
	}
	if err := s.Store.PutEmail(ctx, e); err != nil {
		return Outcome{}, s.abandon(ctx, p.WorkspaceID, "", idemKey, err)
	}
	if e.Status != email.StatusSent {
		return out, nil
	}
	if p.Environment == apikey.Test {
		s.logger().InfoContext(ctx, "captured test email", slog.Bool("test", true),
			slog.String("email_id", id), slog.String("workspace_id", p.WorkspaceID),
			slog.String("to", req.To), slog.String("subject", req.Subject))
		return out, nil
	}
	return s.deliver(ctx, e, from, raw, idemKey, out)
}

// deliver hands a recorded email to SES. A rejection fails the email; a
// throttle or fault removes it so the client can retry.
func (s *Service) deliver(ctx context.Context, e email.Email, from mail.Address, raw []byte, idemKey string, out Outcome) (Outcome, error) {
	_, err := s.Transport.Send(ctx, ses.SendInput{
		Raw: raw, ConfigurationSet: s.ConfigSets.For(e.TrackingMode),
		Tags: map[string]string{"email_id": e.ID, "workspace_id": e.WorkspaceID},
		From: from.Address, To: e.To,
	})
	var rejected *ses.RejectedError
	switch {
	case err == nil:
		return out, nil
	case errors.As(err, &rejected):
		reason := "rejected by the email provider: " + rejected.Reason
		if ferr := s.Store.FailEmail(ctx, e.WorkspaceID, e.ID, reason); ferr != nil {
			return Outcome{}, ferr
		}
		out.Body.Success, out.Body.Status, out.Body.Error, out.Body.Message = false, email.StatusFailed, &reason, reason
		if idemKey != "" {
			body, _ := json.Marshal(out.Body)
			if uerr := s.Store.UpdateIdempotency(ctx, e.WorkspaceID, IdempotencyRecord{Key: idemKey, StatusCode: out.StatusCode, Body: body}); uerr != nil {
				s.logger().ErrorContext(ctx, "idempotency update failed", slog.Any("err", uerr))
			}
		}
		return out, nil
	default:
		s.logger().ErrorContext(ctx, "ses send failed", slog.String("email_id", e.ID), slog.Any("err", err))
		unavailable := httpapi.Errorf(httpapi.CodeServiceUnavailable, "", "the email provider is not accepting mail right now; nothing was sent, retry shortly (with the same Idempotency-Key if you sent one)")
		unavailable.RetryAfter = 5 * time.Second
		return Outcome{}, s.abandon(ctx, e.WorkspaceID, e.ID, idemKey, unavailable)
	}
}

// abandon undoes what a failed send wrote, so a retry starts clean.
func (s *Service) abandon(ctx context.Context, workspaceID, emailID, idemKey string, cause error) error {
	if emailID != "" {
		if err := s.Store.DeleteEmail(ctx, workspaceID, emailID); err != nil {
			s.logger().ErrorContext(ctx, "cleanup of unsent email failed", slog.String("email_id", emailID), slog.Any("err", err))
		}
	}
	if idemKey != "" {
		if err := s.Store.ReleaseIdempotency(ctx, workspaceID, idemKey); err != nil {
			s.logger().ErrorContext(ctx, "release of idempotency key failed", slog.Any("err", err))
		}
	}
	return cause
}

func replay(rec IdempotencyRecord, reqHash string) (Outcome, error) {
	if rec.RequestHash != reqHash {
		return Outcome{}, httpapi.Errorf(httpapi.CodeIdempotencyConflict, "Idempotency-Key", "this Idempotency-Key was used with a different request body in the last 24 hours; use a new key")
	}
	var body Response
	if err := json.Unmarshal(rec.Body, &body); err != nil {
		return Outcome{}, fmt.Errorf("stored idempotent response: %w", err)
	}
	return Outcome{StatusCode: rec.StatusCode, Body: body}, nil
}

// resolveSender picks the From: sender_id, else from, else the workspace
// default; it must be on a verified domain of the workspace.
func resolveSender(c Context, req Request) (mail.Address, []string, error) {
	var (
		sender *identity.Sender
		param  string
	)
	switch {
	case req.SenderID != "":
		if c.Sender == nil {
			return mail.Address{}, nil, httpapi.Errorf(httpapi.CodeSenderNotFound, "sender_id", "no sender with this id in the workspace")
		}
		sender, param = c.Sender, "sender_id"
	case req.From != "":
		a, err := mail.ParseAddress(req.From)
		if err != nil {
			return mail.Address{}, nil, httpapi.Invalid("from", "from must be one email address")
		}
		sender, param = &identity.Sender{Name: a.Name, Email: a.Address}, "from"
	case c.Workspace.DefaultSender != nil:
		sender, param = c.Workspace.DefaultSender, "from"
	default:
		return mail.Address{}, nil, httpapi.Missing("from")
	}
	if !slices.Contains(c.Workspace.VerifiedDomains, identity.DomainOf(sender.Email)) {
		return mail.Address{}, nil, httpapi.Errorf(httpapi.CodeSenderNotVerified, param, "%s is not on a verified domain of this workspace", sender.Email)
	}
	replyTo := []string(req.ReplyTo)
	if len(replyTo) == 0 {
		replyTo = sender.ReplyTo
	}
	return sender.Address(), replyTo, nil
}

func resolveTracking(ws workspace.Workspace, requested string) (email.TrackingMode, error) {
	mode := email.TrackingMode(requested)
	if mode == "" {
		mode = email.TrackingMode(ws.DefaultTracking)
	}
	if mode == "" {
		mode = email.TrackingFull
	}
	if mode == email.TrackingOff && !ws.TrackingOffProvisioned {
		return "", httpapi.Errorf(httpapi.CodeServiceUnavailable, "tracking", "tracking off is not provisioned for this workspace yet; nothing was sent")
	}
	return mode, nil
}

func ownBrands(ws workspace.Workspace) []string {
	return append(append([]string{ws.Name}, ws.Brands...), ws.VerifiedDomains...)
}

// build resolves attachments and renders the MIME message, enforcing the
// size ceiling and collecting soft warnings.
func (s *Service) build(ctx context.Context, msg compose.Message, inputs []attachment.Input) ([]byte, []Warning, error) {
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
	raw, err := compose.Build(msg)
	if err != nil {
		return nil, nil, httpapi.Invalid("html", "the message could not be built: %s", err)
	}
	if len(raw) > MaxMessageBytes {
		return nil, nil, httpapi.Errorf(httpapi.CodeMessageTooLarge, "", "the encoded message is %.1f MB; the limit is 20 MB encoded. Host large files and link to them instead of attaching them", mb(len(raw)))
	}
	if len(raw) > warnMessageBytes {
		warnings = append(warnings, Warning{Code: "large_message", Message: fmt.Sprintf(
			"the encoded message is %.1f MB; many mailbox providers clip or refuse messages over 10 MB. Host large files and link to them", mb(len(raw)))})
	}
	return raw, warnings, nil
}

func mb(n int) float64 { return float64(n) / (1 << 20) }
