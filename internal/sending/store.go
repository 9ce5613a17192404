package sending

import (
	"context"
	"errors"
	"time"

	"github.com/sesame-mail/sesame/internal/email"
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
}

// Context is what a send reads before deciding, in one round trip.
type Context struct {
	Workspace   workspace.Workspace
	Sender      *identity.Sender // the requested sender; nil when absent
	Suppressed  bool
	Template    *Template // nil for a template never seen
	MonthlySent int
	Idempotency *IdempotencyRecord // nil when the key is unused
}

// IdempotencyRecord is the stored first answer to an Idempotency-Key.
type IdempotencyRecord struct {
	Key         string
	RequestHash string
	StatusCode  int
	Body        []byte
	ExpiresAt   time.Time
}

// HeldEmail is an email waiting for the security review, with what is
// needed to send it once cleared.
type HeldEmail struct {
	Email       email.Email
	Fingerprint string
	Request     Request
	From        string // resolved From header
	ReplyTo     []string
}

// Errors of the store.
var (
	ErrWorkspaceNotFound = errors.New("workspace not found")
	// ErrIdempotencyTaken is returned by ClaimIdempotency with the record
	// that holds the key.
	ErrIdempotencyTaken = errors.New("idempotency key already used")
)

// Store is the persistence the send path uses.
type Store interface {
	LoadContext(ctx context.Context, q ContextQuery) (Context, error)
	// ClaimIdempotency stores rec unless a live record holds the key, in
	// which case it returns that record and ErrIdempotencyTaken.
	ClaimIdempotency(ctx context.Context, workspaceID string, rec IdempotencyRecord) (*IdempotencyRecord, error)
	UpdateIdempotency(ctx context.Context, workspaceID string, rec IdempotencyRecord) error
	ReleaseIdempotency(ctx context.Context, workspaceID, key string) error
	PutEmail(ctx context.Context, e email.Email) error
	// FailEmail moves an email to failed with a reason.
	FailEmail(ctx context.Context, workspaceID, id, reason string) error
	DeleteEmail(ctx context.Context, workspaceID, id string) error
	// HoldEmail stores a held email and its content; newTemplate also
	// records the template as pending review.
	HoldEmail(ctx context.Context, h HeldEmail, newTemplate bool) error
}

// HeldStore is what the review of held emails uses.
type HeldStore interface {
	GetTemplate(ctx context.Context, workspaceID, fingerprint string) (Template, error)
	DecideTemplate(ctx context.Context, workspaceID, fingerprint string, state TemplateState, reasons []string) error
	ListHeld(ctx context.Context, workspaceID, fingerprint string) ([]string, error)
	GetHeld(ctx context.Context, workspaceID, emailID string) (HeldEmail, error)
	// ReleaseHeld moves a held email to status (sent or failed) and drops
	// its stored content; it fails with ErrNotHeld when it is not held.
	ReleaseHeld(ctx context.Context, workspaceID, emailID string, status email.Status, reason string) error
}

// ErrNotHeld is returned for an email that is not (or no longer) held.
var ErrNotHeld = errors.New("email is not held")
