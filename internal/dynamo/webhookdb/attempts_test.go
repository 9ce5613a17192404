package webhookdb_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/dynamo/repositories"
	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/webhook"
)

// A batch's attempts of one endpoint are one item of one write unit; a
// batch over two endpoints is one BatchWriteItem of an item each.
func TestRecordAttemptsOneItemABatch(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, rec := dynamotest.NewStore(t)
	ws, endpointID, other := uuid.NewString(), uuid.NewString(), uuid.NewString()
	at := time.Now().UTC()
	var batch []webhook.Attempt
	for i := range 10 {
		batch = append(batch, webhook.Attempt{WorkspaceID: ws, EndpointID: endpointID, EventID: uuid.NewString(),
			EventType: event.Types[i%len(event.Types)], EmailID: uuid.Must(uuid.NewV7()).String(), Number: 1,
			At: at.Add(time.Duration(i) * time.Millisecond), StatusCode: 200, LatencyMS: 150})
	}
	rec.Reset()
	if err := store.Webhooks.RecordAttempts(ctx, batch); err != nil {
		t.Fatal(err)
	}
	if _, wru := rec.Units(); rec.Writes() != 1 || wru != 1 {
		t.Errorf("a batch of 10 wrote %d items, %.1f WRU; want 1 item, 1 WRU", rec.Writes(), wru)
	}
	got, err := store.Webhooks.ListAttempts(ctx, ws, endpointID, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(batch)
	slices.Reverse(want)
	if !attemptsEqual(got, want) {
		t.Errorf("listed %+v,\nwant %+v", got, want)
	}

	mixed := []webhook.Attempt{batch[0], {WorkspaceID: ws, EndpointID: other, EventID: "evt_other", EventType: event.Delivered, At: at, StatusCode: 204}}
	rec.Reset()
	if err := store.Webhooks.RecordAttempts(ctx, mixed); err != nil {
		t.Fatal(err)
	}
	if rec.Calls("BatchWriteItem") != 1 || rec.Writes() != 2 {
		t.Errorf("two endpoints: %d BatchWriteItems, %d items; want 1, 2", rec.Calls("BatchWriteItem"), rec.Writes())
	}
	if l, err := store.Webhooks.ListAttempts(ctx, ws, other, 10); err != nil || len(l) != 1 || l[0].EventID != "evt_other" {
		t.Errorf("other endpoint lists %+v, %v", l, err)
	}
}

// putOneAttemptItem writes an attempt the way the dispatcher did before
// the batch items: an item of its own in the email's shard of 64, or in
// the partition before the shards (legacy).
func putOneAttemptItem(t *testing.T, store repositories.Set, a webhook.Attempt, legacy bool) {
	t.Helper()
	pk := dynamo.LegacyWebhookAttemptPK(a.WorkspaceID, a.EndpointID, a.EmailID)
	if legacy {
		pk = dynamo.WSSubPK(a.WorkspaceID, dynamo.KindWebhookAttempt, a.EndpointID)
	}
	item := map[string]any{"pk": pk, "sk": dynamo.TimeKey(a.At) + "#" + a.EventID, "endpoint_id": a.EndpointID,
		"event_id": a.EventID, "event_type": string(a.EventType), "attempt": a.Number, "at": a.At,
		"status_code": a.StatusCode, "latency_ms": a.LatencyMS, "expires_at": a.At.Add(time.Hour).Unix()}
	if a.EmailID != "" {
		item["email_id"] = a.EmailID
	}
	if a.Error != "" {
		item["error"] = a.Error
	}
	av, err := attributevalue.MarshalMap(item)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Table.DB.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: &store.Table.Name, Item: av}); err != nil {
		t.Fatal(err)
	}
}

