package devstack_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/campaign"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/campaign/engine"
	"github.com/sesame-mail/sesame/internal/devstack"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/queue/queuetest"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/sending"
)

// campaignPipeline is a dev server whose campaign emails are followed by
// the simulated SES events, with the campaign sender on the table's clock,
// the breaker on thresholds, and a throttled send tried again at once.
type campaignPipeline struct {
	*env
	clock  *dynamotest.Clock
	sends  *queue.Poller
	status *queue.Poller
}

func startCampaignPipeline(t *testing.T, th engine.Thresholds) *campaignPipeline {
	t.Helper()
	clock := dynamotest.NewClock(time.Now().UTC())
	counting := &countingTransport{t: t}
	e := newEnv(t, func(deps api.Deps, queues *queuetest.Set) (api.Deps, []httpapi.Route) {
		deps.Repos.Table.Now = clock.Now
		deps.CampaignSender.Breaker = th
		deps.CampaignSender.Sleep = func(context.Context, time.Duration) error { return nil }
		counting.Next = &devstack.SESEvents{
			Next:  deps.CampaignSender.Transport,
			Queue: &queue.Publisher{SQS: queuetest.Client(t), QueueURL: queues.URL(t, queue.SESEvents.Name)},
			Now:   clock.Now,
		}
		deps.CampaignSender.Transport = counting
		return deps, nil
	})
	p := &campaignPipeline{env: e, clock: clock,
		sends:  e.queues.Poller(t, queue.Sends.Name, api.Consumers(e.deps)[routes.CampaignSender]),
		status: e.queues.Poller(t, queue.SESEvents.Name, api.Consumers(e.deps)[routes.Status])}
	p.status.Wait = time.Millisecond // a short poll: an empty queue answers at once
	counting.status = p.status
	return p
}

// countingTransport has the status pipeline count each email's SES events
// as soon as it is sent, as if the events came back at once: the breaker's
// tally is exact at every group's check, whatever the recipients' order.
type countingTransport struct {
	t      *testing.T
	Next   sending.Transport
	status *queue.Poller
}

func (c *countingTransport) Send(ctx context.Context, in sending.SendInput) (string, error) {
	id, err := c.Next.Send(ctx, in)
	if err == nil {
		for range 50 {
			n, err := c.status.PollOnce(ctx)
			if err != nil {
				c.t.Errorf("status consumer: %v", err)
			}
			if err != nil || n == 0 {
				break
			}
		}
	}
	return id, err
}

// sendUntil polls the sends queue until the campaign is in one of
// statuses: a chunk given back for a retry comes again after its
// visibility timeout.
func (p *campaignPipeline) sendUntil(t *testing.T, key, id string, statuses ...campaign.Status) campaignBody {
	t.Helper()
	var c campaignBody
	for range 30 {
		if _, err := p.sends.PollOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		if c = p.getCampaign(t, key, id); slices.Contains(statuses, campaign.Status(c.Status)) {
			return c
		}
	}
	t.Fatalf("campaign = %+v (pause reason %v), never %v", c, deref(c.PauseReason), statuses)
	return c
}

// contactsTo creates a subscribed vip contact for each address; it returns
// their ids in order.
func (b *bulkWS) contactsTo(t *testing.T, e *env, addrs []string) []string {
	t.Helper()
	ids := make([]string, 0, len(addrs))
	for _, a := range addrs {
		ids = append(ids, e.createContact(t, b.bulkKey, map[string]any{"email": a, "tags": []string{"vip"}}).ID)
	}
	return ids
}

// campaignRecipients returns n addresses: the first bad ones are labelled
// variants of the simulator's box (bounce or complaint), the rest fresh.
func campaignRecipients(n, bad int, box string) []string {
	out := make([]string, 0, n)
	for i := range n {
		if i < bad {
			out = append(out, fmt.Sprintf("%s+%d@simulator.amazonses.com", box, i))
			continue
		}
		out = append(out, rcpt("vip"))
	}
	return out
}

// wantOneSendEach checks that every address was handed to SES exactly once.
func (p *campaignPipeline) wantOneSendEach(t *testing.T, addrs []string) {
	t.Helper()
	for _, a := range addrs {
		if got := len(p.ses.sendsTo(a)); got != 1 {
			t.Errorf("%s: %d sends, want 1", a, got)
		}
	}
}

// failingStarter is the engine's starter whose next start or schedule
// fails while fail is set, as a queue or table fault would.
type failingStarter struct {
	campaign.Starter
	fail bool
}

var errStarterDown = errors.New("the engine is unreachable")

func (f *failingStarter) Start(ctx context.Context, c campaign.Campaign) error {
	if f.fail {
		return errStarterDown
	}
	return f.Starter.Start(ctx, c)
}

func (f *failingStarter) Schedule(ctx context.Context, c campaign.Campaign) error {
	if f.fail {
		return errStarterDown
	}
	return f.Starter.Schedule(ctx, c)
}
