package devstack_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	sesame "github.com/sesame-mail/sesame/clients/go"
	clienthook "github.com/sesame-mail/sesame/clients/go/webhook"
	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/openapi/openapitest"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/webhook"
)

// One workspace, two endpoints subscribed to everything; a tracked email
// delivered, opened and clicked, each event's jobs reaching the dispatcher
// in one batch with both endpoints' (so each batch's attempts are written
// as two items in one BatchWriteItem, whose first call DynamoDB leaves
// partly unprocessed). The second endpoint answers 500 to its first POST:
// the retry comes in the next batch. Each receiver verifies every POST as
// the Go client's webhook package does and gets each event once (the
// failing one twice, the same event); the email's page and each
// endpoint's page list every attempt once, in order.
func TestPipelineWebhookTwoEndpointsOneBatch(t *testing.T) {
	p := startPipeline(t)
	ctx := t.Context()
	s := newSendWS(t, p.env, defaultSender())
	steady, flaky := startVerifyingReceiver(t, 0), startVerifyingReceiver(t, 1)
	epSteady, epFlaky := p.endpoint(t, s.id, steady.url), p.endpoint(t, s.id, flaky.url)
	steady.setSecret(epSteady.Secret)
	flaky.setSecret(epFlaky.Secret)

	// The dispatcher as deployed, watched: the jobs of each batch, and the
	// receipts of those given back for a retry.
	dispatch := api.Consumers(p.deps)[routes.WebhookDispatch]
	var batches [][]webhook.Job
	var retried []string
	hooks := p.queues.Poller(t, queue.Webhooks.Name, func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		var jobs []webhook.Job
		for _, r := range ev.Records {
			var j webhook.Job
			if err := json.Unmarshal([]byte(r.Body), &j); err != nil {
				t.Errorf("webhook job %s: %v", r.Body, err)
			}
			jobs = append(jobs, j)
		}
		batches = append(batches, jobs)
		resp, err := dispatch(ctx, ev)
		for _, f := range resp.BatchItemFailures {
			for _, r := range ev.Records {
				if r.MessageId == f.ItemIdentifier {
					retried = append(retried, r.ReceiptHandle)
				}
			}
		}
		return resp, err
	})
	// jobs runs the dispatcher until it has taken n jobs.
	jobs := func(n int) {
		t.Helper()
		got := 0
		for i := 0; got < n && i < 10; i++ {
			k, err := hooks.PollOnce(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got += k
		}
		if got != n {
			t.Fatalf("webhooks queue gave %d jobs, want %d", got, n)
		}
	}
	// The first BatchWriteItem of attempts writes only its first item and
	// hands the rest back unprocessed, as DynamoDB does when it throttles.
	attemptWrites := &partlyUnprocessed{}
	p.rec.Via = func(op string) dynamo.DB {
		if op != "BatchWriteItem" {
			return nil
		}
		return attemptWrites.over(p.rec.DB)
	}
	t.Cleanup(func() { p.rec.Via = nil })

	tags := []sesame.Tag{{Name: "order", Value: "A-17"}}
	id := p.send(t, s.key, msg("twohooks", map[string]any{"tags": tags}))
	p.drain(t, 1) // Delivery
	jobs(2)
	if len(retried) != 1 {
		t.Fatalf("%d jobs given back after the first batch, want the failing endpoint's one", len(retried))
	}
	// Its retry delay passes.
	for _, receipt := range retried {
		if _, err := p.queues.SQS.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{
			QueueUrl: aws.String(p.queues.URL(t, queue.Webhooks.Name)), ReceiptHandle: aws.String(receipt), VisibilityTimeout: 0,
		}); err != nil {
			t.Fatal(err)
		}
	}
	p.clock.Set(pipelineStart.Add(5 * time.Minute))
	if r := p.devPost(t, s.key, "/dev/emails/"+id+"/open"); r.status != http.StatusAccepted {
		t.Fatalf("open: %d %s", r.status, r.body)
	}
	p.drain(t, 1)
	jobs(3) // both endpoints' email.opened and the retry
	p.clock.Set(pipelineStart.Add(7 * time.Minute))
	if r := p.devPost(t, s.key, "/dev/emails/"+id+"/click?url=https%3A%2F%2Facme.test%2Forders%2F1"); r.status != http.StatusAccepted {
		t.Fatalf("click: %d %s", r.status, r.body)
	}
	p.drain(t, 1)
	jobs(2)

	for i, b := range batches {
		eps := map[string]bool{}
		for _, j := range b {
			eps[j.EndpointID] = true
		}
		if !eps[epSteady.ID] || !eps[epFlaky.ID] {
			t.Errorf("batch %d holds jobs of %v, want both endpoints'", i+1, eps)
		}
	}
	// The retry went out in the second batch, beside the flaky endpoint's
	// email.opened, and each batch wrote one item an endpoint.
	retry := slices.IndexFunc(batches[1], func(j webhook.Job) bool {
		return j.EndpointID == epFlaky.ID && j.EventType == "email.delivered"
	})
	if len(batches) != 3 || retry < 0 {
		t.Errorf("%d batches, want 3 and the retry in the second", len(batches))
	}
	for _, ep := range []webhook.Endpoint{epSteady, epFlaky} {
		items := 0
		for _, it := range dynamotest.Items(t, p.store.Table.Name) {
			pk, _ := it["pk"].(*ddbtypes.AttributeValueMemberS)
			if pk != nil && strings.HasPrefix(pk.Value, dynamo.WSSubPK(s.id, dynamo.KindWebhookAttempt, ep.ID)+"#") && it["attempts"] != nil {
				items++
			}
		}
		if items != len(batches) {
			t.Errorf("endpoint %s: %d attempt items, want one a batch (%d)", ep.URL, items, len(batches))
		}
	}
	if n := attemptWrites.calls(); n != len(batches)+1 {
		t.Errorf("%d BatchWriteItem calls of attempts, want one a batch (%d) and the resend of the unprocessed item", n, len(batches))
	}

	// What each receiver got: every event once, signed, of the email.
	feed := p.feed(t, s.key, "")
	if got := feed.types(); !slices.Equal(got, []string{"email.clicked", "email.opened", "email.delivered"}) {
		t.Fatalf("events feed %v", got)
	}
	eventIDs := map[string]string{}
	for _, it := range feed.Data {
		eventIDs[it.Type] = it.ID
	}
	for name, r := range map[string]*verifyingReceiver{"steady": steady, "flaky": flaky} {
		var accepted []string
		for _, d := range r.deliveries() {
			if d.err != nil {
				t.Errorf("%s receiver: a POST does not verify: %v", name, d.err)
				continue
			}
			if d.event.Id != eventIDs[string(d.event.Type)] || d.event.Data == nil || d.event.Data.Id.String() != id || !slices.Equal(d.event.Data.Tags, tags) {
				t.Errorf("%s receiver got %s %s of %v, want an event of the feed with email %s and its tags", name, d.event.Type, d.event.Id, d.event.Data, id)
			}
			if d.status < 300 {
				accepted = append(accepted, string(d.event.Type))
			}
		}
		slices.Sort(accepted)
		if want := []string{"email.clicked", "email.delivered", "email.opened"}; !slices.Equal(accepted, want) {
			t.Errorf("%s receiver accepted %v, want each event once %v", name, accepted, want)
		}
	}
	if got := flaky.deliveries(); len(got) != 4 || got[0].status != http.StatusInternalServerError || got[0].event.Type != "email.delivered" {
		t.Errorf("flaky receiver: %d POSTs, want 4, the first email.delivered answered 500", len(got))
	}

	// Each endpoint's log on its page: every attempt once, newest first,
	// across the batch items. The flaky endpoint's retry and its opened
	// event were POSTed together, in either order.
	address := "owner-twohooks@example.com"
	if _, err := (&account.Owners{Store: p.store.Owners}).Add(ctx, s.id, address); err != nil {
		t.Fatal(err)
	}
	c, _ := p.signIn(t, address)
	logRows := func(ep webhook.Endpoint) []string {
		t.Helper()
		pg := p.dashDo(t, c, "/dashboard/settings/webhooks/"+ep.ID, nil)
		if pg.status != http.StatusOK {
			t.Fatalf("endpoint page: %d", pg.status)
		}
		var rows []string
		for _, row := range strings.Split(between(pg.body, "<tbody>", "</tbody>"), "</tr>") {
			cells := strings.Split(row, "</td>")
			if len(cells) < 4 {
				continue
			}
			// Event type, attempt number, status.
			typ, _, _ := strings.Cut(strings.TrimPrefix(cells[1], "<td>"), " ")
			rows = append(rows, typ+" #"+strings.TrimPrefix(cells[2], "<td>")+" "+strings.TrimPrefix(cells[3], "<td>"))
		}
		return rows
	}
	if got, want := logRows(epSteady), []string{"email.clicked #1 204", "email.opened #1 204", "email.delivered #1 204"}; !slices.Equal(got, want) {
		t.Errorf("steady endpoint's log %v, want %v", got, want)
	}
	got := logRows(epFlaky)
	if len(got) == 4 && got[1] == "email.delivered #2 204" {
		got[1], got[2] = got[2], got[1]
	}
	if want := []string{"email.clicked #1 204", "email.opened #1 204", "email.delivered #2 204", "email.delivered #1 500"}; !slices.Equal(got, want) {
		t.Errorf("flaky endpoint's log %v, want %v", got, want)
	}
	for _, ep := range []webhook.Endpoint{epSteady, epFlaky} {
		all, err := p.store.Webhooks.ListAttempts(ctx, s.id, ep.ID, 10)
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(all); i++ {
			if all[i].At.After(all[i-1].At) {
				t.Errorf("endpoint %s: attempt %d at %v is newer than the one before it", ep.URL, i, all[i].At)
			}
		}
		// One page an attempt: the walk lists the same attempts once.
		var walked []webhook.Attempt
		after := ""
		for range 10 {
			page, next, more, err := p.store.Webhooks.AttemptsPage(ctx, s.id, ep.ID, after, 1)
			if err != nil {
				t.Fatal(err)
			}
			walked = append(walked, page...)
			if !more {
				break
			}
			after = next
		}
		if !slices.EqualFunc(walked, all, sameAttempt) {
			t.Errorf("endpoint %s: one a page listed %d attempts, the log %d: want the same, once each", ep.URL, len(walked), len(all))
		}
	}

	// The email's page: its seven attempts, oldest first, each once.
	pg := p.dashDo(t, c, "/dashboard/emails/"+id, nil)
	table := between(pg.body, `<table id="deliveries">`, `</table>`)
	var rows []string
	for _, row := range strings.Split(between(table, "<tbody>", "</tbody>"), "</tr>") {
		cells := strings.Split(row, "</td>")
		if len(cells) < 5 {
			continue
		}
		who := "steady"
		if strings.Contains(cells[1], flaky.url) {
			who = "flaky"
		}
		rows = append(rows, who+" "+strings.TrimPrefix(cells[2], "<td>")+" #"+strings.TrimPrefix(cells[3], "<td>")+" "+strings.TrimPrefix(cells[4], "<td>"))
	}
	want := []string{
		"steady email.delivered #1 HTTP 204", "flaky email.delivered #1 HTTP 500", "flaky email.delivered #2 HTTP 204",
		"steady email.opened #1 HTTP 204", "flaky email.opened #1 HTTP 204",
		"steady email.clicked #1 HTTP 204", "flaky email.clicked #1 HTTP 204",
	}
	sorted := slices.Sorted(slices.Values(rows))
	if !slices.Equal(sorted, slices.Sorted(slices.Values(want))) || strings.Contains(pg.body, `id="deliveries-partial"`) {
		t.Errorf("email page's deliveries %v, want each of %v once", rows, want)
	}
	if first, retry := slices.Index(rows, want[1]), slices.Index(rows, want[2]); first > retry {
		t.Errorf("email page's deliveries %v: the retry before the failed attempt", rows)
	}
}

