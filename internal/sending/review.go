package sending

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/mail"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/review"
	"github.com/sesame-mail/sesame/internal/ses"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// WorkspaceReader reads a workspace (its name, brands and domains are the
// brands it owns).
type WorkspaceReader interface {
	GetWorkspace(ctx context.Context, id string) (workspace.Workspace, error)
}

// Reviewer runs the quick security review of held email and releases it:
// cleared email goes out, the rest is not sent and not counted.
type Reviewer struct {
	Held       HeldStore
	Workspaces WorkspaceReader
	Service    *Service
}

// Handle consumes a batch of the review queue; failed items are retried.
func (rv *Reviewer) Handle(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	var resp events.SQSEventResponse
	for _, rec := range ev.Records {
		var m ReviewMessage
		if err := json.Unmarshal([]byte(rec.Body), &m); err != nil || m.WorkspaceID == "" || m.EmailID == "" {
			// A malformed message can never succeed: drop it, loudly.
			rv.Service.logger().ErrorContext(ctx, "malformed review message dropped", slog.String("message_id", rec.MessageId))
			continue
		}
		if err := rv.Review(ctx, m); err != nil {
			rv.Service.logger().ErrorContext(ctx, "review failed", slog.String("email_id", m.EmailID), slog.Any("err", err))
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: rec.MessageId})
		}
	}
	return resp, nil
}

// Review decides one held email. A pending template is decided by the
// markup check of the first email reviewed, and the verdict releases every
// email held with it; whether an email names a brand the workspace does not
// own is checked for each email on its own, as the same layout can carry
// different brands.
func (rv *Reviewer) Review(ctx context.Context, m ReviewMessage) error {
	h, err := rv.Held.GetHeld(ctx, m.WorkspaceID, m.EmailID)
	if errors.Is(err, ErrNotHeld) {
		return nil // already decided
	}
	if err != nil {
		return err
	}
	tpl, err := rv.Held.GetTemplate(ctx, m.WorkspaceID, h.Fingerprint)
	if err != nil {
		return err
	}
	switch tpl.State {
	case TemplateDenied:
		return rv.release(ctx, h, false, tpl.Reasons)
	case TemplateCleared:
		ws, err := rv.Workspaces.GetWorkspace(ctx, m.WorkspaceID)
		if err != nil {
			return err
		}
		v := review.BrandCheck(h.Request.Subject, h.Request.HTML, ownBrands(ws))
		return rv.release(ctx, h, v.Cleared, v.Reasons)
	}
	v := review.CheckContent(h.Request.HTML)
	return rv.DecideTemplate(ctx, m.WorkspaceID, h.Fingerprint, v.Cleared, v.Reasons, "")
}

// DecideTemplate records a verdict on a template and releases every email
// held with it: when cleared, each is sent unless it names a brand the
// workspace does not own (then it fails); when not, none is sent or
// counted. vouched names an email the owner cleared by hand (`sesame held
// clear`), which skips the brand check; "" for the automated review.
func (rv *Reviewer) DecideTemplate(ctx context.Context, workspaceID, fingerprint string, cleared bool, reasons []string, vouched string) error {
	state := TemplateDenied
	if cleared {
		state = TemplateCleared
	}
	ws, err := rv.Workspaces.GetWorkspace(ctx, workspaceID)
	if err != nil {
		return err
	}
	if err := rv.Held.DecideTemplate(ctx, workspaceID, fingerprint, state, reasons); err != nil {
		return err
	}
	ids, err := rv.Held.ListHeld(ctx, workspaceID, fingerprint)
	if err != nil {
		return err
	}
	var errs []error
	for _, id := range ids {
		h, err := rv.Held.GetHeld(ctx, workspaceID, id)
		if errors.Is(err, ErrNotHeld) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ok, why := cleared, reasons
		if cleared && id != vouched {
			v := review.BrandCheck(h.Request.Subject, h.Request.HTML, ownBrands(ws))
			ok, why = v.Cleared, v.Reasons
		}
		errs = append(errs, rv.release(ctx, h, ok, why))
	}
	return errors.Join(errs...)
}

// release sends or fails one held email. The email leaves held before it
// is sent, so two reviewers can never send it twice.
func (rv *Reviewer) release(ctx context.Context, h HeldEmail, cleared bool, reasons []string) error {
	ws, id := h.Email.WorkspaceID, h.Email.ID
	if !cleared {
		reason := "not sent: the security review did not clear it"
		if len(reasons) > 0 {
			reason += " (" + strings.Join(reasons, "; ") + ")"
		}
		err := rv.Held.ReleaseHeld(ctx, ws, id, email.StatusFailed, reason)
		if errors.Is(err, ErrNotHeld) {
			return nil
		}
		return err
	}
	from, err := mail.ParseAddress(h.From)
	if err != nil {
		return fmt.Errorf("held email %s has a bad from: %w", id, err)
	}
	raw, _, buildErr := rv.Service.build(ctx, compose.Message{
		From: *from, To: h.Request.To, ReplyTo: h.ReplyTo, Subject: h.Request.Subject, HTML: h.Request.HTML, EmailID: id,
	}, h.Request.Attachments)
	if buildErr != nil && ctx.Err() != nil {
		return buildErr // our own deadline: retry later
	}
	if err := rv.Held.ReleaseHeld(ctx, ws, id, email.StatusSent, ""); errors.Is(err, ErrNotHeld) {
		return nil
	} else if err != nil {
		return err
	}
	if buildErr != nil {
		// e.g. an attachment URL that no longer answers: it cannot be sent.
		return rv.Service.Store.FailEmail(ctx, ws, id, "not sent after review: "+buildErr.Error())
	}
	_, err = rv.Service.Transport.Send(ctx, ses.SendInput{
		Raw: raw, ConfigurationSet: rv.Service.ConfigSets.For(h.Email.TrackingMode),
		Tags: map[string]string{"email_id": id, "workspace_id": ws}, From: from.Address, To: h.Request.To,
	})
	if err != nil {
		reason := "not sent after review: the email provider refused it"
		var rejected *ses.RejectedError
		if errors.As(err, &rejected) {
			reason = "rejected by the email provider: " + rejected.Reason
		}
		rv.Service.logger().ErrorContext(ctx, "held email send failed", slog.String("email_id", id), slog.Any("err", err))
		return rv.Service.Store.FailEmail(ctx, ws, id, reason)
	}
	return nil
}
