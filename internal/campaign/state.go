package campaign

import (
	"context"
	"errors"
	"slices"
	"time"
)

// ChunkSize is how many contact ids one chunk of a frozen recipient set
// holds: 1,000 ids of 16 bytes are 16 KB, at most 17 write units (one per
// 59 recipients, under the one per 50 the issue allows).
const ChunkSize = 1000

// Chunks is how many chunks n recipients take.
func Chunks(n int) int { return (n + ChunkSize - 1) / ChunkSize }

// ErrConflict is a change asked of a campaign whose status it does not
// apply to (TransitionCampaign's from did not hold it); the store returns
// the campaign as it is with it.
var ErrConflict = errors.New("campaign is not in a status this change applies to")

// Valid reports whether s is a status.
func (s Status) Valid() bool { return slices.Contains(Statuses, s) }

// Cancellable are the statuses cancel applies to: before the send, or
// while it runs (the rest are never sent).
var Cancellable = []Status{StatusPendingApproval, StatusScheduled, StatusSending, StatusPaused}

// Editable are the statuses the owner may still edit or discard in: the
// send has not started.
var Editable = []Status{StatusPendingApproval, StatusScheduled}

// Final reports whether a campaign in s never changes again.
func (s Status) Final() bool {
	return s == StatusSent || s == StatusCancelled || s == StatusDiscarded
}

// Starter starts an approved campaign's send (the engine): Start fans the
// frozen chunks out to the senders now, for a campaign in sending (resume
// calls it again: recipients already sent are skipped); Schedule records
// a scheduled campaign's start at its ScheduledAt.
type Starter interface {
	Start(ctx context.Context, c Campaign) error
	Schedule(ctx context.Context, c Campaign) error
}

// NoEngine is the campaign starter of a build without the send engine:
// an approval is recorded, and starting it says the engine is missing.
type NoEngine struct{}

// ErrNoEngine is NoEngine's answer.
var ErrNoEngine = errors.New("the campaign send engine is not part of this build")

// Start refuses.
func (NoEngine) Start(context.Context, Campaign) error { return ErrNoEngine }

// Schedule refuses.
func (NoEngine) Schedule(context.Context, Campaign) error { return ErrNoEngine }

// Transitions is the store's change of a campaign's status: from the
// statuses in from to to, at time at, with a pause reason (paused only).
type Transitions interface {
	// GetCampaignRecord reads a campaign without its html (the API's view
	// has none).
	GetCampaignRecord(ctx context.Context, workspaceID, id string) (Campaign, error)
	TransitionCampaign(ctx context.Context, workspaceID, id string, from []Status, to Status, at time.Time, reason string) (Campaign, error)
}