func sameAttempt(a, b webhook.Attempt) bool {
	return a.EventID == b.EventID && a.Number == b.Number && a.At.Equal(b.At)
}

// partlyUnprocessed counts the BatchWriteItems of webhook attempts (items
// with an attempts attribute) and, of the first, writes only the first
// request and returns the others unprocessed.
type partlyUnprocessed struct {
	mu sync.Mutex
	n  int
}

func (p *partlyUnprocessed) over(db dynamo.DB) dynamo.DB { return attemptsBatchDB{DB: db, count: p} }

func (p *partlyUnprocessed) calls() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n
}

type attemptsBatchDB struct {
	dynamo.DB
	count *partlyUnprocessed
}

func (d attemptsBatchDB) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	first, rest := map[string][]ddbtypes.WriteRequest{}, map[string][]ddbtypes.WriteRequest{}
	attempts := false
	for table, reqs := range in.RequestItems {
		first[table], rest[table] = reqs[:1], reqs[1:]
		if reqs[0].PutRequest != nil && reqs[0].PutRequest.Item["attempts"] != nil {
			attempts = true
		}
	}
	if !attempts {
		return d.DB.BatchWriteItem(ctx, in, opts...)
	}
	d.count.mu.Lock()
	d.count.n++
	split := d.count.n == 1
	d.count.mu.Unlock()
	if !split {
		return d.DB.BatchWriteItem(ctx, in, opts...)
	}
	if _, err := d.DB.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: first}, opts...); err != nil {
		return nil, err
	}
	return &dynamodb.BatchWriteItemOutput{UnprocessedItems: rest}, nil
}

