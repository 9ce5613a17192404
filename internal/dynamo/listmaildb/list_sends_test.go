package listmaildb_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/dynamo/repositories"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/status"
	"github.com/sesame-mail/sesame/internal/suppression"
)

// A campaign email is claimed once; a released claim can be taken again.
func TestListSendsClaim(t *testing.T) {
	store, ws := dynamotest.StoreWithWorkspace(t)
	s, ctx := store.ListSends, t.Context()
	e := email.Email{ID: uuid.Must(uuid.NewV7()).String(), WorkspaceID: ws, To: "a@example.com", Status: email.StatusSent,
		Type: email.TypeCampaign, Environment: apikey.Live, SentAt: time.Now()}
	for i, want := range []bool{true, false} {
		if got, err := s.ClaimEmail(ctx, e); err != nil || got != want {
			t.Fatalf("claim %d = %v, %v; want %v", i, got, err, want)
		}
	}
	if err := s.ReleaseEmail(ctx, ws, e.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := s.ClaimEmail(ctx, e); err != nil || !got {
		t.Fatalf("claim after release = %v, %v", got, err)
	}
}

// Recipients reads each contact as it is now: deleted ones have no
// address, unsubscribed and suppressed ones say so.
func TestListSendsRecipients(t *testing.T) {
	store, ws := dynamotest.StoreWithWorkspace(t)
	ctx := t.Context()
	var ids []string
	for i, addr := range []string{"ok@example.com", "gone@example.com", "unsub@example.com", "Supp@example.com"} {
		c := contact.Contact{ID: uuid.Must(uuid.NewV7()).String(), WorkspaceID: ws, Email: contact.NormalizeEmail(addr),
			Subscribed: i != 2, CreatedAt: time.Now(), UpdatedAt: time.Now()}
		if i == 0 {
			c.FirstName, c.LastName, c.Properties = new("Ann"), new("Lee"), map[string]contact.Property{"plan": contact.StringProperty("pro"), "seats": contact.NumberProperty(3)}
		}
		if err := store.Contacts.CreateContact(ctx, c); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID)
	}
	if err := store.Contacts.DeleteContact(ctx, ws, ids[1]); err != nil {
		t.Fatal(err)
	}
	if _, _, err := store.Suppressions.PutSuppression(ctx, ws, suppression.Suppression{Email: "supp@example.com", Reason: suppression.Manual}); err != nil {
		t.Fatal(err)
	}
	got, err := store.ListSends.Recipients(ctx, ws, ids)
	if err != nil {
		t.Fatal(err)
	}
	none := map[string]contact.Property{}
	want := []campaign.Recipient{
		{ContactID: ids[0], Email: "ok@example.com", Subscribed: true, FirstName: new("Ann"), LastName: new("Lee"),
			Properties: map[string]contact.Property{"plan": contact.StringProperty("pro"), "seats": contact.NumberProperty(3)}},
		{ContactID: ids[1]},
		{ContactID: ids[2], Email: "unsub@example.com", Properties: none},
		{ContactID: ids[3], Email: "supp@example.com", Subscribed: true, Suppressed: true, Properties: none},
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("recipient %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// putCampaignRecord writes the least campaign record the counts go to.
func putCampaignRecord(t *testing.T, store repositories.Set, ws, id string) {
	t.Helper()
	_, err := store.Table.DB.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: &store.Table.Name, Item: map[string]ddbtypes.AttributeValue{
		"pk": &ddbtypes.AttributeValueMemberS{Value: "WS#" + ws + "#CAMPAIGN"}, "sk": &ddbtypes.AttributeValueMemberS{Value: id},
	}})
	if err != nil {
		t.Fatal(err)
	}
}

// A progress commit over a moved version is refused and counts nothing;
// the right one adds its counts to the campaign.
func TestListSendsCommitProgress(t *testing.T) {
	store, ws := dynamotest.StoreWithWorkspace(t)
	s, ctx := store.ListSends, t.Context()
	id := uuid.Must(uuid.NewV7()).String()
	putCampaignRecord(t, store, ws, id)
	first := campaign.Progress{Version: 1, Done: []byte{0b11}}
	if err := s.CommitProgress(ctx, ws, id, 0, campaign.Progress{}, first, 1, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.CommitProgress(ctx, ws, id, 0, campaign.Progress{}, first, 1, 1); !errors.Is(err, campaign.ErrProgressMoved) {
		t.Fatalf("stale commit: %v", err)
	}
	if err := s.CommitProgress(ctx, ws, id, 0, first, campaign.Progress{Version: 2, Done: []byte{0b111}}, 1, 0); err != nil {
		t.Fatal(err)
	}
	got, err := s.Progress(ctx, ws, id, 0)
	if err != nil || got.Version != 2 || !got.IsDone(2) || got.IsDone(3) {
		t.Fatalf("progress %+v, %v", got, err)
	}
	out, err := store.Table.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: &store.Table.Name, Key: map[string]ddbtypes.AttributeValue{
		"pk": &ddbtypes.AttributeValueMemberS{Value: "WS#" + ws + "#CAMPAIGN"}, "sk": &ddbtypes.AttributeValueMemberS{Value: id},
	}, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if n := out.Item["sent_count"].(*ddbtypes.AttributeValueMemberN).Value; n != "2" {
		t.Errorf("sent_count = %s, want 2", n)
	}
	if n := out.Item["skipped_count"].(*ddbtypes.AttributeValueMemberN).Value; n != "1" {
		t.Errorf("skipped_count = %s, want 1", n)
	}
}

// The breaker's tally sums the sends the sender counted and the bounces
// and complaints the pipeline counted for campaign emails, by send hour.
func TestListSendsTally(t *testing.T) {
	store, ws := dynamotest.StoreWithWorkspace(t)
	ctx := t.Context()
	sent := time.Date(2026, 11, 24, 9, 30, 0, 0, time.UTC)
	if err := store.ListSends.CountSent(ctx, ws, sent, 100); err != nil {
		t.Fatal(err)
	}
	if err := store.ListSends.CountSent(ctx, ws, sent.Add(-30*time.Hour), 50); err != nil { // out of the window
		t.Fatal(err)
	}
	tally := status.Tally{}
	for i, name := range []string{"bounced", "bounced", "complained"} {
		c := status.Change{WorkspaceID: ws, DedupeID: "evt" + string(rune('a'+i)), OccurredAt: sent, Reputation: []string{name}, SentAt: sent.Add(time.Duration(i) * time.Minute)}
		if err := store.Statuses.Apply(ctx, c); err != nil {
			t.Fatal(err)
		}
		tally.Add(c)
	}
	if err := store.Statuses.Count(ctx, tally); err != nil {
		t.Fatal(err)
	}
	got, err := store.ListSends.Tally(ctx, ws, sent.Add(-24*time.Hour), sent.Add(time.Hour))
	if err != nil || got != (campaign.Tally{Sent: 100, Bounced: 2, Complained: 1}) {
		t.Fatalf("tally %+v, %v", got, err)
	}
}

// A counter of a kind the store does not know is an error, never dropped.
func TestStatusesCountUnknownKind(t *testing.T) {
	store, ws := dynamotest.StoreWithWorkspace(t)
	tally := status.Tally{{Kind: "nonsense", WorkspaceID: ws, Key: "k"}: {"n": 1}}
	if err := store.Statuses.Count(t.Context(), tally); err == nil {
		t.Fatal("Count of an unknown kind succeeded")
	}
}

// Due starts are listed once their time has come, and cleared.
func TestListSendsDue(t *testing.T) {
	store, ws := dynamotest.StoreWithWorkspace(t)
	s, ctx := store.ListSends, t.Context()
	at := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	d := campaign.DueStart{At: at, WorkspaceID: ws, CampaignID: uuid.Must(uuid.NewV7()).String()}
	if err := s.PutDue(ctx, d); err != nil {
		t.Fatal(err)
	}
	if got, err := s.DueBy(ctx, at.Add(-time.Second)); err != nil || len(got) != 0 {
		t.Fatalf("due early: %v, %v", got, err)
	}
	got, err := s.DueBy(ctx, at)
	if err != nil || len(got) != 1 || got[0] != d {
		t.Fatalf("due %v, %v", got, err)
	}
	if err := s.ClearDue(ctx, d); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.DueBy(ctx, at); len(got) != 0 {
		t.Fatalf("due after clear: %v", got)
	}
}
