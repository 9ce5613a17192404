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
	"mime"
	"strings"
	"unicode"
	"unicode/utf8"

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
	if err != nil {
		return out, err
	}
	for k := range out.Headers {
		if strings.EqualFold(k, HeaderListID) {
			delete(out.Headers, k) // the list's own id wins
		}
	}
	out.Headers[HeaderListID] = ListID(ws, from, tok.Source)
	return out, nil
}

// HeaderListID names the list a message comes from (RFC 2919).
const HeaderListID = "List-Id"

// maxListID is RFC 2919's limit on the <label.namespace> part.
const maxListID = 255

// ListID is the List-Id of the campaign or automation src sending from
// from: `"Workspace name" <source id.sender domain>`. The source's id is
// the list (each campaign, each automation); the namespace is the
// sender's domain, which the workspace owns. An id too long for RFC 2919
// falls back to its unmanaged namespace, localhost. The phrase is the
// workspace's name when it is printable text (encoded-words when not
// ASCII), else left out.
func ListID(ws workspace.Workspace, from identity.Sender, src unsubscribe.Source) string {
	_, domain, _ := strings.Cut(from.Email, "@")
	id := src.ID + "." + strings.ToLower(domain)
	if domain == "" || len(id) > maxListID {
		id = src.ID + ".localhost"
	}
	if phrase := listPhrase(ws.Name); phrase != "" {
		return phrase + " <" + id + ">"
	}
	return "<" + id + ">"
}

// listPhrase is name as a display phrase: a quoted string when ASCII, Q
// encoded-words otherwise; "" for an empty, long or unprintable name.
func listPhrase(name string) string {
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > 64 || strings.ContainsFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return ""
	}
	for _, r := range name {
		if r > unicode.MaxASCII {
			return mime.QEncoding.Encode("UTF-8", name)
		}
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(name) + `"`
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

// Claims store list emails by id before they go (listmaildb.ListSends).
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
