package sending

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/mail"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/httpapi"
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

// reviewLease is how long one reviewer has a held email to itself while
// it sends it: past the review function's 30 s timeout, under the review
// queue's 60 s visibility, so a crashed reviewer's email is retried.
const reviewLease = 45 * time.Second

// Review decides one held email. A pending template is decided by the
// first review of an email held with it (the markup check); every email
// held with a cleared template then gets its own check (brands, links),
// as the fingerprint ignores text and link targets. Each held email has a
// review message of its own, so one invocation releases one email.
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
	if tpl.State == TemplatePending {
		v := review.CheckContent(h.Request.HTML)
		state := TemplateDenied
		if v.Cleared {
			state = TemplateCleared
		}
		decided, err := rv.Held.DecideTemplate(ctx, m.WorkspaceID, h.Fingerprint, state, v.Reasons, true)
		if err != nil {
			return err
		}
		if !decided { // another review decided it first: follow that verdict
			if tpl, err = rv.Held.GetTemplate(ctx, m.WorkspaceID, h.Fingerprint); err != nil {
				return err
			}
		} else {
			tpl = Template{Fingerprint: h.Fingerprint, State: state, Reasons: v.Reasons}
		}
	}
	if tpl.State == TemplateDenied {
		return rv.release(ctx, h, false, tpl.Reasons)
	}
	if m.Vouched {
		return rv.release(ctx, h, true, nil)
	}
	ws, err := rv.Workspaces.GetWorkspace(ctx, m.WorkspaceID)
	if err != nil {
		return err
	}
	v := review.Check(h.Request.Subject, h.Request.HTML, ownBrands(ws))
	return rv.release(ctx, h, v.Cleared, v.Reasons)
}

// OwnerDecision records the owner's verdict on the template of a held
// email (`sesame held clear` / `deny`) and queues a review of every email
// held with it: the one the owner looked at is released as decided, the
// others get their own check under the new verdict.
func (rv *Reviewer) OwnerDecision(ctx context.Context, workspaceID, emailID string, cleared bool) error {
	h, err := rv.Held.GetHeld(ctx, workspaceID, emailID)
	if err != nil {
		return err
	}
	state, reasons := TemplateCleared, []string(nil)
	if !cleared {
		state, reasons = TemplateDenied, []string{"denied by the workspace owner"}
	}
	if _, err := rv.Held.DecideTemplate(ctx, workspaceID, h.Fingerprint, state, reasons, false); err != nil {
		return err
	}
	ids, err := rv.Held.ListHeld(ctx, workspaceID, h.Fingerprint)
	if err != nil {
		return err
	}
	var errs []error
	for _, id := range ids {
		m := ReviewMessage{WorkspaceID: workspaceID, EmailID: id, Fingerprint: h.Fingerprint, Vouched: cleared && id == emailID}
		errs = append(errs, rv.Service.Review.Enqueue(ctx, m))
	}
	return errors.Join(errs...)
}

// release sends or fails one held email. A lease keeps two reviewers from
// sending it at once; the email leaves held only once SES has taken it, so
// a transient SES fault is retried (the review message comes back) rather
// than losing the email.
func (rv *Reviewer) release(ctx context.Context, h HeldEmail, cleared bool, reasons []string) error {
	ws, id := h.Email.WorkspaceID, h.Email.ID
	if !cleared {
		reason := "not sent: the security review did not clear it"
		if len(reasons) > 0 {
			reason += " (" + strings.Join(reasons, "; ") + ")"
		}
		return rv.fail(ctx, h, reason)
	}
	now := rv.Service.now()
	if err := rv.Held.LeaseHeld(ctx, ws, id, now, now.Add(reviewLease)); errors.Is(err, ErrNotHeld) {
		return nil
	} else if err != nil {
		return err // ErrLeased too: retried after the other reviewer is done
	}
	from, err := mail.ParseAddress(h.From)
	if err != nil {
		return rv.fail(ctx, h, "not sent after review: its sender address is invalid")
	}
	raw, _, err := rv.Service.build(ctx, compose.Message{
		From: *from, To: h.Request.To, ReplyTo: h.ReplyTo, Subject: h.Request.Subject, HTML: h.Request.HTML, EmailID: id,
	}, h.Request.Attachments)
	var clientErr *httpapi.Error
	switch {
	case errors.As(err, &clientErr):
		// e.g. an attachment URL that no longer answers: it cannot be sent.
		return rv.fail(ctx, h, "not sent after review: "+clientErr.Message)
	case err != nil:
		return err
	}
	_, err = rv.Service.Transport.Send(ctx, ses.SendInput{
		Raw: raw, ConfigurationSet: rv.Service.ConfigSets.For(h.Email.TrackingMode),
		Tags: map[string]string{"email_id": id, "workspace_id": ws}, From: from.Address, To: h.Request.To,
	})
	var rejected *ses.RejectedError
	switch {
	case errors.As(err, &rejected):
		return rv.fail(ctx, h, "rejected by the email provider: "+rejected.Reason)
	case err != nil:
		return fmt.Errorf("send held email %s: %w", id, err)
	}
	if err := rv.Held.ReleaseHeld(context.WithoutCancel(ctx), ws, id, email.StatusSent, ""); err != nil && !errors.Is(err, ErrNotHeld) {
		return err
	}
	return nil
}

// fail releases a held email as failed: never sent, never counted.
func (rv *Reviewer) fail(ctx context.Context, h HeldEmail, reason string) error {
	err := rv.Held.ReleaseHeld(ctx, h.Email.WorkspaceID, h.Email.ID, email.StatusFailed, reason)
	if errors.Is(err, ErrNotHeld) {
		return nil
	}
	if err != nil {
		return err
	}
	e := h.Email
	e.Status, e.Error = email.StatusFailed, reason
	rv.Service.recordFailure(ctx, e)
	return nil
}
