// Package campaign is a bulk send: a draft to a segment's recipients,
// frozen when drafted, held until the workspace owner approves it, then
// sent once to each frozen recipient who is still subscribed and not
// suppressed. Its routes are served by campaignhttp (Drafts, Service);
// the owner's side, for the console and the dashboard, is Approvals.
package campaign

import (
	"crypto/sha256"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/identity"
)

// Status is where a campaign is in its life.
type Status string

const (
	StatusPendingApproval Status = "pending_approval"
	StatusScheduled       Status = "scheduled"
	StatusSending         Status = "sending"
	StatusPaused          Status = "paused"
	StatusSent            Status = "sent"
	StatusCancelled       Status = "cancelled"
	StatusDiscarded       Status = "discarded"
)

// Statuses lists every status.
var Statuses = []Status{
	StatusPendingApproval, StatusScheduled, StatusSending, StatusPaused,
	StatusSent, StatusCancelled, StatusDiscarded,
}

// Campaign is one bulk send of a workspace. Its recipients are stored
// apart, in chunks of contact ids frozen at draft time.
type Campaign struct {
	ID             string
	WorkspaceID    string
	Subject        string
	HTML           string
	Sender         identity.Sender // the workspace's default sender at draft time
	SegmentID      string
	Status         Status
	RecipientCount int
	SentCount      int
	SkippedCount   int
	// Chunks is how many chunks of frozen recipient ids the draft stored.
	Chunks int
	// ContentHash binds an approval to the exact subject, html and sender
	// (ContentHash); an edit changes it and voids the approval.
	ContentHash string
	// ApprovedHash is the ContentHash the approval bound; an edit changes
	// ContentHash and clears the approval.
	ApprovedHash string
	ApprovedBy   string
	PauseReason  string
	CreatedAt    time.Time
	ApprovedAt   *time.Time
	ScheduledAt  *time.Time
	StartedAt    *time.Time
	CompletedAt  *time.Time
	CancelledAt  *time.Time
	DiscardedAt  *time.Time
	// SuggestedBy marks a draft an assistant suggested (Drafts.Suggest);
	// nil for a draft of POST /send/bulk.
	SuggestedBy *Suggestion
}

// ContentHash is the hash an approval binds: subject, html and sender.
func ContentHash(subject, html string, sender identity.Sender) string {
	h := sha256.New()
	for _, part := range []string{subject, html, sender.ID, sender.Name, sender.Email} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return uuid.NewSHA1(uuid.Nil, h.Sum(nil)).String()
}

// EmailID is the id of the one email a campaign sends a contact: derived,
// so a redelivered chunk or a restarted sender finds the email it already
// claimed instead of sending twice. It is a UUIDv7 stamped with the
// campaign's start, so campaign emails sort among the workspace's emails
// (newest first by id) where the campaign began; the rest of its bits
// come from the campaign and contact ids.
func EmailID(campaignID, contactID string, startedAt time.Time) string {
	return email.DerivedID(campaignID+"/"+contactID, startedAt)
}

// ErrNotFound is a campaign that does not exist in the workspace.
var ErrNotFound error = fail.NotFound("campaign")

// Approved reports whether c's approval binds its current content.
func (c Campaign) Approved() bool {
	return c.ApprovedAt != nil && c.ApprovedHash == c.ContentHash
}
