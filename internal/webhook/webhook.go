// Package webhook pushes delivery and engagement events to the endpoints a
// workspace owner configured: the fan-out turns one event into one queue
// job per subscribed endpoint, and the dispatcher POSTs each job, signed,
// retrying on the queue's clock (message visibility), not in a sleeping
// function. The POSTs go through a Poster (post.Client: net/http behind a
// dial-time SSRF guard), the jobs through a JobQueue and a Postponer
// (internal/queue's SQS adapters).
package webhook

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"time"

	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/fail"
)

// Request headers of every delivery (the spec's Events section).
const (
	HeaderSignature = "X-Service-Signature"
	HeaderEventID   = "X-Service-Event-Id"
	HeaderEventType = "X-Service-Event-Type"
	UserAgent       = "Sesame-Webhooks/1 (+https://github.com/sesame-mail/sesame)"
)

// AutoDisableReason is recorded on an endpoint disabled because one event
// exhausted its retry schedule without the endpoint succeeding meanwhile.
const AutoDisableReason = "every delivery attempt failed for 3 days"

// OwnerDisableReason is recorded when the owner disables an endpoint.
const OwnerDisableReason = "disabled by the workspace owner"

// RecordTTL is how long attempt logs and delivery (dedupe) records are
// kept; DynamoDB TTL deletes them some time after.
const RecordTTL = 30 * 24 * time.Hour

var (
	// ErrEndpointNotFound: no such endpoint in the workspace.
	ErrEndpointNotFound error = fail.NotFound("webhook endpoint")
	// ErrInvalidURL: an endpoint URL refused at add time.
	ErrInvalidURL = errors.New("invalid webhook URL")
	// ErrUnknownEventType: an event type that is not one of the six.
	ErrUnknownEventType = errors.New("unknown event type")
)

// RotationOverlap is how long the secret replaced by a rotation still
// signs deliveries beside the new one, so a receiver can switch to the new
// secret without refusing an event.
const RotationOverlap = 24 * time.Hour

// Endpoint is a workspace's webhook endpoint. Its signing secret is kept
// (the spec makes it retrievable later) but never marshalled to JSON nor
// logged: read Secret explicitly.
type Endpoint struct {
	ID          string `json:"id"`
	WorkspaceID string `json:"workspace_id"`
	URL         string `json:"url"`
	Secret      string `json:"-"`
	// PreviousSecret is the secret the last rotation replaced; it signs
	// beside Secret until PreviousSecretUntil (see SigningSecrets).
	PreviousSecret      string     `json:"-"`
	PreviousSecretUntil *time.Time `json:"previous_secret_until,omitempty"`
	// Events are the subscribed types; empty means all six.
	Events              []event.Type `json:"events"`
	Enabled             bool         `json:"enabled"`
	DisabledReason      string       `json:"disabled_reason,omitempty"`
	CreatedAt           time.Time    `json:"created_at"`
	LastSuccessAt       *time.Time   `json:"last_success_at"`
	ConsecutiveFailures int          `json:"consecutive_failures"`
}

// Subscribed reports whether the endpoint wants events of type t.
func (e Endpoint) Subscribed(t event.Type) bool {
	return len(e.Events) == 0 || slices.Contains(e.Events, t)
}

// SigningSecrets are the secrets that sign a delivery made at now, newest
// first: the current secret, and the one a rotation replaced while its
// overlap lasts (until PreviousSecretUntil, excluded).
func (e Endpoint) SigningSecrets(now time.Time) []string {
	secrets := []string{e.Secret}
	if e.PreviousSecret != "" && e.PreviousSecretUntil != nil && now.Before(*e.PreviousSecretUntil) {
		secrets = append(secrets, e.PreviousSecret)
	}
	return secrets
}

// LogValue keeps the secret and the URL (which may carry a token in its
// query) out of log lines.
func (e Endpoint) LogValue() slog.Value {
	return slog.GroupValue(slog.String("id", e.ID), slog.String("workspace_id", e.WorkspaceID), slog.Bool("enabled", e.Enabled))
}

// Attempt is one POST of one event to one endpoint, kept for the owner's
// delivery log.
type Attempt struct {
	WorkspaceID string     `json:"-"`
	EndpointID  string     `json:"endpoint_id"`
	EventID     string     `json:"event_id"`
	EventType   event.Type `json:"event_type"`
	// EmailID is the email the event is about; empty for an attempt of a
	// job enqueued before jobs carried it.
	EmailID    string    `json:"email_id,omitempty"`
	Number     int       `json:"attempt"`
	At         time.Time `json:"at"`
	StatusCode int       `json:"status_code"` // 0 when no response came
	LatencyMS  int64     `json:"latency_ms"`
	Error      string    `json:"error,omitempty"` // short, safe to show; empty on success
}

// Succeeded reports whether the attempt got a 2xx answer.
func (a Attempt) Succeeded() bool { return a.Error == "" && a.StatusCode >= 200 && a.StatusCode <= 299 }

// Job is the body of one webhooks queue message: one event for one
// endpoint. Payload holds the exact request body (the event envelope) as a
// JSON string, so it survives the queue byte for byte (the SQS adapter
// writes the message in ASCII, \uXXXX escapes, which SQS always accepts).
type Job struct {
	WorkspaceID string     `json:"workspace_id"`
	EndpointID  string     `json:"endpoint_id"`
	EventID     string     `json:"event_id"`
	EventType   event.Type `json:"event_type"`
	// EmailID is the event's email (its data's id), kept on each attempt
	// so an email's deliveries can be found; "" for an event of no email.
	EmailID string `json:"email_id,omitempty"`
	Payload string `json:"payload"`
	// Again marks a job of an event published before (the status
	// pipeline's retry): an earlier job may have delivered it.
	Again bool `json:"again,omitempty"`
}

// EndpointLister lists a workspace's endpoints (the fan-out's read).
type EndpointLister interface {
	ListEndpoints(ctx context.Context, workspaceID string) ([]Endpoint, error)
}

// DispatchStore is what the dispatcher reads and writes.
type DispatchStore interface {
	// GetEndpoint returns ErrEndpointNotFound when absent.
	GetEndpoint(ctx context.Context, workspaceID, id string) (Endpoint, error)
	// DeliveredSince reports whether the endpoint's attempt log has a
	// successful attempt of the event (of the email, which places it in
	// the log) at or after since (an attempt log item is the only record
	// of a delivery).
	DeliveredSince(ctx context.Context, workspaceID, endpointID, emailID, eventID string, since time.Time) (bool, error)
	// RecordAttempts adds a batch's attempts to their endpoints' logs.
	RecordAttempts(ctx context.Context, attempts []Attempt) error
	// EndpointSucceeded resets the failure count and sets the last success;
	// EndpointFailed counts a failure. Both ignore a removed endpoint.
	EndpointSucceeded(ctx context.Context, workspaceID, id string, at time.Time) error
	EndpointFailed(ctx context.Context, workspaceID, id string) error
	// DisableFailingEndpoint disables an enabled endpoint unless it
	// succeeded at or after since; it reports whether it disabled it.
	DisableFailingEndpoint(ctx context.Context, workspaceID, id, reason string, since time.Time) (bool, error)
}
