package webhook

import (
	"cmp"
	"context"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sesame-mail/sesame/internal/email"
)

// EmailAttemptReader finds an endpoint's attempts of one email made since
// a time, oldest first, examining at most examine attempts (complete says
// it read to the end).
type EmailAttemptReader interface {
	EmailAttempts(ctx context.Context, workspaceID, endpointID, emailID string, since time.Time, examine int) (attempts []Attempt, complete bool, err error)
}

// EmailDeliveriesExamined bounds the log items one look at an email's
// deliveries examines, over all endpoints (at most ≈ 125 read units, an
// item of a batch's attempts being ≈ 1 KB): each endpoint gets an equal
// share, at least emailDeliveriesShareMin, and at most
// EmailDeliveriesEndpoints endpoints are searched.
const (
	EmailDeliveriesExamined  = 1000
	EmailDeliveriesEndpoints = 20
	emailDeliveriesShareMin  = 50
	// emailDeliveriesInFlight endpoints are searched at once.
	emailDeliveriesInFlight = 4
)

// EmailDelivery is one attempt to deliver an event of the email to an
// endpoint of the workspace.
type EmailDelivery struct {
	Attempt
	EndpointURL string `json:"endpoint_url"`
}

// EmailDeliveries are an email's webhook delivery attempts, oldest first.
type EmailDeliveries struct {
	Attempts []EmailDelivery `json:"attempts"`
	// Partial says the search stopped before the end: on some endpoint at
	// its share of EmailDeliveriesExamined, or past EmailDeliveriesEndpoints
	// endpoints. Later attempts may be missing.
	Partial bool `json:"partial"`
}

// DeliveriesOf finds the webhook delivery attempts of m, an email already
// read for its workspace: on the endpoints the workspace has now, from
// the email's sending on, oldest first. Attempts of jobs enqueued before
// jobs carried their email are not found; attempts expire after 30 days.
func (w *Service) DeliveriesOf(ctx context.Context, m email.Email) (EmailDeliveries, error) {
	out := EmailDeliveries{Attempts: []EmailDelivery{}}
	if m.SentAt.IsZero() { // never sent: no event, no delivery
		return out, nil
	}
	endpoints, err := w.Endpoints.ListEndpoints(ctx, m.WorkspaceID)
	if err != nil {
		return out, err
	}
	if len(endpoints) > EmailDeliveriesEndpoints {
		endpoints, out.Partial = endpoints[:EmailDeliveriesEndpoints], true
	}
	share := max(EmailDeliveriesExamined/max(len(endpoints), 1), emailDeliveriesShareMin)
	found := make([][]Attempt, len(endpoints))
	complete := make([]bool, len(endpoints))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(emailDeliveriesInFlight)
	for i, ep := range endpoints {
		g.Go(func() error {
			var err error
			found[i], complete[i], err = w.EmailAttempts.EmailAttempts(gctx, m.WorkspaceID, ep.ID, m.ID, m.SentAt, share)
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