// An endpoint's log written one item an attempt before, then in batch
// items, lists newest first across both, page after page, with a
// position inside a batch item; an email's attempts and a delivery are
// found in both.
func TestAttemptsAcrossBatchItemsAndOneAttemptItems(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, _ := dynamotest.NewStore(t)
	ws, endpointID := uuid.NewString(), uuid.NewString()
	mine := uuid.Must(uuid.NewV7()).String()
	start := time.Now().UTC().Add(-time.Hour).Truncate(time.Millisecond)
	n := 0
	attempt := func(email string, code int) webhook.Attempt {
		n++
		a := webhook.Attempt{WorkspaceID: ws, EndpointID: endpointID, EventID: fmt.Sprintf("evt_%02d", n),
			EventType: event.Delivered, EmailID: email, Number: 1, At: start.Add(time.Duration(n) * time.Second), StatusCode: code}
		if code >= 300 {
			a.Error = fmt.Sprintf("HTTP %d", code)
		}
		return a
	}
	var all []webhook.Attempt
	// Before: one item an attempt, in the unsharded partition and in shards.
	for i := range 5 {
		email := uuid.Must(uuid.NewV7()).String()
		if i == 2 {
			email = mine
		}
		a := attempt(email, 204)
		putOneAttemptItem(t, store, a, i == 0)
		all = append(all, a)
	}
	// After: three batches of 4 attempts, the second with mine failing.
	for b := range 3 {
		var batch []webhook.Attempt
		for i := range 4 {
			email, code := uuid.Must(uuid.NewV7()).String(), 200
			if b == 1 && i == 1 {
				email, code = mine, 500
			}
			batch = append(batch, attempt(email, code))
		}
		if err := store.Webhooks.RecordAttempts(ctx, batch); err != nil {
			t.Fatal(err)
		}
		all = append(all, batch...)
	}
	want := slices.Clone(all)
	slices.Reverse(want)

	var got []webhook.Attempt
	after := ""
	for page := 0; ; page++ {
		as, next, more, err := store.Webhooks.AttemptsPage(ctx, ws, endpointID, after, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(as) > 3 || page > 10 {
			t.Fatalf("page %d has %d attempts", page, len(as))
		}
		got = append(got, as...)
		if !more {
			break
		}
		after = next
	}
	if !attemptsEqual(got, want) {
		t.Errorf("pages of 3 listed %v,\nwant %v", eventIDs(got), eventIDs(want))
	}

	emails, complete, err := store.Webhooks.EmailAttempts(ctx, ws, endpointID, mine, start, 1000)
	if err != nil || !complete || !slices.Equal(eventIDs(emails), []string{"evt_03", "evt_11"}) {
		t.Errorf("the email's attempts %v (complete %v), %v; want evt_03 then evt_11", eventIDs(emails), complete, err)
	}
	for _, tc := range []struct {
		email, event string
		since        time.Time
		want         bool
	}{
		{mine, "evt_03", start, true},                       // one attempt an item
		{mine, "evt_03", start.Add(4 * time.Second), false}, // before since
		{mine, "evt_11", start, false},                      // a 500 in a batch item
		{all[13].EmailID, "evt_14", start, true},            // a 200 in a batch item
		{all[13].EmailID, "evt_14", all[13].At, true},       // at since, older than its item's key
		{all[13].EmailID, "evt_14", all[13].At.Add(time.Millisecond), false},
		{mine, "evt_14", start, false}, // another email's event
	} {
		got, err := store.Webhooks.DeliveredSince(ctx, ws, endpointID, tc.email, tc.event, tc.since)
		if err != nil || got != tc.want {
			t.Errorf("DeliveredSince(%s, %s) = %v, %v; want %v", tc.event, tc.since, got, err, tc.want)
		}
	}
}

func eventIDs(as []webhook.Attempt) []string {
	var ids []string
	for _, a := range as {
		ids = append(ids, a.EventID)
	}
	return ids
}

// attemptsEqual compares attempts field by field, times by instant.
func attemptsEqual(got, want []webhook.Attempt) bool {
	return slices.EqualFunc(got, want, func(a, b webhook.Attempt) bool {
		at := a.At.Equal(b.At)
		a.At, b.At = time.Time{}, time.Time{}
		return at && a == b
	})
}
