package sending

import (
	"context"
	"errors"
	"time"

	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// TemplateState is where a template is in the security review.
type TemplateState string

const (
	TemplatePending TemplateState = "pending"
	TemplateCleared TemplateState = "cleared"
	TemplateDenied  TemplateState = "denied"
)

// Template is a workspace's template, known by its fingerprint.
type Template struct {
	Fingerprint string
	State       TemplateState
	Reasons     []string
}

// ContextQuery names what one send needs to read.
type ContextQuery struct {
	WorkspaceID    string
	SenderID       string // "" when the request names none
	Recipient      string
	Fingerprint    string
	Month          string // YYYY-MM of the usage counter
	IdempotencyKey string // "" when none
	// Day (UTC YYYY-MM-DD) asks for the day's reference content of the
	// layout (email.ContentRef), which the kept content is stored against.
	Day string
	// Known are the parts the caller holds already (contextcache.Store):
	// the store leaves them unread, their fields of Context empty.
	Known Known
	// ReadUsage asks for the month's usage too (a capped workspace's);
	// otherwise MonthlySent is left 0 and LoadContext reads it apart when
	// the workspace turns out to have an allowance.
	ReadUsage bool
	// NoOldSuppressions skips the do-not-send partition of the layout
	// before the shards: the instance learned the workspace has no entry
	// there (contextcache.SuppressionLayout), and nothing is written
	// there any more.
	NoOldSuppressions bool
}

// Known names the parts of a send's context a cache holds
// (contextcache.Store).
type Known struct {
	Workspace, Sender, Template, ContentRef bool
}

// Context is what a send reads before deciding, in one round trip.
type Context struct {
	Workspace   workspace.Workspace
	Sender      *identity.Sender // the requested sender; nil when absent
	Suppressed  bool
	Template    *Template // nil for a template never seen
	MonthlySent int
	Idempotency *IdempotencyRecord // nil when the key is unused
	// UsageKnown says MonthlySent holds the month's usage (asked for
	// with ReadUsage, or remembered by a cache); LoadContext reads it
	// apart for a capped workspace otherwise.
	UsageKnown bool
	// ContentRef is the day's reference of the layout, named by the
	// query's fingerprint and Day, with no Dict while the day has none.
	ContentRef email.ContentRef
}

// IdempotencyRecord is the stored first answer to an Idempotency-Key.
type IdempotencyRecord struct {
	Key         string // scoped to the key's environment: "live:<key>"
	RequestHash string
	StatusCode  int
	Body        []byte
	// Pending is true until the request that claimed the key has its
	// final answer; Body is then the answer it expects to give.
	Pending   bool
	CreatedAt time.Time
	ExpiresAt time.Time
}

// HeldEmail is an email waiting for the security review, with what is
// needed to send it once cleared.
type HeldEmail struct {
	Email       email.Email
	Fingerprint string
	Request     Request
	From        string // resolved From header
	ReplyTo     []string
	// SentMessageID is set once SES took the email (a release interrupted
	// after the send): it is not sent again.
	SentMessageID string `json:"-"`
	// Kept is what its owner is shown of it, stored with it (and kept
	// after its release).
	Kept email.KeptContent `json:"-"`
	// KeptRef is the day's reference of its layout that Kept is stored
	// against, when the send read one.
	KeptRef email.ContentRef `json:"-"`
}

// Errors of the store.
var (
	ErrWorkspaceNotFound = errors.New("workspace not found")
	// ErrIdempotencyTaken is returned by CreateEmail and HoldEmail with the
	// record that holds the key.
	ErrIdempotencyTaken = errors.New("idempotency key already used")
)

// Store is the persistence the send path uses.
type Store interface {
	LoadContext(ctx context.Context, q ContextQuery) (Context, error)
	// MonthlyUsage reads the month's live sends exactly (every shard of
	// the counter, strongly consistent).
	MonthlyUsage(ctx context.Context, workspaceID, month string) (int, error)
	// CreateEmail stores a new email with what its owner is shown of it
	// (kept, stored against ref, the day's reference of its layout, and
	// making it when the day has none); with a claim, in one transaction
	// with the Idempotency-Key record, failing with ErrIdempotencyTaken
	// and the record that holds the key.
	CreateEmail(ctx context.Context, e email.Email, kept email.KeptContent, ref email.ContentRef, claim *IdempotencyRecord) (*IdempotencyRecord, error)
	// FinishIdempotency stores the final answer of a claimed key.
	FinishIdempotency(ctx context.Context, workspaceID string, rec IdempotencyRecord) error
	ReleaseIdempotency(ctx context.Context, workspaceID, key string) error
	// FailEmail moves an email to failed with a reason.
	FailEmail(ctx context.Context, workspaceID, id, reason string) error
	DeleteEmail(ctx context.Context, workspaceID, id string) error
	// HoldEmail stores a held email and its content; newTemplate also
	// records the template as pending review. A claim is written in the
	// same transaction, as with CreateEmail.
	HoldEmail(ctx context.Context, h HeldEmail, newTemplate bool, claim *IdempotencyRecord) (*IdempotencyRecord, error)
	// DeleteHeld deletes a held email that could not be queued for review.
	DeleteHeld(ctx context.Context, workspaceID, emailID string) error
	// ScheduleEmail stores a scheduled email, its content as a held
	// email's (not yet waiting for any review) and its wake-up at the due
	// minute, in one transaction with the claim, as HoldEmail does.
	ScheduleEmail(ctx context.Context, h HeldEmail, wakeAt time.Time, claim *IdempotencyRecord) (*IdempotencyRecord, error)
	// GetEmail reads an email of the workspace (email.ErrNotFound).
	GetEmail(ctx context.Context, workspaceID, id string) (email.Email, error)
	// CancelScheduled moves a scheduled email to cancelled and drops its
	// content; ErrNotScheduled when it is not scheduled or has started.
	CancelScheduled(ctx context.Context, workspaceID, emailID string, now time.Time) error
}

// HeldStore is what the review of held emails uses.
type HeldStore interface {
	GetTemplate(ctx context.Context, workspaceID, fingerprint string) (Template, error)
	// DecideTemplate records a verdict; onlyIfPending makes it a no-op
	// (false) when the template was decided meanwhile.
	DecideTemplate(ctx context.Context, workspaceID, fingerprint string, state TemplateState, reasons []string, onlyIfPending bool) (bool, error)
	// LeaseHeld reserves a held email for one reviewer until until, so two
	// reviewers never send it at once; ErrLeased when another holds it.
	LeaseHeld(ctx context.Context, workspaceID, emailID string, now, until time.Time) error
	ListHeld(ctx context.Context, workspaceID, fingerprint string) ([]string, error)
	GetHeld(ctx context.Context, workspaceID, emailID string) (HeldEmail, error)
	// ReleaseHeld moves a held email to status (sent or failed) and drops
	// its stored content; it fails with ErrNotHeld when it is not held.
	ReleaseHeld(ctx context.Context, workspaceID, emailID string, status email.Status, reason string) error
	// MarkHeldSent records that SES took a held email.
	MarkHeldSent(ctx context.Context, workspaceID, emailID, messageID string) error
	// StartScheduled moves a scheduled email to held, indexed by its
	// template (recorded pending when new): from then on it is a held
	// email. An email already held is left as it is; ErrNotScheduled when
	// it is neither (cancelled, or released already).
	StartScheduled(ctx context.Context, workspaceID, emailID, fingerprint string) error
}

// Errors of the held store.
var (
	// ErrNotHeld is returned for an email that is not (or no longer) held.
	ErrNotHeld error = fail.Errorf(fail.KindNotFound, "", "", "email is not held")
	// ErrLeased is returned while another reviewer is sending the email.
	ErrLeased = errors.New("held email is being released by another reviewer")
	// ErrNotScheduled is returned for an email that is not (or no longer)
	// scheduled.
	ErrNotScheduled = errors.New("email is not scheduled")
)

// FailureRecorder records a send that failed before SES took it: the
// email.failed event in the feed and to webhooks, and the failed count.
type FailureRecorder interface {
	RecordFailure(ctx context.Context, e email.Email) error
}

// LoadContext is what a send reads before deciding: its context in one
// round trip, and a capped workspace's usage in a second one when the
// first did not have it (a cold instance's first send; the local stack's
// every send to a capped workspace).
func LoadContext(ctx context.Context, store Store, q ContextQuery) (Context, error) {
	c, err := store.LoadContext(ctx, q)
	if err != nil {
		return Context{}, err
	}
	if c.Workspace.MonthlyAllowance > 0 && !c.UsageKnown {
		if c.MonthlySent, err = store.MonthlyUsage(ctx, q.WorkspaceID, q.Month); err != nil {
			return Context{}, err
		}
		c.UsageKnown = true
	}
	return c, nil
}
