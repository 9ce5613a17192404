package sending

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/queue/batch"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// WorkspaceReader reads a workspace (its name, brands and domains are the
// brands it owns).
type WorkspaceReader interface {
	GetWorkspace(ctx context.Context, id string) (workspace.Workspace, error)
}

// SuppressionReader tells whether an address is on the workspace's
// do-not-send list.
type SuppressionReader interface {
	Suppressed(ctx context.Context, workspaceID, address string) (bool, error)
}

// Reviewer runs the quick security review of held email and releases it:
// cleared email goes out, the rest is not sent and not counted.
type Reviewer struct {
	Held         HeldStore
	Workspaces   WorkspaceReader
	Suppressions SuppressionReader
	Service      *Service
}

// reviewBudget is the time one review may take (an attachment refetch can
// use 18 s): with less left, the message is handed back to the queue
// rather than started.
const reviewBudget = 20 * time.Second

// Handle consumes a batch of the review queue: a failure that may pass
// (a store fault, SES throttling, an attachment URL answering 5xx) is
// retried; a permanent one is not, as every retry would fail alike and
// end in the dead-letter queue.
func (rv *Reviewer) Handle(ctx context.Context, msgs []batch.Message) (retry []string) {
	for _, msg := range msgs {
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < reviewBudget {
			retry = append(retry, msg.ID)
			continue
		}
		var m ReviewMessage
		if err := json.Unmarshal([]byte(msg.Body), &m); err != nil || m.WorkspaceID == "" || m.EmailID == "" {
			// A malformed message can never succeed: drop it, loudly.
			rv.Service.logger().ErrorContext(ctx, "malformed review message dropped", slog.String("message_id", msg.ID))
			continue
		}
		review := rv.Review
		if m.Scheduled {
			review = rv.startScheduled
		}
		err := review(ctx, m)
		switch {
		case err == nil:
		case fail.IsPermanent(err):
			rv.Service.logger().ErrorContext(ctx, "review failed for good; not retried", slog.String("email_id", m.EmailID), slog.Any("err", err))
		default:
			rv.Service.logger().ErrorContext(ctx, "review failed", slog.String("email_id", m.EmailID), slog.Any("err", err))
			retry = append(retry, msg.ID)
		}
	}
	return retry
}

// reviewLease is how long one reviewer has a held email to itself while
// it sends it: past the review function's 30 s timeout, under the review
// queue's 60 s visibility, so a crashed reviewer's email is retried.
const reviewLease = 45 * time.Second

// Review decides one held email. A pending template is decided by the
// first review of an email held with it, on its markup (what the
// fingerprint captures); a concurrent review follows the verdict already
// recorded. An email of a cleared template is then checked on its own
// (brands, links): if that fails, it stays held for the owner to clear or
// deny, as an automated check cannot tell a phish from a partner's name.
// Each held email has a review message of its own.
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
	if tpl, err = decideLayout(ctx, rv.Held, m.WorkspaceID, tpl, h.Request.HTML); err != nil {
		return err
	}
	switch {
	case m.Denied:
		return rv.fail(ctx, h, "not sent: denied by the workspace owner")
	case tpl.State == TemplateDenied:
		return rv.fail(ctx, h, "not sent: the security review did not clear it ("+strings.Join(tpl.Reasons, "; ")+")")
	}
	if !m.Vouched && h.SentMessageID == "" {
		ws, err := rv.Workspaces.GetWorkspace(ctx, m.WorkspaceID)
		if err != nil {
			return err
		}
		if v := checkEmail(h.Request, ws); !v.Cleared {
			rv.Service.logger().InfoContext(ctx, "held email left for the owner", slog.String("email_id", h.Email.ID), slog.Any("reasons", v.Reasons))
			return nil
		}
	}
	return rv.send(ctx, h)
}

