package devstack_test

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/campaign/engine"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/emulatortest"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/sending"
)

// storeOutage is how long the table stops answering.
const storeOutage = 10 * time.Second

// storePause makes e's table hang (every call ends at the SDK's bounds)
// for storeOutage from each start.
type storePause struct {
	stalled *emulatortest.Stalled
	until   atomic.Int64 // unix nanoseconds
}

func pausable(t *testing.T, e *env) *storePause {
	t.Helper()
	p := &storePause{stalled: emulatortest.NewStalled(t)}
	hung := dynamodb.NewFromConfig(wire.Bound(p.stalled.Config(), shortBounds))
	e.rec.Via = func(string) dynamo.DB {
		if time.Now().UnixNano() < p.until.Load() {
			return hung
		}
		return nil
	}
	return p
}

func (p *storePause) start() { p.until.Store(time.Now().Add(storeOutage).UnixNano()) }

func (p *storePause) paused() bool { return time.Now().UnixNano() < p.until.Load() }

// pollUntil polls q until done, failing the test when a minute has passed
// since the pause ended (the queue's visibility timeout, as in
// production, would take far longer).
func (p *storePause) pollUntil(t *testing.T, q *queue.Poller, what string, done func() bool) {
	t.Helper()
	for p.paused() || !done() {
		if until := p.until.Load(); until != 0 && time.Since(time.Unix(0, until)) > time.Minute {
			t.Fatalf("a minute after the outage: %s", what)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		_, err := q.PollOnce(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
	}
	if p.stalled.Accepted() == 0 {
		t.Fatal("the store never paused")
	}
}

// productionVisibility gives queue name of e its production visibility
// timeout (the tests' queues give a message back in a second).
func productionVisibility(t *testing.T, e *env, d queue.Def) {
	t.Helper()
	if _, err := e.queues.SQS.SetQueueAttributes(t.Context(), &sqs.SetQueueAttributesInput{
		QueueUrl:   aws.String(e.queues.URL(t, d.Name)),
		Attributes: map[string]string{string(sqstypes.QueueAttributeNameVisibilityTimeout): strconv.Itoa(int(d.VisibilityTimeout / time.Second))},
	}); err != nil {
		t.Fatal(err)
	}
}

// A 10 s DynamoDB pause during a 300-recipient campaign costs seconds,
// not the sends queue's ten-minute visibility timeout: the chunk that met
// it comes back after short, growing waits, and the campaign is sent
// within a minute of the pause ending, every recipient once.
func TestCampaignStoreOutageCostsSeconds(t *testing.T) {
	t.Parallel()
	p := startCampaignPipeline(t, engine.DefaultThresholds)
	productionVisibility(t, p.env, queue.Sends)
	b := newBulkWS(t, p.env)
	addrs := campaignRecipients(300, 0, "")
	b.contactsTo(t, p.env, addrs)
	d := b.draft(t, p.env, b.segment(t, p.env, nil))

	// The 60th email handed to SES pauses the table.
	pause := pausable(t, p.env)
	var sent atomic.Int32
	p.ses.setFail(func(sending.SendInput) error {
		if sent.Add(1) == 60 {
			pause.start()
		}
		return nil
	})
	if _, err := p.approvals(p.deps.CampaignStarter).Approve(t.Context(), b.id, d.ApprovalID, nil); err != nil {
		t.Fatal(err)
	}
	var c campaignBody
	pause.pollUntil(t, p.sends, "the campaign is not sent", func() bool {
		c = p.getCampaign(t, b.bulkKey, d.ApprovalID)
		return c.Status == string(campaign.StatusSent)
	})
	if c.SentCount != 300 {
		t.Errorf("campaign %+v, want 300 sent", c)
	}
	p.wantOneSendEach(t, addrs)
}

// The same pause costs an automation's send step and a webhook delivery
// seconds too: the wake-up and the webhook job that met it come back
// after short waits, with the queues' production visibility timeouts.
func TestAutomationAndWebhookStoreOutageCostsSeconds(t *testing.T) {
	t.Parallel()
	p := startAutomationPipeline(t, pipelineStart)
	productionVisibility(t, p.env, queue.Automations)
	productionVisibility(t, p.env, queue.Webhooks)
	ctx := t.Context()
	b, c, rcv, _ := p.cartAbandoned(t)
	wantRuns(t, p.report(t, b.key, event("cart_abandoned", "order-1", c.ID, map[string]any{"product_name": "a lamp"})), automation.OutcomeStarted)
	drainAutomations(t, p.runner) // the run waits an hour

	// The hour passes; the tick queues the wake-up, then the table pauses.
	p.clock.Set(p.clock.Now().Add(time.Hour))
	for range 3 {
		if err := p.tick(ctx); err != nil {
			t.Fatal(err)
		}
	}
	pause := pausable(t, p.env)
	pause.start()
	pause.pollUntil(t, p.runner, "the send step has not sent", func() bool { return len(p.ses.sendsTo(c.Email)) == 1 })

	drainQueue(t, p.status, "ses-events") // the Delivery event queues the webhook job
	pause.start()
	pause.pollUntil(t, p.webhooks, "the webhook is not delivered", func() bool { return len(rcv.received()) == 1 })
}
