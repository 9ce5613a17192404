package devstack_test

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/dynamo"
)

// An email's page lists its webhook deliveries: two emails delivered, each
// event POSTed to an endpoint that answers 204 and one that answers 503;
// the page of one email shows its two attempts (endpoint, event, attempt,
// result), not the other email's; a fault reading them leaves the rest of
// the page; an email with no event says it has none.
func TestDashboardEmailDeliveries(t *testing.T) {
	p := startPipeline(t)
	ctx := t.Context()
	s := newSendWS(t, p.env, defaultSender())
	rcv := startReceiver(t)
	failing := allowedServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	})) + "/down"
	p.endpoint(t, s.id, rcv.url, "email.delivered")
	p.endpoint(t, s.id, failing, "email.delivered")

	id := p.send(t, s.key, msg("watched", nil))
	p.send(t, s.key, msg("another", nil))
	p.drain(t, 2) // the Delivery of each (the configuration sets publish no Send)
	jobs := 0
	for i := 0; jobs < 4 && i < 10; i++ {
		n, err := p.webhooks.PollOnce(ctx)
		if err != nil {
			t.Fatal(err)
		}
		jobs += n
	}
	if jobs != 4 || len(rcv.received()) != 2 {
		t.Fatalf("%d webhook jobs, %d POSTs received; want 4 jobs (2 emails, 2 endpoints) and 2 received", jobs, len(rcv.received()))
	}

	address := "owner-deliveries@example.com"
	if _, err := (&account.Owners{Store: p.store.Owners}).Add(ctx, s.id, address); err != nil {
		t.Fatal(err)
	}
	c, _ := p.signIn(t, address)
	page := p.dashDo(t, c, "/dashboard/emails/"+id, nil)
	table := between(page.body, `<table id="deliveries">`, `</table>`)
	rows := strings.Split(between(table, "<tbody>", "</tbody>"), "</tr>")
	rows = rows[:len(rows)-1]
	if page.status != http.StatusOK || len(rows) != 2 {
		t.Fatalf("email page %d with %d delivery rows, want 2:\n%s", page.status, len(rows), table)
	}
	for _, want := range map[string][]string{
		"the receiver": {rcv.url, "email.delivered", "<td>1</td>", "HTTP 204", " ms</td>"},
		"the failing":  {failing, "email.delivered", "<td>1</td>", "HTTP 503"},
	} {
		found := false
		for _, row := range rows {
			if strings.Contains(row, want[0]) {
				found = true
				for _, w := range want[1:] {
					if !strings.Contains(row, w) {
						t.Errorf("the row of %s lacks %q: %s", want[0], w, row)
					}
				}
			}
		}
		if !found {
			t.Errorf("no delivery row for %s", want[0])
		}
	}
	if !strings.Contains(table, "<caption>") || strings.Contains(page.body, `id="deliveries-partial"`) || strings.Contains(page.body, `id="deliveries-error"`) {
		t.Errorf("deliveries section: a caption, not partial, no error:\n%s", table)
	}

	// A fault of the deliveries' read leaves the rest of the page; the
	// section says so.
	p.rec.Via = func(op string) dynamo.DB {
		if op == "Query" {
			return attemptsDown{p.rec.DB}
		}
		return nil
	}
	faulty := p.dashDo(t, c, "/dashboard/emails/"+id, nil)
	p.rec.Via = nil
	if faulty.status != http.StatusOK || !strings.Contains(faulty.body, `id="deliveries-error"`) || !strings.Contains(faulty.body, `id="timeline"`) ||
		strings.Contains(faulty.body, "throttled") {
		t.Errorf("deliveries unreadable: %d, want the page with the section's error:\n%s", faulty.status, faulty.body)
	}

	// A fault of a page's own read is a 503 with Retry-After, its cause
	// only in the log.
	p.rec.Via = func(op string) dynamo.DB {
		if op == "Query" {
			return queriesDown{p.rec.DB}
		}
		return nil
	}
	down := p.dashDo(t, c, "/dashboard/emails", nil)
	p.rec.Via = nil
	if down.status != http.StatusServiceUnavailable || down.header.Get("Retry-After") == "" || strings.Contains(down.body, "throttled") {
		t.Errorf("the emails list with its Query failing: %d, Retry-After %q, want 503 with Retry-After:\n%s", down.status, down.header.Get("Retry-After"), down.body)
	}

	quiet := p.putEmail(s.id, nil)
	if page := p.dashDo(t, c, "/dashboard/emails/"+quiet.ID, nil); !strings.Contains(page.body, "No webhook deliveries for this email.") {
		t.Errorf("an email without events: %d, no empty state", page.status)
	}
}

// attemptsDown fails the Query of an email's webhook attempts (the one
// filtered on email_id) and passes every other call to DB.
type attemptsDown struct{ dynamo.DB }

func (d attemptsDown) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	if slices.Contains(slices.Collect(maps.Values(in.ExpressionAttributeNames)), "email_id") {
		return nil, errors.New("throttled")
	}
	return d.DB.Query(ctx, in, opts...)
}

// queriesDown fails every Query and passes every other call to DB.
type queriesDown struct{ dynamo.DB }

func (d queriesDown) Query(context.Context, *dynamodb.QueryInput, ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return nil, errors.New("throttled")
}
