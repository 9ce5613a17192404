package devstack_test

// The harness of the automation end-to-end tests: a dev server wired like
// `sesame dev` (automation emails followed by simulated SES events, kept
// raw), on a clock the test moves, with the runner, the tick, the status
// consumer and the webhook dispatcher run when the test says.

import (
	"bytes"
	"context"
	"net/http"
	"net/mail"
	"regexp"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/automation/runner"
	"github.com/sesame-mail/sesame/internal/devstack"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/queue/queuetest"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/webhook"
)

type autoPipeline struct {
	*env
	clock    *dynamotest.Clock
	runner   *queue.Poller
	status   *queue.Poller
	webhooks *queue.Poller
	tick     func(context.Context) error
}

func startAutomationPipeline(t *testing.T, start time.Time) *autoPipeline {
	t.Helper()
	clock := dynamotest.NewClock(start)
	dir := t.TempDir()
	e := newEnv(t, func(deps api.Deps, queues *queuetest.Set) (api.Deps, []httpapi.Route) {
		deps.Sending.Now = clock.Now
		deps.Repos.Table.Now = clock.Now
		raw := &devstack.RawMessages{Dir: dir, Next: deps.AutomationRunner.Transport, Emails: deps.Repos.Emails}
		sesEvents := &devstack.SESEvents{
			Next:  raw,
			Queue: &queue.Publisher{SQS: queuetest.Client(t), QueueURL: queues.URL(t, queue.SESEvents.Name)},
			Now:   clock.Now,
		}
		deps.AutomationRunner.Transport = sesEvents
		deps.AutomationRunner.Captures = raw
		return deps, raw.Routes()
	})
	consume := func(ctx context.Context, b events.SQSEvent) (events.SQSEventResponse, error) {
		resp, err := queue.NewConsumer(e.deps.Status.Handle)(ctx, b)
		if err != nil || len(resp.BatchItemFailures) > 0 {
			t.Errorf("status consumer: failures %+v, err %v", resp.BatchItemFailures, err)
		}
		return resp, err
	}
	return &autoPipeline{env: e, clock: clock,
		runner:   e.queues.Poller(t, queue.Automations.Name, api.Consumers(e.deps)[routes.AutomationRunner]),
		status:   e.queues.Poller(t, queue.SESEvents.Name, consume),
		webhooks: e.queues.Poller(t, queue.Webhooks.Name, queue.NewConsumer(e.deps.Webhooks.Handle)),
		tick:     api.Ticks(e.deps)[routes.AutomationTick],
	}
}

// after moves the clock by d and does what the dev server's minute tick
// and runner do meanwhile: the tick catches up (an hour of minutes per
// call) until it reaches now, and the runner drains the queue.
func (p *autoPipeline) after(t *testing.T, d time.Duration) {
	t.Helper()
	p.clock.Set(p.clock.Now().Add(d))
	for range int(d/(runner.SweepMinutes*time.Minute)) + 2 {
		if err := p.tick(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	drainAutomations(t, p.runner)
}

// drainStatus runs the status consumer and the webhook dispatcher until
// both queues are empty.
func (p *autoPipeline) drainStatus(t *testing.T) {
	t.Helper()
	drainQueue(t, p.status, "ses-events")
	drainQueue(t, p.webhooks, "webhooks")
}

// automationEmails are the workspace's automation emails, newest first,
// as GET /api/v1/emails?type=automation lists them.
func (p *autoPipeline) automationEmails(t *testing.T, key string) listBody {
	t.Helper()
	var list listBody
	p.get(bearer(key), "/api/v1/emails?type=automation").decode(t, http.StatusOK, &list)
	return list
}

// raw reads an email's MIME as it went to SES (or was captured).
func (p *autoPipeline) raw(t *testing.T, key, emailID string) (*mail.Message, []byte) {
	t.Helper()
	r := p.get(bearer(key), "/dev/emails/"+emailID+"/raw")
	m, err := mail.ReadMessage(bytes.NewReader(r.body))
	if err != nil {
		t.Fatalf("raw %s: %d %v %s", emailID, r.status, err, r.body)
	}
	return m, r.body
}

var unsubscribeLink = regexp.MustCompile(`<(http[^>]+/unsubscribe/[^>]+)>`)

// unsubscribeURL is the one-click link of an email's List-Unsubscribe.
func unsubscribeURL(t *testing.T, m *mail.Message) string {
	t.Helper()
	got := unsubscribeLink.FindStringSubmatch(m.Header.Get("List-Unsubscribe"))
	if got == nil {
		t.Fatalf("List-Unsubscribe %q has no link", m.Header.Get("List-Unsubscribe"))
	}
	return got[1]
}

// monthlySent is the workspace's usage counter of the pipeline's month.
func (p *autoPipeline) monthlySent(t *testing.T, workspaceID string) int {
	t.Helper()
	c, err := p.store.Sends.LoadContext(t.Context(), sending.ContextQuery{WorkspaceID: workspaceID, Recipient: "x@example.com", Fingerprint: "none", Month: p.clock.Now().Format("2006-01"), ReadUsage: true})
	if err != nil {
		t.Fatal(err)
	}
	return c.MonthlySent
}

// cartAbandoned is a bulk workspace with the contact Ada, a webhook
// endpoint for email.delivered at a receiver, and the active
// cart_abandoned automation (an hour's wait, then a send).
func (p *autoPipeline) cartAbandoned(t *testing.T) (*bulkWS, contactBody, *receiver, automation.Automation) {
	t.Helper()
	ctx := t.Context()
	b := newBulkWS(t, p.env)
	c := p.createContact(t, b.bulkKey, map[string]any{"email": rcpt("ada"), "first_name": "Ada"})
	rcv := startReceiver(t)
	hooks := &webhook.Service{Endpoints: p.store.Webhooks, Attempts: p.store.Webhooks}
	if _, err := hooks.Add(ctx, webhook.EndpointRequest{WorkspaceID: b.id, URL: rcv.url, Events: []string{"email.delivered"}, AllowInsecureHTTP: true}); err != nil {
		t.Fatal(err)
	}
	a, err := p.automations().Create(ctx, automation.AutomationRequest{WorkspaceID: b.id, Blueprint: "cart_abandoned"})
	if err != nil {
		t.Fatal(err)
	}
	if a, err = p.automations().Activate(ctx, b.id, a.ID); err != nil || a.Status != automation.StatusActive {
		t.Fatalf("activate: %+v, %v", a, err)
	}
	return b, c, rcv, a
}
