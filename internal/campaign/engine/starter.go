package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/sesame-mail/sesame/internal/campaign"
)

// DueStore keeps the due starts of scheduled campaigns, across
// workspaces, by time (listmaildb.ListSends).
type DueStore interface {
	PutDue(ctx context.Context, d campaign.DueStart) error
	// DueBy lists the starts due at or before t, earliest first.
	DueBy(ctx context.Context, t time.Time) ([]campaign.DueStart, error)
	ClearDue(ctx context.Context, d campaign.DueStart) error
}

// Starter starts approved campaigns (campaign.Starter): now, by putting
// one message per frozen chunk on the sends queue, or at the scheduled
// time, through a due start that Tick acts on once a minute.
type Starter struct {
	Campaigns Campaigns
	Queue     Enqueuer
	Due       DueStore
	Now       func() time.Time
	Logger    *slog.Logger
}

func (s *Starter) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// Start sends c: a scheduled campaign moves to sending (one already
// sending stays so; resume moves a paused one first), then every chunk
// is queued. Resuming queues
// every chunk again; each chunk's progress skips who was already done.
// Queuing twice is harmless, so a Start that failed is simply repeated.
func (s *Starter) Start(ctx context.Context, c campaign.Campaign) error {
	switch c.Status {
	case campaign.StatusSending:
	case campaign.StatusScheduled:
		var err error
		c, err = s.Campaigns.TransitionCampaign(ctx, c.WorkspaceID, c.ID,
			[]campaign.Status{campaign.StatusScheduled}, campaign.StatusSending, s.now(), "")
		if err != nil {
			return fmt.Errorf("start campaign %s: %w", c.ID, err)
		}
	default:
		return fmt.Errorf("campaign %s is %s: only a scheduled or sending campaign is started", c.ID, c.Status)
	}
	bodies := make([][]byte, c.Chunks)
	for n := range c.Chunks {
		b, err := json.Marshal(ChunkMessage{WorkspaceID: c.WorkspaceID, CampaignID: c.ID, Chunk: n})
		if err != nil {
			return err
		}
		bodies[n] = b
	}
	if err := s.Queue.EnqueueAll(ctx, bodies); err != nil {
		return fmt.Errorf("queue campaign %s: %w", c.ID, err)
	}
	return nil
}

// Schedule records when a scheduled campaign starts; Tick starts it then.
func (s *Starter) Schedule(ctx context.Context, c campaign.Campaign) error {
	if c.ScheduledAt == nil {
		return fmt.Errorf("campaign %s has no scheduled time", c.ID)
	}
	return s.Due.PutDue(ctx, campaign.DueStart{At: dueTime(*c.ScheduledAt), WorkspaceID: c.WorkspaceID, CampaignID: c.ID})
}

// dueTime is a scheduled time as a due start keeps it: to the second.
func dueTime(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }

// Tick starts every campaign whose scheduled time has come and that is
// still scheduled for it; a due start whose campaign was edited back to
// pending approval, cancelled or rescheduled is dropped (a new approval
// schedules anew). It returns how many campaigns it started.
func (s *Starter) Tick(ctx context.Context) (int, error) {
	now := s.now()
	due, err := s.Due.DueBy(ctx, now)
	if err != nil {
		return 0, err
	}
	started := 0
	var errs []error
	for _, d := range due {
		c, err := s.Campaigns.GetCampaignRecord(ctx, d.WorkspaceID, d.CampaignID)
		switch {
		case errors.Is(err, campaign.ErrNotFound):
		case err != nil:
			errs = append(errs, err)
			continue
		case (c.Status == campaign.StatusScheduled || c.Status == campaign.StatusSending) && c.ScheduledAt != nil && dueTime(*c.ScheduledAt).Equal(d.At):
			// Sending: a start whose queuing failed, done again.
			if err := s.Start(ctx, c); err != nil {
				errs = append(errs, err) // the due start stays: the next tick tries again
				continue
			}
			started++
		}
		if err := s.Due.ClearDue(ctx, d); err != nil {
			errs = append(errs, err)
		}
	}
	return started, errors.Join(errs...)
}
