package campaign

import (
	"context"
	"errors"
	"time"

	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/timestamp"
)

// View is the campaign object of the API. PauseReason is set while the
// campaign is paused (the reputation circuit breaker says why).
type View struct {
	ID             string  `json:"id"`
	Subject        string  `json:"subject"`
	Status         Status  `json:"status"`
	SegmentID      string  `json:"segment_id"`
	RecipientCount int     `json:"recipient_count"`
	SentCount      int     `json:"sent_count"`
	SkippedCount   int     `json:"skipped_count"`
	PauseReason    *string `json:"pause_reason"`
	CreatedAt      string  `json:"created_at"`
	ApprovedAt     *string `json:"approved_at"`
	ScheduledAt    *string `json:"scheduled_at"`
	StartedAt      *string `json:"started_at"`
	CompletedAt    *string `json:"completed_at"`
	CancelledAt    *string `json:"cancelled_at"`
}

// View renders c as the API's campaign object: ISO 8601 UTC times, null
// for what has not happened.
func (c Campaign) View() View {
	v := View{
		ID: c.ID, Subject: c.Subject, Status: c.Status, SegmentID: c.SegmentID,
		RecipientCount: c.RecipientCount, SentCount: c.SentCount, SkippedCount: c.SkippedCount,
		CreatedAt: timestamp.Format(c.CreatedAt), ApprovedAt: timestamp.Optional(c.ApprovedAt),
		ScheduledAt: timestamp.Optional(c.ScheduledAt), StartedAt: timestamp.Optional(c.StartedAt),
		CompletedAt: timestamp.Optional(c.CompletedAt), CancelledAt: timestamp.Optional(c.CancelledAt),
	}
	if c.Status == StatusPaused && c.PauseReason != "" {
		reason := c.PauseReason
		v.PauseReason = &reason
	}
	return v
}

// Store is what the campaign routes read and change.
type Store interface {
	Transitions
	// ListCampaigns returns a page of campaigns, newest first; status ""
	// lists every status.
	ListCampaigns(ctx context.Context, workspaceID string, status Status, after string, limit int) ([]Campaign, string, bool, error)
}

// Service reads and cancels a workspace's campaigns for the API.
type Service struct {
	Store Store
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Get reads a campaign of the workspace: 404 when absent or foreign.
func (s *Service) Get(ctx context.Context, workspaceID, id string) (Campaign, error) {
	c, err := s.Store.GetCampaignRecord(ctx, workspaceID, id)
	if errors.Is(err, ErrNotFound) {
		return Campaign{}, fail.NotFound("campaign")
	}
	return c, err
}

// Cancel stops a campaign: one not yet started is never sent, one sending
// or paused sends nobody more once this answers (the sender reads the
// status before each SES call). A campaign sent, cancelled or discarded is 409
// campaign_not_cancellable. Cancel never starts a send.
func (s *Service) Cancel(ctx context.Context, workspaceID, id string) (Campaign, error) {
	now := time.Now()
	if s.Now != nil {
		now = s.Now()
	}
	c, err := s.Store.TransitionCampaign(ctx, workspaceID, id, Cancellable, StatusCancelled, now, "")
	switch {
	case errors.Is(err, ErrNotFound):
		return Campaign{}, fail.NotFound("campaign")
	case errors.Is(err, ErrConflict):
		return Campaign{}, fail.Errorf(fail.KindConflict, fail.CampaignNotCancellable, "",
			"the campaign is %s; only a campaign pending approval, scheduled, sending or paused can be cancelled", c.Status)
	}
	return c, err
}
