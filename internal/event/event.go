// Package event is the delivery and engagement event of an email: the
// envelope of the events feed (GET /api/v1/events) and of webhook payloads.
package event

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/timestamp"
)

// Type is one of the spec's six event types.
type Type string

const (
	Delivered  Type = "email.delivered"
	Bounced    Type = "email.bounced"
	Complained Type = "email.complained"
	Failed     Type = "email.failed"
	Opened     Type = "email.opened"
	Clicked    Type = "email.clicked"
)

// Types lists every event type.
var Types = []Type{Delivered, Bounced, Complained, Failed, Opened, Clicked}

// Valid reports whether t is one of the six types.
func (t Type) Valid() bool { return slices.Contains(Types, t) }

// Event is one feed item: its id is stable (derived from the SES event), so
// a redelivered SES event maps to the same event and webhook retries carry
// the same id.
type Event struct {
	ID          string // evt_…
	WorkspaceID string
	Type        Type
	CreatedAt   time.Time
	// Data is the email as it was right after the event; nil for the rare
	// event with no associated message.
	Data *email.View
	// Raw, when set, is the envelope as first recorded: a republished event
	// carries exactly that, whatever happened to the email since.
	Raw []byte
	// Again marks an event published before (a retry of the status
	// pipeline): an earlier publication may have been delivered.
	Again bool
}

// Envelope is the JSON shape of an event in the feed and in webhooks.
type Envelope struct {
	ID        string      `json:"id"`
	Type      Type        `json:"type"`
	CreatedAt string      `json:"created_at"`
	Data      *email.View `json:"data"`
}

// Envelope renders e.
func (e Event) Envelope() Envelope {
	return Envelope{ID: e.ID, Type: e.Type, CreatedAt: timestamp.Format(e.CreatedAt), Data: e.Data}
}

// Body is the exact webhook request body of e.
func (e Event) Body() ([]byte, error) {
	if e.Raw != nil {
		return e.Raw, nil
	}
	return json.Marshal(e.Envelope())
}

// Publisher hands events to whatever pushes them out (the webhook
// fan-out), a batch at once. Publishing the same event twice must be
// harmless: deliveries are deduplicated per event and endpoint.
type Publisher interface {
	Publish(ctx context.Context, events ...Event) error
}

// Store reads the events feed: stored envelopes, newest first.
type Store interface {
	ListEvents(ctx context.Context, workspaceID, after string, limit int) (bodies [][]byte, next string, hasMore bool, err error)
}
