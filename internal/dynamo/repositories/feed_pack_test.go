package repositories_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/cost"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/status"
)

// A feed item stores its envelope deflated, smaller than the envelope's
// own JSON, and gives it back byte for byte: to the feed, and to a
// redelivered event as the body to publish again.
func TestFeedItemStoresItsEnvelopePacked(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, _ := dynamotest.NewStore(t)
	puts := &keptPuts{DB: store.Table.DB}
	store.Table.DB = puts
	ws := uuid.NewString()
	at := time.Date(2026, 11, 22, 10, 0, 1, 0, time.UTC)
	e := email.Email{ID: uuid.NewString(), WorkspaceID: ws, To: "ann@example.com", Subject: "Your order " + strings.Repeat("and more ", 20),
		Status: email.StatusDelivered, Type: email.TypeTransactional, Environment: apikey.Live, SentAt: at.Add(-time.Second),
		DeliveredAt: &at, TrackingMode: email.TrackingFull, Tags: []email.Tag{{Name: "order", Value: "A-1042"}, {Name: "plan", Value: "pro"}}}
	view := e.View()
	ev := &event.Event{ID: "evt_" + strings.Repeat("ab", 16), WorkspaceID: ws, Type: event.Delivered, CreatedAt: at, Data: &view}
	want, err := ev.Body()
	if err != nil {
		t.Fatal(err)
	}
	change := status.Change{WorkspaceID: ws, EmailID: e.ID, DedupeID: ev.ID, OccurredAt: at, Event: ev}
	if err := store.Statuses.Apply(ctx, change); err != nil {
		t.Fatal(err)
	}

	bodies, _, _, err := store.Events.ListEvents(ctx, ws, "", 10)
	if err != nil || len(bodies) != 1 || !bytes.Equal(bodies[0], want) {
		t.Fatalf("feed %q, %v; want the envelope as recorded:\n%s", bodies, err, want)
	}
	var dup *status.DuplicateError
	if err := store.Statuses.Apply(ctx, change); !errors.As(err, &dup) || !bytes.Equal(dup.Body, want) {
		t.Errorf("applied again: %v, body %q; want a duplicate with the recorded envelope", err, dup)
	}

	var item map[string]ddbtypes.AttributeValue
	for _, it := range puts.items {
		if sk, ok := it["sk"].(*ddbtypes.AttributeValueMemberS); ok && strings.HasSuffix(sk.Value, ev.ID) {
			item = it
		}
	}
	if item == nil {
		t.Fatal("no feed item in the table")
	}
	if _, ok := item["body"]; ok {
		t.Error("the feed item keeps the envelope's JSON too")
	}
	if size := cost.ItemSize(item); size >= len(want) {
		t.Errorf("the feed item is %d B, not less than its %d B envelope", size, len(want))
	}
	t.Logf("envelope %d B, feed item %d B", len(want), cost.ItemSize(item))
}

// keptPuts keeps the items put through it.
type keptPuts struct {
	dynamo.DB
	items []map[string]ddbtypes.AttributeValue
}

func (k *keptPuts) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	k.items = append(k.items, in.Item)
	return k.DB.PutItem(ctx, in, opts...)
}
