package owner

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/sesame-mail/sesame/internal/webhook"
)

// DeliveryStore finds an email's webhook delivery attempts: the
// workspace's endpoints, and an endpoint's attempts of one email made
// since a time, oldest first, examining at most examine attempts
// (complete says it read to the end).
type DeliveryStore interface {
	ListEndpoints(ctx context.Context, workspaceID string) ([]webhook.Endpoint, error)
	EmailAttempts(ctx context.Context, workspaceID, endpointID, emailID string, since time.Time, examine int) (attempts []webhook.Attempt, complete bool, err error)
}

// DeliveriesExamined bounds the attempts an email's deliveries examine per
// endpoint (about 30 read units each): the attempts of every email the
// endpoint heard of since this one was sent, oldest first.
const DeliveriesExamined = 1000

// EmailDelivery is one attempt to deliver an event of the email to an
// endpoint of the workspace.
type EmailDelivery struct {
	webhook.Attempt
	EndpointURL string `json:"endpoint_url"`
}

// EmailDeliveries are an email's webhook delivery attempts, oldest first.
type EmailDeliveries struct {
	Attempts []EmailDelivery `json:"attempts"`
	// Partial says the search stopped at DeliveriesExamined attempts on
	// some endpoint before its newest: later attempts may be missing.
	Partial bool `json:"partial"`
}

// Deliveries finds the webhook delivery attempts of one email of the
// workspace (its id in any case; another workspace's is
// email.ErrNotFound): on each endpoint the workspace has now, from the
// email's sending on, oldest first. Attempts of jobs enqueued before jobs
// carried their email are not found; attempts expire after 30 days.
func (e *Emails) Deliveries(ctx context.Context, workspaceID, emailID string) (EmailDeliveries, error) {
	out := EmailDeliveries{Attempts: []EmailDelivery{}}
	m, err := e.get(ctx, workspaceID, emailID)
	if err != nil {
		return EmailDeliveries{}, err
	}
	if m.SentAt.IsZero() { // never sent: no event, no delivery
		return out, nil
	}
	endpoints, err := e.Webhooks.ListEndpoints(ctx, workspaceID)
	if err != nil {
		return out, err
	}
	for _, ep := range endpoints {
		attempts, complete, err := e.Webhooks.EmailAttempts(ctx, workspaceID, ep.ID, m.ID, m.SentAt, DeliveriesExamined)
		if err != nil {
			return EmailDeliveries{}, err
		}
		out.Partial = out.Partial || !complete
		for _, a := range attempts {
			out.Attempts = append(out.Attempts, EmailDelivery{Attempt: a, EndpointURL: ep.URL})
		}
	}
	slices.SortStableFunc(out.Attempts, func(a, b EmailDelivery) int {
		return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.EndpointURL, b.EndpointURL))
	})
	return out, nil
}