// send releases a cleared held email. A lease keeps two reviewers (and a
// concurrent deny) apart; the email leaves held only once SES has taken it,
// and that is recorded first, so a release interrupted after the send
// never sends it again, and a transient SES fault is retried (the review
// message comes back) rather than losing the email.
func (rv *Reviewer) send(ctx context.Context, h HeldEmail) error {
	ws, id := h.Email.WorkspaceID, h.Email.ID
	if err := rv.lease(ctx, h); err != nil {
		return err
	}
	if h.SentMessageID == "" {
		// The recipient may have gone on the list while the email was held.
		suppressed, err := rv.Suppressions.Suppressed(ctx, ws, h.Request.To)
		if err != nil {
			return fmt.Errorf("read suppression of held email %s: %w", id, err)
		}
		if suppressed {
			return rv.release(ctx, h, email.StatusSuppressed, "")
		}
		from, err := compose.ParseAddress(h.From)
		if err != nil {
			return rv.release(ctx, h, email.StatusFailed, "not sent after review: its sender address is invalid")
		}
		msg := messageOf(h.Request, from, h.ReplyTo, id)
		raw, _, err := rv.Service.build(ctx, &msg, h.Request.Attachments)
		switch {
		case fail.IsPermanent(err):
			// An attachment URL gone for good (404), a message grown past
			// the size limit: no retry can send it.
			return rv.release(ctx, h, email.StatusFailed, "not sent after review: "+fail.MessageOf(err))
		case err != nil:
			// An attachment URL that fails now (5xx, a timeout) may answer
			// later: the message comes back; after its last try it waits in
			// the DLQ and the email stays held for the owner.
			return fmt.Errorf("build held email %s: %w", id, err)
		}
		in := SendInput{
			Raw: raw, ConfigurationSet: rv.Service.ConfigSets.For(h.Email.TrackingMode),
			Tags: map[string]string{"email_id": id, "workspace_id": ws}, From: from.Address, To: h.Request.To,
		}
		if h.Email.Environment == apikey.Test {
			// A test key's scheduled email, due: captured, never sent.
			if rv.Service.Captures != nil {
				if err := rv.Service.Captures.Capture(ctx, in); err != nil {
					rv.Service.logger().WarnContext(ctx, "captured message not kept", slog.String("email_id", id), slog.Any("err", err))
				}
			}
			return rv.release(ctx, h, email.StatusSent, "")
		}
		messageID, err := rv.Service.Transport.Send(ctx, in)
		switch {
		case fail.IsPermanent(err):
			return rv.release(ctx, h, email.StatusFailed, "rejected by the email provider: "+fail.MessageOf(err))
		case err != nil:
			return fmt.Errorf("send held email %s: %w", id, err)
		}
		if err := retry(ctx, func(ctx context.Context) error { return rv.Held.MarkHeldSent(ctx, ws, id, messageID) }); err != nil {
			return err
		}
	}
	return rv.release(ctx, h, email.StatusSent, "")
}

// fail releases a held email as failed: never sent, never counted. It
// takes the lease too, so it cannot overtake a reviewer that is sending.
func (rv *Reviewer) fail(ctx context.Context, h HeldEmail, reason string) error {
	if err := rv.lease(ctx, h); err != nil {
		return err
	}
	if h.SentMessageID != "" {
		return rv.release(ctx, h, email.StatusSent, "") // SES has it already
	}
	return rv.release(ctx, h, email.StatusFailed, reason)
}

// lease takes the held email for this reviewer; ErrNotHeld ends quietly
// in release, ErrLeased is retried after the other reviewer is done.
func (rv *Reviewer) lease(ctx context.Context, h HeldEmail) error {
	now := rv.Service.now()
	err := rv.Held.LeaseHeld(ctx, h.Email.WorkspaceID, h.Email.ID, now, now.Add(reviewLease))
	if errors.Is(err, ErrNotHeld) {
		return nil
	}
	return err
}

// release moves a leased held email to status, retrying a fault, and
// records a failure's email.failed.
func (rv *Reviewer) release(ctx context.Context, h HeldEmail, status email.Status, reason string) error {
	err := retry(ctx, func(ctx context.Context) error {
		return rv.Held.ReleaseHeld(ctx, h.Email.WorkspaceID, h.Email.ID, status, reason)
	})
	if errors.Is(err, ErrNotHeld) {
		return nil
	}
	if err != nil {
		return err
	}
	if status == email.StatusFailed {
		e := h.Email
		e.Status, e.Error = email.StatusFailed, reason
		rv.Service.recordFailure(ctx, e)
	}
	return nil
}

// retry runs a store write up to three times, past the request's own end:
// it follows an SES call that has happened.
func retry(ctx context.Context, write func(context.Context) error) error {
	ctx = context.WithoutCancel(ctx)
	var err error
	for attempt := range 3 {
		if attempt > 0 {
			time.Sleep(time.Duration(attempt) * 100 * time.Millisecond)
		}
		if err = write(ctx); err == nil || errors.Is(err, ErrNotHeld) {
			return err
		}
	}
	return err
}
