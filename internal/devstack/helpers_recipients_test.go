package devstack_test

// The harness of the recipients' checks: a dev server wired like `sesame
// dev` (every message kept raw as it went to SES or was captured), whose
// messages are read back with internal/emulatortest/inbox as recipients
// get them.

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/campaign/engine"
	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/devstack"
	"github.com/sesame-mail/sesame/internal/emulatortest/inbox"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/queue/batch"
	"github.com/sesame-mail/sesame/internal/queue/queuetest"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/sending/listmail"
	"github.com/sesame-mail/sesame/internal/unsubscribe"
)

// keptEnv is a dev server whose messages are kept raw, on a clock the
// test moves, with the consumers run when the test says.
type keptEnv struct {
	*env
	dir    string
	clock  *movingClock
	sends  *queue.Poller // campaign chunks
	runner *queue.Poller // automation steps
	status *queue.Poller // SES events (with a breaker only)
	tick   func(context.Context) error
	// campaignSent counts the campaign emails handed to SES.
	campaignSent atomic.Int64
	// started is when the env started: the SES emulator's messages
	// since then are read (its store is shared by every test).
	started time.Time
}

// startKept starts a keptEnv. With breaker set, the campaign sender trips
// on it, and each campaign email's simulated SES events are counted as
// soon as it goes (countingTransport).
func startKept(t *testing.T, breaker *engine.Thresholds) *keptEnv {
	t.Helper()
	// The emulator stamps whole seconds; a second earlier is safe.
	k := &keptEnv{dir: t.TempDir(), clock: &movingClock{}, started: time.Now().Add(-time.Second)}
	counting := &countingTransport{t: t}
	e := newEnv(t, func(deps api.Deps, queues *queuetest.Set) (api.Deps, []httpapi.Route) {
		deps.Sending.Now = k.clock.Now
		deps.Repos.Table.Now = k.clock.Now
		raw := &devstack.RawMessages{Dir: k.dir, Next: deps.Sending.Transport, Emails: deps.Repos.Emails}
		deps.Sending.Transport, deps.AutomationRunner.Transport, deps.CampaignSender.Transport = raw, raw, raw
		deps.Sending.Captures, deps.AutomationRunner.Captures = raw, raw
		if breaker != nil {
			counting.Next = &devstack.SESEvents{
				Next:  raw,
				Queue: &queue.Publisher{SQS: queuetest.Client(t), QueueURL: queues.URL(t, queue.SESEvents.Name)},
				Now:   k.clock.Now,
			}
			deps.CampaignSender.Transport = counting
			deps.CampaignSender.Breaker = *breaker
			deps.CampaignSender.Sleep = func(context.Context, time.Duration) error { return nil }
		}
		deps.CampaignSender.Transport = tally{Next: deps.CampaignSender.Transport, n: &k.campaignSent}
		return deps, raw.Routes()
	})
	k.env = e
	consumers := api.Consumers(e.deps)
	k.sends = e.queues.Poller(t, queue.Sends.Name, consumers[routes.CampaignSender])
	k.runner = e.queues.Poller(t, queue.Automations.Name, consumers[routes.AutomationRunner])
	k.status = e.queues.Poller(t, queue.SESEvents.Name, consumers[routes.Status])
	k.status.Wait = time.Millisecond
	counting.status = k.status
	k.tick = api.Ticks(e.deps)[routes.AutomationTick]
	return k
}

// shortInvocations is a sends poller whose every invocation runs short of
// time once it has sent (nearDeadline), as a Lambda near its timeout
// does; it counts the invocations.
func (k *keptEnv) shortInvocations(t *testing.T) (*queue.Poller, *atomic.Int32) {
	n := new(atomic.Int32)
	consume := queue.NewConsumer(func(ctx context.Context, msgs []batch.Message) []string {
		n.Add(1)
		return k.deps.CampaignSender.Handle(nearDeadline{Context: ctx, sentBefore: k.campaignSent.Load(), sent: &k.campaignSent}, msgs)
	})
	return k.queues.Poller(t, queue.Sends.Name, func(ctx context.Context, b events.SQSEvent) (events.SQSEventResponse, error) {
		return consume(routes.WithFunction(ctx, routes.CampaignSender.Function), b)
	}), n
}

// movingClock is the time now, moved on by what the test adds: the
// campaign pacer's seconds pass as they do, and a wait or a breaker's
// window ends when the test says.
type movingClock struct{ ahead atomic.Int64 }

func (c *movingClock) Now() time.Time { return time.Now().UTC().Add(time.Duration(c.ahead.Load())) }

// Add moves the clock on by d.
func (c *movingClock) Add(d time.Duration) { c.ahead.Add(int64(d)) }

