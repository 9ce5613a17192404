package devstack_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	sesame "github.com/sesame-mail/sesame/clients/go"
	"github.com/sesame-mail/sesame/clients/go/webhook"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/dynamo/schema"
)

// The Go client against the local stack, as a customer uses it: it sends,
// reads back, pages through emails and events, and verifies the webhook
// deliveries that followed. Its requests and Sesame's answers are checked
// against the OpenAPI document on the way (p.http).
func TestGoClientAgainstTheStack(t *testing.T) {
	t.Parallel()
	p := startPipeline(t)
	ctx := t.Context()
	s := newSendWS(t, p.env, defaultSender())
	rcv := startReceiver(t)
	ep := p.endpoint(t, s.id, rcv.url, "email.delivered")
	c, err := sesame.New(p.url+"/", s.key, sesame.WithHTTPClient(p.http))
	if err != nil {
		t.Fatal(err)
	}

	var ids, subjects []string
	// The first email carries tags: they come back on its webhook.
	tags := []sesame.Tag{{Name: "order", Value: "A-17"}, {Name: "plan", Value: "pro"}}
	for i := range 3 {
		m := msg("goclient", nil)
		e := sesame.Email{To: m["to"].(string), Subject: m["subject"].(string), Html: plainHTML}
		if i == 0 {
			e.Tags = &tags
		}
		res, err := c.Send(ctx, e)
		if err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
		if !res.Success || res.Status != "sent" {
			t.Fatalf("send %d: %+v", i, res)
		}
		// What the recipient got: one message, with the subject sent.
		if got := emulated(t, m["subject"].(string)); len(got) != 1 || !slices.Contains(got[0].Destination.To, m["to"].(string)) {
			t.Fatalf("the SES emulator holds %+v for send %d", got, i)
		}
		ids = append(ids, res.Id.String())
		subjects = append(subjects, m["subject"].(string))
	}

	got, err := c.GetEmail(ctx, ids[0])
	if err != nil || got.Id.String() != ids[0] || got.Subject != subjects[0] || got.Status != "sent" {
		t.Errorf("GetEmail = %+v, %v", got, err)
	}
	var apiErr *sesame.Error
	if _, err := c.GetEmail(ctx, "0195a3c2-7c2e-7000-8000-000000000001"); !errors.As(err, &apiErr) || apiErr.Code != "not_found" || apiErr.RequestID == "" {
		t.Errorf("GetEmail of an unknown id: %v, want *sesame.Error not_found with a request id", err)
	}

	// One email a page: the iterator follows the cursor to the last one.
	var listed []string
	for e, err := range c.Emails(ctx, sesame.ListEmailsParams{Limit: new(1)}) {
		if err != nil {
			t.Fatal(err)
		}
		listed = append(listed, e.Id.String())
	}
	if want := []string{ids[2], ids[1], ids[0]}; !slices.Equal(listed, want) {
		t.Errorf("Emails listed %v, want newest first %v", listed, want)
	}

	p.drain(t, 3) // a Delivery each
	if n, err := p.webhooks.PollOnce(ctx); err != nil || n != 3 {
		t.Fatalf("webhooks queue gave %d jobs (err %v), want 3", n, err)
	}
	var delivered []string
	for _, r := range rcv.received() {
		ev, err := webhook.Parse(ep.Secret, r.header.Get(webhook.SignatureHeader), r.body, 5*time.Minute)
		if err != nil {
			t.Fatalf("webhook.Parse of a real delivery: %v", err)
		}
		if ev.Type != "email.delivered" || ev.Data == nil {
			t.Fatalf("delivery %+v", ev)
		}
		delivered = append(delivered, ev.Data.Id.String())
		wantTags := []sesame.Tag{}
		if ev.Data.Id.String() == ids[0] {
			wantTags = tags
		}
		if !slices.Equal(ev.Data.Tags, wantTags) {
			t.Errorf("webhook of %s: data.tags = %+v, want %+v", ev.Data.Id, ev.Data.Tags, wantTags)
		}
		if err := webhook.Verify(ep.Secret, r.header.Get(webhook.SignatureHeader), append(r.body, ' '), 0); !errors.Is(err, webhook.ErrMismatch) {
			t.Errorf("a changed body verifies: %v", err)
		}
	}
	slices.Sort(delivered)
	slices.Sort(ids)
	if !slices.Equal(delivered, ids) {
		t.Errorf("webhooks for %v, want one per email %v", delivered, ids)
	}

	var feed []string
	for ev, err := range c.Events(ctx, sesame.ListEventsParams{Limit: new(2)}) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type == "email.delivered" {
			feed = append(feed, ev.Data.Id.String())
		}
	}
	slices.Sort(feed)
	if !slices.Equal(feed, ids) {
		t.Errorf("events feed's deliveries %v, want %v", feed, ids)
	}
}

