package repositories_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/dynamo/repositories"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/status"
	"github.com/sesame-mail/sesame/internal/webhook"
)

// putOld writes item as the layout before the shards kept it: item
// carries its own pk and sk.
func putOld(t *testing.T, store repositories.Set, item any) {
	t.Helper()
	av, err := attributevalue.MarshalMap(item)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Table.DB.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: &store.Table.Name, Item: av}); err != nil {
		t.Fatal(err)
	}
}

// oldTimeKey is the feed's and the attempt log's sort key of a time.
func oldTimeKey(at time.Time) string { return at.UTC().Format("2006-01-02T15:04:05.000000000Z") }

// A stack upgraded from the layout without shards lists its emails
// together with new ones, newest first over every page; an old email is
// read by id and still takes its status events where it is.
func TestUpgradedEmailsListOldAndNew(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, _ := dynamotest.NewStore(t)
	ws := uuid.NewString()
	const total = 40
	ids := make([]string, total)
	for i := range ids {
		ids[i] = uuid.Must(uuid.NewV7()).String()
	}
	slices.Sort(ids)
	sent := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	var old []string
	for i, id := range ids {
		e := email.Email{ID: id, WorkspaceID: ws, To: fmt.Sprintf("r%d@example.com", i), Subject: "Hello",
			Status: email.StatusSent, Type: email.TypeTransactional, Environment: apikey.Live, SentAt: sent.Add(time.Duration(i) * time.Second)}
		if i%3 == 0 { // every third in the old layout, interleaved in time
			old = append(old, id)
			putOld(t, store, map[string]any{"pk": "WS#" + ws + "#EMAIL", "sk": id, "id": id, "workspace_id": ws,
				"to": e.To, "subject": e.Subject, "status": string(e.Status), "type": string(e.Type),
				"environment": string(e.Environment), "sent_at": e.SentAt})
			continue
		}
		if err := store.Emails.PutEmail(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	newest := slices.Clone(ids)
	slices.Reverse(newest)
	listed := func() []string {
		var got []string
		after := ""
		for pages := 0; ; pages++ {
			page, next, more, err := store.Emails.ListEmails(ctx, ws, email.Filter{}, after, 7)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range page {
				got = append(got, e.ID)
			}
			if !more || pages > total {
				return got
			}
			after = next
		}
	}
	if got := listed(); !slices.Equal(got, newest) {
		t.Errorf("listed %d emails %v,\nwant every one of %d newest first", len(got), got, total)
	}

	// An old email's Delivery event moves it where it is: no second item.
	at := sent.Add(time.Hour)
	delivered := email.Email{ID: old[1], WorkspaceID: ws, Status: email.StatusDelivered, DeliveredAt: &at}
	err := store.Statuses.Apply(ctx, status.Change{WorkspaceID: ws, EmailID: old[1], DedupeID: "ses-1", OccurredAt: at,
		Email: &delivered, ExpectStatus: email.StatusSent, FirstTimes: []string{"delivered_at"}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := store.Emails.GetEmail(ctx, ws, old[1])
	if err != nil || got.Status != email.StatusDelivered || got.To == "" {
		t.Errorf("old email after its Delivery: %+v, %v; want delivered with its recipient", got, err)
	}
	filtered, _, _, err := store.Emails.ListEmails(ctx, ws, email.Filter{Status: email.StatusDelivered}, "", 10)
	if err != nil || len(filtered) != 1 || filtered[0].ID != old[1] {
		t.Errorf("delivered emails: %d, %v; want the old one alone", len(filtered), err)
	}
	if got := listed(); len(got) != total {
		t.Errorf("after the event %d emails are listed, want %d", len(got), total)
	}
	// A stale event of an old email is stale, not applied at its shard.
	err = store.Statuses.Apply(ctx, status.Change{WorkspaceID: ws, EmailID: old[1], DedupeID: "ses-2", OccurredAt: at,
		Email: &delivered, ExpectStatus: email.StatusSent})
	if err != status.ErrStale {
		t.Errorf("a second Delivery planned from sent: %v, want ErrStale", err)
	}
}

// The events feed, the daily counters and an endpoint's attempt log of
// the layout before the shards read together with new items.
func TestUpgradedFeedCountersAndAttempts(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, _ := dynamotest.NewStore(t)
	ws, endpointID, emailID := uuid.NewString(), uuid.NewString(), uuid.NewString()
	start := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

	var want []string // event ids, oldest first
	for i := range 25 {
		id := fmt.Sprintf("evt_%02d", i)
		want = append(want, id)
		at := start.Add(time.Duration(i) * time.Minute)
		body, _ := json.Marshal(map[string]string{"id": id})
		if i%2 == 0 {
			putOld(t, store, map[string]any{"pk": "WS#" + ws + "#EVENT", "sk": oldTimeKey(at) + "#" + id, "id": id,
				"type": string(event.Delivered), "created_at": at, "body": body})
			continue
		}
		e := &event.Event{ID: id, WorkspaceID: ws, Type: event.Delivered, CreatedAt: at, Raw: body}
		if err := store.Statuses.Apply(ctx, status.Change{WorkspaceID: ws, EmailID: emailID, DedupeID: id, OccurredAt: at, Event: e}); err != nil {
			t.Fatal(err)
		}
	}
	slices.Reverse(want)
	var got []string
	after := ""
	for pages := 0; pages < 30; pages++ {
		bodies, next, more, err := store.Events.ListEvents(ctx, ws, after, 4)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bodies {
			var env struct{ ID string }
			if err := json.Unmarshal(b, &env); err != nil {
				t.Fatal(err)
			}
			got = append(got, env.ID)
		}
		if !more {
			break
		}
		after = next
	}
	if !slices.Equal(got, want) {
		t.Errorf("feed %v,\nwant %v", got, want)
	}

	day := start.Format("2006-01-02")
	putOld(t, store, map[string]any{"pk": "WS#" + ws + "#METRICS", "sk": day, "delivered": 5, "opened": 1})
	for range 3 {
		if err := store.Statuses.Count(ctx, status.Tally{{Kind: status.DailyMetrics, WorkspaceID: ws, Key: day}: {"delivered": 2}}); err != nil {
			t.Fatal(err)
		}
	}
	days, err := store.Metrics.DailyMetrics(ctx, ws, day, day)
	if err != nil || days[day]["delivered"] != 11 || days[day]["opened"] != 1 {
		t.Errorf("metrics of %s: %v, %v; want delivered 11 (5 old + 3×2), opened 1", day, days, err)
	}

	putOld(t, store, map[string]any{"pk": "WS#" + ws + "#WHATTEMPT#" + endpointID, "sk": oldTimeKey(start) + "#evt_old",
		"endpoint_id": endpointID, "event_id": "evt_old", "event_type": string(event.Delivered), "email_id": emailID,
		"attempt": 1, "at": start, "status_code": 204, "latency_ms": 9, "expires_at": start.Add(72 * time.Hour).Unix()})
	a := webhook.Attempt{WorkspaceID: ws, EndpointID: endpointID, EventID: "evt_new", EventType: event.Opened, EmailID: emailID,
		Number: 1, At: start.Add(time.Minute), StatusCode: 204}
	if err := store.Webhooks.RecordAttempt(ctx, a); err != nil {
		t.Fatal(err)
	}
	attempts, err := store.Webhooks.ListAttempts(ctx, ws, endpointID, 10)
	if err != nil || len(attempts) != 2 || attempts[0].EventID != "evt_new" || attempts[1].EventID != "evt_old" {
		t.Errorf("attempts %+v, %v; want evt_new then evt_old", attempts, err)
	}
	mine, complete, err := store.Webhooks.EmailAttempts(ctx, ws, endpointID, emailID, start, 100)
	if err != nil || !complete || len(mine) != 2 || mine[0].EventID != "evt_old" || mine[1].EventID != "evt_new" {
		t.Errorf("the email's attempts %+v (complete %v), %v; want evt_old then evt_new", mine, complete, err)
	}
	delivered, err := store.Webhooks.DeliveredSince(ctx, ws, endpointID, emailID, "evt_new", start)
	if err != nil || !delivered {
		t.Errorf("evt_new delivered: %v, %v; want true", delivered, err)
	}
}

// A campaign frozen before its chunks were sharded still reads them.
func TestUpgradedCampaignChunks(t *testing.T) {
	t.Parallel()
	store, _ := dynamotest.NewStore(t)
	ws, campaignID := uuid.NewString(), uuid.NewString()
	want := []string{uuid.NewString(), uuid.NewString()}
	var packed []byte
	for _, id := range want {
		u := uuid.MustParse(id)
		packed = append(packed, u[:]...)
	}
	putOld(t, store, map[string]any{"pk": "WS#" + ws + "#CAMPAIGNRCPT#" + campaignID, "sk": "000001", "ids": packed})
	got, err := store.Campaigns.ReadChunk(t.Context(), ws, campaignID, 1)
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("chunk 1 = %v, %v; want %v", got, err, want)
	}
	if _, err := store.Campaigns.ReadChunk(t.Context(), ws, campaignID, 2); err == nil {
		t.Error("chunk 2, absent in both layouts, was found")
	}
}
