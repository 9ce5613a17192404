package devstack_test

// The delivery pipeline's harness: a dev server whose sends are followed by
// simulated SES events, and the readers of the events feed, the metrics and
// the click list.

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/devstack"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/queue/queuetest"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/webhook"
)

// pipeline is a dev server wired like `sesame dev`: SES sends are followed
// by simulated SES events on a ses-events queue of the test's own, and the
// dev-only open and click routes are mounted. The status consumer runs only
// when the test drains the queue. Sends and simulated events run on a fixed
// clock starting at 2026-11-22 10:00 UTC.
type pipeline struct {
	*env
	clock    *dynamotest.Clock
	status   *queue.Poller
	webhooks *queue.Poller
}

var pipelineStart = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func startPipeline(t *testing.T) *pipeline {
	t.Helper()
	clock := dynamotest.NewClock(pipelineStart)
	e := newEnv(t, func(deps api.Deps, queues *queuetest.Set) (api.Deps, []httpapi.Route) {
		deps.Sending.Now = clock.Now
		sesEvents := &devstack.SESEvents{
			Next:  deps.Sending.Transport,
			Queue: &queue.Publisher{SQS: queuetest.Client(t), QueueURL: queues.URL(t, queue.SESEvents.Name)},
			Now:   clock.Now,
		}
		deps.Sending.Transport = sesEvents
		return deps, devstack.Engagement{Emails: deps.Repos.Emails, Events: sesEvents}.Routes()
	})
	consume := func(ctx context.Context, b events.SQSEvent) (events.SQSEventResponse, error) {
		resp, err := api.Consumers(e.deps)[routes.Status](ctx, b)
		if err != nil || len(resp.BatchItemFailures) > 0 {
			t.Errorf("status consumer: failures %+v, err %v", resp.BatchItemFailures, err)
		}
		return resp, err
	}
	return &pipeline{env: e, clock: clock, status: e.queues.Poller(t, queue.SESEvents.Name, consume),
		webhooks: e.queues.Poller(t, queue.Webhooks.Name, api.Consumers(e.deps)[routes.WebhookDispatch])}
}

// drain runs the status consumer until it has taken n SES events.
func (p *pipeline) drain(t *testing.T, n int) {
	t.Helper()
	got := 0
	for i := 0; got < n && i < 20; i++ {
		k, err := p.status.PollOnce(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		got += k
	}
	if got != n {
		t.Fatalf("ses-events queue gave %d messages, want %d", got, n)
	}
}

// send posts a plain send with the key and checks it was sent.
func (p *pipeline) send(t *testing.T, key string, req map[string]any) string {
	t.Helper()
	b := p.postTo(t, p.url, key, "/api/v1/send", req).sent(t, http.StatusOK)
	b.want(t, true, "sent")
	return b.ID
}

// devPost posts to a dev-only route as a mail client would.
func (p *pipeline) devPost(t *testing.T, key, path string) response {
	t.Helper()
	return p.postTo(t, p.url, key, path, nil, "User-Agent", "pipeline-test/1.0")
}

// feedItem is one envelope of GET /api/v1/events.
type feedItem struct {
	ID        string         `json:"id"`
	Type      string         `json:"type"`
	CreatedAt string         `json:"created_at"`
	Data      map[string]any `json:"data"`
}

type feedPage struct {
	Data       []feedItem `json:"data"`
	HasMore    bool       `json:"has_more"`
	NextCursor *string    `json:"next_cursor"`
}

func (p *pipeline) feed(t *testing.T, key, query string) feedPage {
	t.Helper()
	r := p.get(bearer(key), "/api/v1/events"+query)
	var f feedPage
	r.decode(t, http.StatusOK, &f)
	if f.Data == nil {
		t.Fatalf("events data is not an array: %s", r.body)
	}
	return f
}

// types lists the feed's event types in order.
func (f feedPage) types() []string {
	out := []string{}
	for _, it := range f.Data {
		out = append(out, it.Type)
	}
	return out
}

type metricsReport struct {
	Totals map[string]int `json:"totals"`
	Days   []struct {
		Date   string         `json:"date"`
		Counts map[string]int `json:"counts"`
	} `json:"days"`
}

func (p *pipeline) metrics(t *testing.T, key, query string) metricsReport {
	t.Helper()
	var b struct {
		Data metricsReport `json:"data"`
	}
	p.get(bearer(key), "/api/v1/metrics"+query).decode(t, http.StatusOK, &b)
	return b.Data
}

// totals is a metrics total: every counted metric, zero unless given.
func totals(kv ...any) map[string]int {
	c := map[string]int{"sent": 0, "delivered": 0, "opened": 0, "clicked": 0, "bounced": 0, "complained": 0, "failed": 0}
	for i := 0; i+1 < len(kv); i += 2 {
		c[kv[i].(string)] = kv[i+1].(int)
	}
	return c
}

type clickList struct {
	Data []struct {
		URL           *string `json:"url"`
		ClickedAt     string  `json:"clicked_at"`
		UserAgent     *string `json:"user_agent"`
		Reconstructed bool    `json:"reconstructed"`
	} `json:"data"`
	OptOutClicks int  `json:"opt_out_clicks"`
	Truncated    bool `json:"truncated"`
}

func (p *pipeline) clicks(t *testing.T, key, id string) clickList {
	t.Helper()
	r := p.get(bearer(key), "/api/v1/emails/"+id+"/clicks")
	var c clickList
	r.decode(t, http.StatusOK, &c)
	if c.Data == nil {
		t.Fatalf("clicks data is not an array: %s", r.body)
	}
	return c
}

// endpoint stores an enabled endpoint of the workspace at url (http and
// loopback allowed), subscribed to events (none: all).
func (e *env) endpoint(t *testing.T, workspaceID, url string, events ...string) webhook.Endpoint {
	t.Helper()
	ep, err := webhook.NewEndpoint(workspaceID, url, events, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.Webhooks.CreateEndpoint(t.Context(), ep); err != nil {
		t.Fatal(err)
	}
	return ep
}
