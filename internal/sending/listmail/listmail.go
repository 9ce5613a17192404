// Package listmail is what campaign and automation emails share: mail to
// a workspace's contacts rather than a transactional send. Each carries
// the footer and the one-click unsubscribe of its source, goes with the
// workspace's tracking, and is claimed by its derived id before it goes,
// so a retried delivery never sends it twice.
package listmail

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/unsubscribe"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// Links builds a recipient's unsubscribe link (unsubscribe.Links).
type Links interface {
	URL(t unsubscribe.Token) (string, error)
}

// WithUnsubscribe is msg with the footer and the one-click unsubscribe
// headers of tok: the link, a mailto to a mailbox the workspace reads
// and the workspace's postal address.
func WithUnsubscribe(links Links, ws workspace.Workspace, from identity.Sender, msg compose.Message, tok unsubscribe.Token) (compose.Message, error) {
	link, err := links.URL(tok)
	if err != nil {
		return compose.Message{}, fmt.Errorf("unsubscribe link: %w", err)
	}
	u := compose.Unsubscribe{URL: link, Mailto: unsubscribeMailbox(from), PostalAddress: ws.PostalAddress}
	out, err := compose.WithUnsubscribe(msg, u)
	if errors.Is(err, compose.ErrInvalid) {
		// A mailbox a mailto cannot carry plainly: the link alone.
		u.Mailto = ""
		out, err = compose.WithUnsubscribe(msg, u)
	}
	return out, err
}

// unsubscribeMailbox is where a mailto unsubscribe request goes: Sesame
// receives no mail, so a mailbox the workspace reads, the sender's first
// reply-to, else the sender itself.
func unsubscribeMailbox(s identity.Sender) string {
	if len(s.ReplyTo) > 0 {
		return s.ReplyTo[0]
	}
	return s.Email
}

// Tracking is the workspace's default tracking mode; off only where its
// configuration set is provisioned.
func Tracking(ws workspace.Workspace) email.TrackingMode {
	switch m := email.TrackingMode(ws.DefaultTracking); {
	case m == email.TrackingOff && !ws.TrackingOffProvisioned, !m.Valid():
		return email.TrackingFull
	default:
		return m
	}
}

// Claims store list emails by id before they go (dynamo.CampaignSends).
type Claims interface {
	// ClaimEmail stores e unless its id exists: false when it did
	// (claimed by an earlier delivery, sent or not, never again).
	ClaimEmail(ctx context.Context, e email.Email) (bool, error)
	// ReleaseEmail deletes a claimed email SES did not take.
	ReleaseEmail(ctx context.Context, workspaceID, id string) error
	// FailEmail marks a claimed email SES refused for good.
	FailEmail(ctx context.Context, workspaceID, id, reason string) error
}

// Release frees the claim of an email SES did not take, so a later
// delivery sends it. If that fails the claim stays and the email is never
// sent: at most once, never twice.
func Release(ctx context.Context, c Claims, logger *slog.Logger, e email.Email) {
	if err := c.ReleaseEmail(context.WithoutCancel(ctx), e.WorkspaceID, e.ID); err != nil {
		logger.ErrorContext(ctx, "claim of unsent email not released; it will not be sent",
			slog.String("email_id", e.ID), slog.String("type", string(e.Type)), slog.Any("err", err))
	}
}

// Refuse records a claimed email that can never go as failed, and tells
// the status pipeline (feed, webhooks, metrics) when failures is set.
func Refuse(ctx context.Context, c Claims, failures sending.FailureRecorder, logger *slog.Logger, e email.Email, reason string) {
	ctx = context.WithoutCancel(ctx)
	if err := c.FailEmail(ctx, e.WorkspaceID, e.ID, reason); err != nil {
		logger.ErrorContext(ctx, "refused email not marked failed", slog.String("email_id", e.ID), slog.Any("err", err))
	}
	if failures != nil {
		e.Status, e.Error = email.StatusFailed, reason
		if err := failures.RecordFailure(ctx, e); err != nil {
			logger.ErrorContext(ctx, "failure event not recorded", slog.String("email_id", e.ID), slog.Any("err", err))
		}
	}
}
