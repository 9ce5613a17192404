package account

import (
	"context"
	"time"

	"github.com/sesame-mail/sesame/internal/ident"
)

// AuditEntry is one owner action: who did what to which thing, when.
type AuditEntry struct {
	WorkspaceID string    `json:"workspace_id"`
	Actor       string    `json:"actor"` // the owner's address
	Action      string    `json:"action"`
	Target      string    `json:"target,omitempty"` // the id acted on
	At          time.Time `json:"at"`
	// Count is how many times an entry that tallies (a connection's
	// emails in an hour) happened; 0 for one action.
	Count int `json:"count,omitempty"`
}

// The audited actions.
const (
	ActionSignIn         = "sign-in"
	ActionKeyCreated     = "key.created"
	ActionKeyRegenerated = "key.regenerated"
	ActionKeyRevoked     = "key.revoked"
	ActionWebhookAdded   = "webhook.added"
	ActionWebhookSecret  = "webhook.secret_shown"
	ActionWebhookEnabled = "webhook.enabled"
	ActionWebhookOff     = "webhook.disabled"
	ActionApproved       = "campaign.approved"
	ActionDiscarded      = "campaign.discarded"
	ActionEdited         = "campaign.edited"
	ActionCancelled      = "campaign.cancelled"
	ActionHeldCleared    = "held.cleared"
	ActionHeldDenied     = "held.denied"
	// ActionConnectionSent tallies an OAuth connection's emails, one
	// entry per connection and hour (its Count).
	ActionConnectionSent = "connection.sent"
	// Actions of the audience, settings and automations screens.
	ActionSuppressionAdded   = "suppression.added"
	ActionSuppressionRemoved = "suppression.removed"
	ActionContactsImported   = "contacts.imported"
	ActionWebhookRotated     = "webhook.secret_rotated"
	ActionSenderAdded        = "sender.added"
	ActionWorkspaceChanged   = "workspace.changed"
	ActionAutomationCreated  = "automation.created"
	ActionAutomationEdited   = "automation.edited"
	ActionAutomationOn       = "automation.activated"
	ActionAutomationOff      = "automation.deactivated"
	// Deletions the dashboard asks about first, and a paused campaign
	// resumed.
	ActionWebhookRemoved = "webhook.removed"
	ActionContactDeleted = "contact.deleted"
	ActionSegmentDeleted = "segment.deleted"
	ActionResumed        = "campaign.resumed"
)

// AuditStore keeps the audit log of each workspace, newest first.
type AuditStore interface {
	PutAudit(ctx context.Context, e AuditEntry) error
	ListAudit(ctx context.Context, workspaceID string, limit int) ([]AuditEntry, error)
}

// Audit records owner actions and reads them back.
type Audit struct {
	Store AuditStore
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// MaxAudit bounds one read of the log.
const MaxAudit = 200

// Record writes that actor did action on target in the workspace.
func (a *Audit) Record(ctx context.Context, workspaceID, actor, action, target string) error {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return err
	}
	now := time.Now
	if a.Now != nil {
		now = a.Now
	}
	return a.Store.PutAudit(ctx, AuditEntry{WorkspaceID: workspaceID, Actor: actor, Action: action, Target: target, At: now().UTC()})
}

// List returns up to limit (1 to MaxAudit) entries, newest first.
func (a *Audit) List(ctx context.Context, workspaceID string, limit int) ([]AuditEntry, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return nil, err
	}
	if limit < 1 || limit > MaxAudit {
		limit = MaxAudit
	}
	all, err := a.Store.ListAudit(ctx, workspaceID, limit)
	if all == nil && err == nil {
		all = []AuditEntry{}
	}
	return all, err
}
