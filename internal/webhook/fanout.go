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

// Publish enqueues each event for every subscribed endpoint: the
// endpoints of a workspace are read once, and the jobs of all the events
// go together (queue.BatchPublisher sends 10 a request).
func (f *Fanout) Publish(ctx context.Context, events ...event.Event) error {
	endpoints := map[string][]Endpoint{}
	var jobs [][]byte
	for _, e := range events {
		if e.WorkspaceID == "" || e.ID == "" || !e.Type.Valid() {
			return fmt.Errorf("publish webhook event: incomplete event (id %q, type %q)", e.ID, e.Type)
		}
		eps, ok := endpoints[e.WorkspaceID]
		if !ok {
			var err error
			if eps, err = f.Endpoints.ListEndpoints(ctx, e.WorkspaceID); err != nil {
				return fmt.Errorf("publish webhook event: %w", err)
			}
			endpoints[e.WorkspaceID] = eps
		}
		more, err := jobsOf(e, eps)
		if err != nil {
			return err
		}
		jobs = append(jobs, more...)
	}
	if len(jobs) == 0 {
		return nil
	}
	if err := f.Queue.EnqueueAll(ctx, jobs); err != nil {
		return fmt.Errorf("enqueue webhook jobs: %w", err)
	}
	return nil
}

// jobsOf is one job of e for each enabled endpoint subscribed to its type.
func jobsOf(e event.Event, endpoints []Endpoint) ([][]byte, error) {
	var targets []Endpoint
	for _, ep := range endpoints {
		if ep.Enabled && ep.Subscribed(e.Type) {
			targets = append(targets, ep)
		}
	}
	if len(targets) == 0 {
		return nil, nil
	}
	body, err := e.Body()
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(body) { // a JSON string could not carry it byte for byte
		return nil, errors.New("publish webhook event: body is not UTF-8")
	}
	var emailID string
	if e.Data != nil {
		emailID = e.Data.ID
	}
	jobs := make([][]byte, 0, len(targets))
	for _, ep := range targets {
		msg, err := json.Marshal(Job{
			WorkspaceID: e.WorkspaceID, EndpointID: ep.ID, EventID: e.ID, EventType: e.Type, EmailID: emailID,
			Payload: string(body), Again: e.Again,
		})
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, msg)
	}
	return jobs, nil
}