// verifyingReceiver is a customer's endpoint that verifies each POST with
// the Go client's webhook package, answers 500 to its first failFirst
// POSTs and 204 after, and keeps what it got.
type verifyingReceiver struct {
	url       string
	failFirst int

	mu     sync.Mutex
	secret string
	got    []verifiedDelivery
}

type verifiedDelivery struct {
	event  clienthook.Event
	err    error // the verification's
	status int   // the answer
}

func startVerifyingReceiver(t *testing.T, failFirst int) *verifyingReceiver {
	t.Helper()
	r := &verifyingReceiver{failFirst: failFirst}
	r.url = allowedServer(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		if err := openapitest.CheckWebhook(req.Header, body); err != nil {
			t.Errorf("%v; body %s", err, body)
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		d := verifiedDelivery{status: http.StatusNoContent}
		d.event, d.err = clienthook.Parse(r.secret, req.Header.Get(clienthook.SignatureHeader), body, 0)
		if len(r.got) < r.failFirst {
			d.status = http.StatusInternalServerError
		}
		r.got = append(r.got, d)
		w.WriteHeader(d.status)
	})) + "/hooks/sesame"
	return r
}

func (r *verifyingReceiver) setSecret(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secret = s
}

func (r *verifyingReceiver) deliveries() []verifiedDelivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}