// box reads what left for the workspace: its kept messages and the SES
// emulator's store.
func (k *keptEnv) box(t *testing.T, workspaceID string) inbox.Box {
	t.Helper()
	b, err := inbox.Read(t.Context(), filepath.Join(k.dir, workspaceID), os.Getenv("AWS_ENDPOINT_URL_SESV2"), k.started)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sentHTML is what a transactional email's recipient must find: the html
// as sent and its text as the stack derives it.
func sentHTML(to, subject, html string) inbox.Want {
	return inbox.Want{To: to, Subject: subject, HTML: []string{html}, Text: []string{compose.HTMLToText(html)}}
}

// listWant is what a recipient of list mail from source must find: the
// content, the footer with the workspace's postal address and the
// recipient's own unsubscribe link, and the List-Id of the source.
func (k *keptEnv) listWant(t *testing.T, b *bulkWS, contactID, to, subject, html string, src unsubscribe.Source) inbox.Want {
	t.Helper()
	link, err := k.deps.CampaignSender.Links.URL(unsubscribe.Token{WorkspaceID: b.id, ContactID: contactID, Source: src})
	if err != nil {
		t.Fatal(err)
	}
	ws, err := k.store.Workspaces.GetWorkspace(t.Context(), b.id)
	if err != nil {
		t.Fatal(err)
	}
	w := sentHTML(to, subject, html)
	w.List = &inbox.List{PostalAddress: ws.PostalAddress, Unsubscribe: link, Mailto: b.sender.Email, ID: listmail.ListID(ws, b.sender, src)}
	return w
}

// seedVIPs stores contacts with addrs, tagged vip, straight in the table
// (a thousand over HTTP would be the slow part of a test about sending);
// it returns their ids in order.
func (k *keptEnv) seedVIPs(t *testing.T, workspaceID string, addrs []string) []string {
	t.Helper()
	now := k.clock.Now()
	ids := make([]string, 0, len(addrs))
	for start := 0; start < len(addrs); start += contact.CreateBatch {
		var batch []contact.Contact
		for _, a := range addrs[start:min(start+contact.CreateBatch, len(addrs))] {
			c := contact.Contact{ID: uuid.Must(uuid.NewV7()).String(), WorkspaceID: workspaceID, Email: contact.NormalizeEmail(a),
				Subscribed: true, Tags: []string{"vip"}, CreatedAt: now, UpdatedAt: now}
			batch = append(batch, c)
			ids = append(ids, c.ID)
		}
		if taken, err := k.store.Contacts.CreateContacts(t.Context(), batch); err != nil || len(taken) > 0 {
			t.Fatalf("seed contacts: taken %v, %v", taken, err)
		}
	}
	return ids
}

// audience is a campaign's recipients: addresses and contact ids.
type audience struct {
	addrs, ids []string
}

// newAudience seeds n fresh vip contacts of the workspace.
func (k *keptEnv) newAudience(t *testing.T, workspaceID string, n int) audience {
	t.Helper()
	addrs := make([]string, n)
	for i := range addrs {
		addrs[i] = rcpt("vip")
	}
	return audience{addrs: addrs, ids: k.seedVIPs(t, workspaceID, addrs)}
}

// campaignWants is what each recipient of the bulk workspace's campaign
// id (drafted by bulkWS.draft) must have received.
func (k *keptEnv) campaignWants(t *testing.T, b *bulkWS, id string, a audience) []inbox.Want {
	t.Helper()
	src := unsubscribe.Source{Kind: unsubscribe.SourceCampaign, ID: id}
	out := make([]inbox.Want, len(a.addrs))
	for i := range a.addrs {
		out[i] = k.listWant(t, b, a.ids[i], a.addrs[i], "November news", "<p>What changed this month.</p>", src)
	}
	return out
}

// approve approves the campaign through the owner service.
func (k *keptEnv) approve(t *testing.T, b *bulkWS, id string) {
	t.Helper()
	if _, err := k.approvals(k.deps.CampaignStarter).Approve(t.Context(), b.id, id, nil); err != nil {
		t.Fatal(err)
	}
}

// nearDeadline is a Lambda invocation's context that runs short of time
// once the campaign sender has sent in it: its deadline is an hour away
// until then, and a second away after (under the sender's 20 s chunk
// budget), so each invocation sends one group and hands the chunk over,
// whatever the machine's speed.
type nearDeadline struct {
	context.Context
	sentBefore int64
	sent       *atomic.Int64
}

func (c nearDeadline) Deadline() (time.Time, bool) {
	if c.sent.Load() > c.sentBefore {
		return time.Now().Add(time.Second), true
	}
	return time.Now().Add(time.Hour), true
}

// tally counts the messages handed to Next.
type tally struct {
	Next sending.Transport
	n    *atomic.Int64
}

func (c tally) Send(ctx context.Context, in sending.SendInput) (string, error) {
	c.n.Add(1)
	return c.Next.Send(ctx, in)
}