// Sesame's own rate limiter answers 429 with Retry-After; the client waits
// that long (on the stack's clock, moved instead of slept) and sends again
// with the same Idempotency-Key: one email leaves.
func TestGoClientRetriesARateLimit(t *testing.T) {
	t.Parallel()
	p := startPipeline(t)
	p.store.Table.Now = p.clock.Now // the rate limit's minute
	s := newSendWS(t, p.env, defaultSender())
	key := s.scopedKey(t, p.env, apikey.FullAccess...)
	exhaust(t, p, key)

	// Without retries the 429 is the caller's, typed. A refused request
	// does not count, so the minute stays used up.
	c0, err := sesame.New(p.url, key, sesame.WithHTTPClient(p.http), sesame.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c0.GetEmail(t.Context(), "0195a3c2-7c2e-7000-8000-000000000001")
	var apiErr *sesame.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 || apiErr.Code != "rate_limited" || apiErr.RetryAfter != 60*time.Second || apiErr.RequestID == "" {
		t.Errorf("err = %#v, want 429 rate_limited with Retry-After 60s", err)
	}

	var waited []time.Duration
	moveClock := func(_ context.Context, d time.Duration) error {
		waited = append(waited, d)
		p.clock.Set(p.clock.Now().Add(d))
		return nil
	}
	c, err := sesame.New(p.url, key, sesame.WithHTTPClient(p.http), sesame.WithSleep(moveClock))
	if err != nil {
		t.Fatal(err)
	}
	m := msg("goretry", nil)
	res, err := c.Send(t.Context(), sesame.Email{To: m["to"].(string), Subject: m["subject"].(string), Html: plainHTML})
	if err != nil || res.Status != "sent" {
		t.Fatalf("Send = %+v, %v", res, err)
	}
	// The clock stands at the start of a minute: 60 s to the next window.
	if !slices.Equal(waited, []time.Duration{60 * time.Second}) {
		t.Errorf("waited %v, want the one Retry-After of 60s", waited)
	}
	if got := emulated(t, m["subject"].(string)); len(got) != 1 {
		t.Errorf("the recipient got %d messages, want 1", len(got))
	}
}

// exhaust uses up key's requests of the current minute on the stack's
// clock, as a thousand requests would, without making them: one counted
// request adds the minute's counter to the key's record (found as the one
// attribute it added), which is then set to the limit. The next check must
// be refused by the limiter itself.
func exhaust(t *testing.T, p *pipeline, key string) {
	t.Helper()
	ctx := t.Context()
	record := func() map[string]ddbtypes.AttributeValue {
		t.Helper()
		for _, it := range dynamotest.Items(t, p.store.Table.Name) {
			if pk, ok := it[schema.AttrPK].(*ddbtypes.AttributeValueMemberS); ok && strings.HasSuffix(pk.Value, apikey.Hash(key)) {
				return it
			}
		}
		t.Fatal("the key has no record")
		return nil
	}
	before := record()
	if _, err := p.store.Keys.Authenticate(ctx, key, apikey.Live); err != nil {
		t.Fatal(err)
	}
	var counter string
	for name, v := range record() {
		if n, ok := v.(*ddbtypes.AttributeValueMemberN); ok && n.Value == "1" && before[name] == nil {
			counter = name
		}
	}
	if counter == "" {
		t.Fatal("a counted request added no counter to the key's record")
	}
	_, err := dynamotest.Client(t).UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &p.store.Table.Name,
		Key:                       map[string]ddbtypes.AttributeValue{schema.AttrPK: before[schema.AttrPK], schema.AttrSK: before[schema.AttrSK]},
		UpdateExpression:          aws.String("SET #c = :limit"),
		ExpressionAttributeNames:  map[string]string{"#c": counter},
		ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":limit": &ddbtypes.AttributeValueMemberN{Value: strconv.Itoa(apikey.RequestsPerMinute)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var limited *apikey.RateLimitedError
	if _, err := p.store.Keys.Authenticate(ctx, key, apikey.Live); !errors.As(err, &limited) {
		t.Fatalf("the key's check after its minute was used up: %v, want rate limited", err)
	}
}

// Every wrapper of the Go client against Sesame's real answers (checked
// against the document on the way): a batch with a refused item, the
// contacts' life, the do-not-send list and a send it stops, clicks,
// metrics, domains and the deliverability check.
func TestGoClientCoversTheAPI(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	ctx := t.Context()
	s := newSendWS(t, e, defaultSender())
	c, err := sesame.New(e.url, s.key, sesame.WithHTTPClient(e.http))
	if err != nil {
		t.Fatal(err)
	}

	// Item 1 is refused on purpose: its request is not the document's.
	bad, err := sesame.New(e.url, s.key, sesame.WithHTTPClient(e.bad().http))
	if err != nil {
		t.Fatal(err)
	}
	good := msg("gobatch", nil)
	items, err := bad.SendBatch(ctx, []sesame.Email{
		{To: good["to"].(string), Subject: good["subject"].(string), Html: plainHTML},
		{To: "not an address", Subject: "x", Html: plainHTML},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 || items[0].Result == nil || items[0].Result.Status != "sent" {
		t.Fatalf("batch items %+v", items)
	}
	if it := items[1]; it.Index != 1 || it.Err == nil || it.Err.Code != "invalid_field" || it.Err.Param != "emails[1].to" {
		t.Errorf("refused item %+v (err %+v)", it, it.Err)
	}
	if got := emulated(t, good["subject"].(string)); len(got) != 1 {
		t.Errorf("the batch's good item reached %d messages, want 1", len(got))
	}

	first := "Ann"
	addr := rcpt("gocontact")
	created, err := c.CreateContact(ctx, sesame.ContactCreate{Email: addr, FirstName: &first})
	if err != nil || created.Email != addr || created.FirstName == nil || *created.FirstName != first {
		t.Fatalf("CreateContact = %+v, %v", created, err)
	}
	var apiErr *sesame.Error
	if _, err := c.CreateContact(ctx, sesame.ContactCreate{Email: addr}); !errors.As(err, &apiErr) || apiErr.Code != "contact_exists" || apiErr.Param != "email" {
		t.Errorf("a second contact with the address: %v, want contact_exists on email", err)
	}
	last := "Example"
	updated, err := c.UpdateContact(ctx, created.Id.String(), sesame.ContactUpdate{LastName: &last})
	if err != nil || updated.LastName == nil || *updated.LastName != last || *updated.FirstName != first {
		t.Errorf("UpdateContact = %+v, %v", updated, err)
	}
	var contacts []string
	for ct, err := range c.Contacts(ctx, sesame.ListContactsParams{}) {
		if err != nil {
			t.Fatal(err)
		}
		contacts = append(contacts, ct.Email)
	}
	if !slices.Equal(contacts, []string{addr}) {
		t.Errorf("Contacts = %v", contacts)
	}
	if _, err := c.DeleteContact(ctx, created.Id.String()); err != nil {
		t.Errorf("DeleteContact: %v", err)
	}
	if _, err := c.GetContact(ctx, created.Id.String()); !errors.As(err, &apiErr) || apiErr.StatusCode != 404 {
		t.Errorf("GetContact after delete: %v, want 404", err)
	}

	blocked := rcpt("gosuppressed")
	if sup, err := c.Suppress(ctx, blocked, nil); err != nil || sup.Email != blocked || sup.Reason != "manual" {
		t.Fatalf("Suppress = %+v, %v", sup, err)
	}
	var listed []string
	for sup, err := range c.Suppressions(ctx, sesame.ListSuppressionsParams{}) {
		if err != nil {
			t.Fatal(err)
		}
		listed = append(listed, sup.Email)
	}
	if !slices.Equal(listed, []string{blocked}) {
		t.Errorf("Suppressions = %v", listed)
	}
	subject := "Blocked " + blocked
	res, err := c.Send(ctx, sesame.Email{To: blocked, Subject: subject, Html: plainHTML})
	if err != nil || res.Success || res.Status != "suppressed" {
		t.Errorf("Send to a suppressed address = %+v, %v; want an answer with success false", res, err)
	}
	if got := emulated(t, subject); len(got) != 0 {
		t.Errorf("a suppressed address got %d messages", len(got))
	}
	if _, err := c.Unsuppress(ctx, blocked); err != nil {
		t.Errorf("Unsuppress: %v", err)
	}

	clicks, err := c.Clicks(ctx, items[0].Result.Id.String())
	if err != nil || len(clicks.Data) != 0 || clicks.Truncated {
		t.Errorf("Clicks = %+v, %v", clicks, err)
	}
	if _, err := c.Metrics(ctx, sesame.GetMetricsParams{}); err != nil {
		t.Errorf("Metrics: %v", err)
	}
	var domains []string
	for d, err := range c.Domains(ctx, sesame.ListDomainsParams{}) {
		if err != nil {
			t.Fatal(err)
		}
		domains = append(domains, d.Name)
	}
	if len(domains) != 1 {
		t.Errorf("Domains = %v, want the workspace's one", domains)
	}
	check, err := c.CheckDeliverability(ctx, sesame.DeliverabilityRequest{Subject: "ACT NOW", Html: `<a href="http://192.0.2.1/x">win</a>`})
	if err != nil || len(check.Data.Checks) == 0 {
		t.Errorf("CheckDeliverability = %+v, %v", check, err)
	}
}
