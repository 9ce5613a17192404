package owner

import (
	"cmp"
	"context"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sesame-mail/sesame/internal/email"
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

// DeliveriesExamined bounds the attempts one look at an email's deliveries
// examines, over all endpoints (about 30 read units): each endpoint gets
// an equal share, at least deliveriesShareMin, and at most
// DeliveriesEndpoints endpoints are searched.
const (
	DeliveriesExamined  = 1000
	DeliveriesEndpoints = 20
	deliveriesShareMin  = 50
	// deliveriesInFlight endpoints are searched at once.
	deliveriesInFlight = 4
)

// EmailDelivery is one attempt to deliver an event of the email to an
// endpoint of the workspace.
type EmailDelivery struct {
	webhook.Attempt
	EndpointURL string `json:"endpoint_url"`
}

// EmailDeliveries are an email's webhook delivery attempts, oldest first.
type EmailDeliveries struct {
	Attempts []EmailDelivery `json:"attempts"`
	// Partial says the search stopped before the end: on some endpoint at
	// its share of DeliveriesExamined, or past DeliveriesEndpoints
	// endpoints. Later attempts may be missing.
	Partial bool `json:"partial"`
}

// Deliveries finds the webhook delivery attempts of one email of the
// workspace (its id in any case; another workspace's is
// email.ErrNotFound); see DeliveriesOf.
func (e *Emails) Deliveries(ctx context.Context, workspaceID, emailID string) (EmailDeliveries, error) {
	m, err := e.get(ctx, workspaceID, emailID)
	if err != nil {
		return EmailDeliveries{}, err
	}
	return e.DeliveriesOf(ctx, m)
}

// DeliveriesOf finds the webhook delivery attempts of m, an email already
// read for its workspace: on the endpoints the workspace has now, from
// the email's sending on, oldest first. Attempts of jobs enqueued before
// jobs carried their email are not found; attempts expire after 30 days.
func (e *Emails) DeliveriesOf(ctx context.Context, m email.Email) (EmailDeliveries, error) {
	out := EmailDeliveries{Attempts: []EmailDelivery{}}
	if m.SentAt.IsZero() { // never sent: no event, no delivery
		return out, nil
	}
	endpoints, err := e.Webhooks.ListEndpoints(ctx, m.WorkspaceID)
	if err != nil {
		return out, err
	}
	if len(endpoints) > DeliveriesEndpoints {
		endpoints, out.Partial = endpoints[:DeliveriesEndpoints], true
	}
	share := max(DeliveriesExamined/max(len(endpoints), 1), deliveriesShareMin)
	found := make([][]webhook.Attempt, len(endpoints))
	complete := make([]bool, len(endpoints))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(deliveriesInFlight)
	for i, ep := range endpoints {
		g.Go(func() error {
			var err error
			found[i], complete[i], err = e.Webhooks.EmailAttempts(gctx, m.WorkspaceID, ep.ID, m.ID, m.SentAt, share)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return EmailDeliveries{}, err
	}
	for i, ep := range endpoints {
		out.Partial = out.Partial || !complete[i]
		for _, a := range found[i] {
			out.Attempts = append(out.Attempts, EmailDelivery{Attempt: a, EndpointURL: ep.URL})
		}
	}
	slices.SortStableFunc(out.Attempts, func(a, b EmailDelivery) int {
		return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.EndpointURL, b.EndpointURL))
	})
	return out, nil
}
