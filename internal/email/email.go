// Package email is the email record of Sesame, its statuses, the stores
// that read it back and its view in the API and webhook events. Its
// routes are served by emailhttp.
package email

import (
	"context"
	"slices"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/fail"
)

// Status is where an email is in its life.
type Status string

const (
	StatusSent       Status = "sent"
	StatusDelivered  Status = "delivered"
	StatusOpened     Status = "opened"
	StatusClicked    Status = "clicked"
	StatusFailed     Status = "failed"
	StatusComplained Status = "complained"
	StatusBounced    Status = "bounced"
	StatusSuppressed Status = "suppressed"
	StatusHeld       Status = "held"
	// StatusScheduled is an email accepted with scheduled_at, waiting for
	// its time; it can be cancelled until it starts.
	StatusScheduled Status = "scheduled"
	// StatusCancelled is a scheduled email cancelled before it started.
	StatusCancelled Status = "cancelled"
)

// Statuses lists every status in the spec's order.
var Statuses = []Status{
	StatusSent, StatusDelivered, StatusOpened, StatusClicked, StatusFailed,
	StatusComplained, StatusBounced, StatusSuppressed, StatusHeld,
	StatusScheduled, StatusCancelled,
}

// Valid reports whether s is a status of the spec or of a scheduled send.
func (s Status) Valid() bool { return slices.Contains(Statuses, s) }

// Type says what produced an email.
type Type string

const (
	TypeCampaign      Type = "campaign"
	TypeAutomation    Type = "automation"
	TypeTransactional Type = "transactional"
)

// Valid reports whether t is a type of the spec.
func (t Type) Valid() bool {
	return t == TypeCampaign || t == TypeAutomation || t == TypeTransactional
}

// TrackingMode is how opens and clicks of an email are tracked.
type TrackingMode string

const (
	TrackingFull      TrackingMode = "full"
	TrackingEssential TrackingMode = "essential"
	TrackingOff       TrackingMode = "off"
)

// Valid reports whether m is a tracking mode of the spec.
func (m TrackingMode) Valid() bool {
	return m == TrackingFull || m == TrackingEssential || m == TrackingOff
}

// Email is one message and what happened to it.
type Email struct {
	ID           string
	WorkspaceID  string
	To           string
	Subject      string
	Status       Status
	Type         Type
	Environment  apikey.Environment
	SentAt       time.Time
	DeliveredAt  *time.Time
	OpenedAt     *time.Time
	ClickedAt    *time.Time
	BouncedAt    *time.Time
	ComplainedAt *time.Time
	// TrackingMode is empty on rows stored before tracking modes existed.
	TrackingMode TrackingMode
	Error        string
	// OptOutClicks counts clicks on unsubscribe links.
	OptOutClicks int
	// FirstClick is the first tracked click when it was kept on the
	// email's own record (no click record of its own: one write less);
	// nil when it was not, or not yet, clicked. MergeClicks lists it.
	FirstClick *Click
	// LastEventID and LastEventMetrics record the SES event that last
	// changed the email and the counts it owes, so a retry after a fault
	// between its writes still counts them once.
	LastEventID      string
	LastEventMetrics []string
	// Tags are the caller's metadata, at most MaxTags.
	Tags []Tag
	// ScheduledAt is when a scheduled email is due; nil when sent at once.
	ScheduledAt *time.Time
	// Source is what a campaign or automation email was rendered from,
	// so its content can be rendered again for its owner; zero on
	// transactional emails (whose content is kept) and on rows stored
	// before it.
	Source Source
	// Connection is the OAuth connection whose access token sent the
	// email; nil for a key's send and for campaign and automation emails.
	Connection *Connection
}

// Connection names an OAuth connection (an owner's grant to an
// application) as the emails it sent record it.
type Connection struct {
	GrantID    string
	ClientID   string
	ClientName string
}

// Source names the campaign, or the automation run and step, an email was
// rendered from, and its contact.
type Source struct {
	CampaignID   string
	AutomationID string
	RunID        string
	Step         int
	ContactID    string
}

// Click is one tracked click on a link of an email.
type Click struct {
	URL       string
	UserAgent string
	ClickedAt time.Time
}

// ErrNotFound is returned for an email that is absent or foreign.
var ErrNotFound error = fail.NotFound("email")

// Filter narrows a list of emails; empty fields do not filter.
type Filter struct {
	Status      Status
	Type        Type
	Environment apikey.Environment
	// Tag keeps the emails that carry this tag; zero: no tag filter.
	Tag Tag
}

// Store reads emails of one workspace.
type Store interface {
	GetEmail(ctx context.Context, workspaceID, id string) (Email, error)
	// ListEmails returns up to limit emails newest first after the email id
	// after (exclusive; "" for the first page), whether more may follow, and
	// the position to continue after.
	ListEmails(ctx context.Context, workspaceID string, f Filter, after string, limit int) (emails []Email, next string, hasMore bool, err error)
}

// Rank orders statuses along an email's life so a status never moves
// backwards: a late Delivery after an Open leaves the email opened.
func (s Status) Rank() int {
	switch s {
	case StatusHeld, StatusSuppressed, StatusScheduled, StatusCancelled:
		return 0
	case StatusSent:
		return 1
	case StatusDelivered:
		return 2
	case StatusOpened:
		return 3
	case StatusClicked:
		return 4
	case StatusBounced, StatusFailed:
		return 5
	case StatusComplained:
		return 6
	}
	return 0
}

// MaxClicks bounds one click-list read; past it the list says truncated.
const MaxClicks = 1000

// ClickStore reads an email's clicks.
type ClickStore interface {
	ListClicks(ctx context.Context, workspaceID, emailID string, limit int) ([]Click, bool, error)
}
