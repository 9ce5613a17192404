// Package engine sends approved campaigns: the Starter fans a campaign's
// frozen chunks out on the sends queue (now, or at its scheduled time
// through the tick), and the Sender consumes them, sending each frozen
// recipient who is still subscribed and not suppressed exactly once,
// paced under the SES account's maximum send rate, and pausing the
// campaign when the workspace's bounce or complaint rate nears the
// thresholds at which SES reviews an account.
package engine

import (
	"context"
	"github.com/sesame-mail/sesame/internal/sending/capacity"
	"time"

	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// ChunkMessage is what the sends queue carries: one chunk of one campaign.
type ChunkMessage struct {
	WorkspaceID string `json:"workspace_id"`
	CampaignID  string `json:"campaign_id"`
	Chunk       int    `json:"chunk"`
}

// Campaigns reads campaigns, their frozen chunks, and moves their status
// (campaigndb.Campaigns). Transition fails when the status is not in from.
type Campaigns interface {
	GetCampaign(ctx context.Context, workspaceID, id string) (campaign.Campaign, error)
	// GetCampaignRecord is GetCampaign without the html, for a status check.
	GetCampaignRecord(ctx context.Context, workspaceID, id string) (campaign.Campaign, error)
	ReadChunk(ctx context.Context, workspaceID, campaignID string, n int) ([]string, error)
	TransitionCampaign(ctx context.Context, workspaceID, id string, from []campaign.Status, to campaign.Status, at time.Time, reason string) (campaign.Campaign, error)
}

// Store is what the sender reads and writes beside the campaign
// (listmaildb.ListSends).
type Store interface {
	// Recipients reads the contacts of ids, in order, and whether each
	// address is on the do-not-send list.
	Recipients(ctx context.Context, workspaceID string, ids []string) ([]campaign.Recipient, error)
	// ClaimEmail stores a campaign email unless its id exists: false when
	// it did (claimed by an earlier delivery, sent or not, never again).
	ClaimEmail(ctx context.Context, e email.Email) (bool, error)
	// ReleaseEmail deletes a claimed email SES did not take, so a later
	// delivery sends it.
	ReleaseEmail(ctx context.Context, workspaceID, id string) error
	// FailEmail marks a claimed email SES refused for good.
	FailEmail(ctx context.Context, workspaceID, id, reason string) error
	Progress(ctx context.Context, workspaceID, campaignID string, chunk int) (campaign.Progress, error)
	// CommitProgress writes next over the read prev (ErrProgressMoved if
	// it moved) and adds sent and skipped to the campaign's counts, at once.
	CommitProgress(ctx context.Context, workspaceID, campaignID string, chunk int, prev, next campaign.Progress, sent, skipped int) error
	// MonthlyUsage is the workspace's live sends counted this month
	// (YYYY-MM), the allowance's counter.
	MonthlyUsage(ctx context.Context, workspaceID, month string) (int, error)
}

// PaceRate is the pace's source: the configured rate (when above 0), else
// the account's, else (no account to ask) the SES sandbox's one per
// second.
func PaceRate(configured float64, account capacity.RateSource) capacity.RateSource {
	switch {
	case configured > 0:
		return capacity.FixedRate(configured)
	case account == nil:
		return capacity.FixedRate(1)
	}
	return account
}

// Workspaces reads a workspace: postal address, allowance, tracking.
type Workspaces interface {
	GetWorkspace(ctx context.Context, id string) (workspace.Workspace, error)
}

// Enqueuer puts the chunk messages of a campaign on the sends queue.
type Enqueuer interface {
	EnqueueAll(ctx context.Context, bodies [][]byte) error
}
