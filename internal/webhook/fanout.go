package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/sesame-mail/sesame/internal/event"
)

// JobQueue takes webhook jobs, JSON texts, in as few calls as it can
// (queue.BatchPublisher in production).
type JobQueue interface {
	EnqueueAll(ctx context.Context, bodies [][]byte) error
}

// Fanout is the event.Publisher of webhooks: it enqueues one job per
// enabled endpoint of the event's workspace subscribed to its type.
// Publishing an event twice enqueues it twice; the dispatcher drops the
// duplicate of a delivered event.
type Fanout struct {
	Endpoints EndpointLister
	Queue     JobQueue
}

var _ event.Publisher = (*Fanout)(nil)

// Publish enqueues e for every subscribed endpoint.
func (f *Fanout) Publish(ctx context.Context, e event.Event) error {
	if e.WorkspaceID == "" || e.ID == "" || !e.Type.Valid() {
		return fmt.Errorf("publish webhook event: incomplete event (id %q, type %q)", e.ID, e.Type)
	}
	endpoints, err := f.Endpoints.ListEndpoints(ctx, e.WorkspaceID)
	if err != nil {
		return fmt.Errorf("publish webhook event: %w", err)
	}
	var targets []Endpoint
	for _, ep := range endpoints {
		if ep.Enabled && ep.Subscribed(e.Type) {
			targets = append(targets, ep)
		}
	}
	if len(targets) == 0 {
		return nil
	}
	body, err := e.Body()
	if err != nil {
		return err
	}
	if !utf8.Valid(body) { // a JSON string could not carry it byte for byte
		return errors.New("publish webhook event: body is not UTF-8")
	}
	jobs := make([][]byte, 0, len(targets))
	for _, ep := range targets {
		msg, err := json.Marshal(Job{
			WorkspaceID: e.WorkspaceID, EndpointID: ep.ID, EventID: e.ID, EventType: e.Type, Payload: string(body),
		})
		if err != nil {
			return err
		}
		jobs = append(jobs, msg)
	}
	if err := f.Queue.EnqueueAll(ctx, jobs); err != nil {
		return fmt.Errorf("enqueue webhook jobs: %w", err)
	}
	return nil
}
