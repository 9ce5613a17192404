package devstack_test

// Helpers of the automation event tests: an event workspace with a live
// and a test key, contacts put through the repository, listeners seeded as
// the definitions' activation writes them, and the run items read back.

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
)

const eventsPath = "/api/v1/automations/events"

// eventWS is a workspace with a live and a test key that may report events.
type eventWS struct {
	id, live, test string
}

func newEventWS(t *testing.T, e *env) eventWS {
	t.Helper()
	id, live := e.workspace(apikey.Live, apikey.AutomationsTrigger)
	test, _, err := e.store.Keys.CreateKey(t.Context(), id, apikey.Test, "", []apikey.Scope{apikey.AutomationsTrigger})
	if err != nil {
		t.Fatal(err)
	}
	return eventWS{id: id, live: live, test: test}
}

// contact puts a contact with email into the workspace and returns its id.
func (w eventWS) contact(t *testing.T, e *env, email string) string {
	t.Helper()
	now := time.Now().UTC()
	c := contact.Contact{ID: uuid.Must(uuid.NewV7()).String(), WorkspaceID: w.id, Email: email, Subscribed: true, CreatedAt: now, UpdatedAt: now}
	if err := e.store.Contacts.CreateContact(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	return c.ID
}

// contacts puts n contacts into the workspace and returns their ids.
func (w eventWS) contacts(t *testing.T, e *env, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = w.contact(t, e, fmt.Sprintf("c%d@example.com", i))
	}
	return ids
}

// listener is the item activation writes (dynamo's listenerItem): the
// automation listening for an event at the version new runs execute.
type listener struct {
	PK           string `dynamodbav:"pk"`
	SK           string `dynamodbav:"sk"`
	AutomationID string `dynamodbav:"automation_id"`
	Version      int    `dynamodbav:"version"`
}

// listen makes automationID (a new one when "") listen for event at
// version, as activating or editing an active automation does; it
// returns the automation's id.
func (w eventWS) listen(t *testing.T, e *env, event, automationID string, version int) string {
	t.Helper()
	if automationID == "" {
		automationID = uuid.Must(uuid.NewV7()).String()
	}
	item, err := attributevalue.MarshalMap(listener{
		PK: "WS#" + w.id + "#AUTOEVENT#" + event, SK: automationID, AutomationID: automationID, Version: version,
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dynamotest.Client(t).PutItem(t.Context(), &dynamodb.PutItemInput{TableName: &e.store.Table.Name, Item: item}); err != nil {
		t.Fatal(err)
	}
	return automationID
}

// runItem is what a run's item holds of the start (dynamo's runItem).
type runItem struct {
	ID           string            `dynamodbav:"id"`
	AutomationID string            `dynamodbav:"automation_id"`
	Version      int               `dynamodbav:"version"`
	ContactID    string            `dynamodbav:"contact_id"`
	EventKey     string            `dynamodbav:"event_key"`
	Environment  string            `dynamodbav:"environment"`
	Payload      map[string]string `dynamodbav:"payload"`
	Status       string            `dynamodbav:"status"`
	Step         int               `dynamodbav:"step"`
	DueAt        time.Time         `dynamodbav:"due_at"`
}

// itemsUnder reads every item of the table whose partition key starts
// with prefix (a test's own table: a Scan is fine here).
func itemsUnder[T any](t *testing.T, e *env, prefix string) []T {
	t.Helper()
	var out []T
	for _, it := range dynamotest.Items(t, e.store.Table.Name) {
		var k struct {
			PK string `dynamodbav:"pk"`
		}
		if err := attributevalue.UnmarshalMap(it, &k); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(k.PK, prefix) {
			continue
		}
		var v T
		if err := attributevalue.UnmarshalMap(it, &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// runs are the runs of an automation.
func (w eventWS) runs(t *testing.T, e *env, automationID string) []runItem {
	return itemsUnder[runItem](t, e, "WS#"+w.id+"#AUTORUN#"+automationID)
}

// report POSTs an event (a map, or raw JSON text) and decodes its 200
// answer.
func (e *env) report(t *testing.T, key string, body any) automation.EventResult {
	t.Helper()
	var out struct{ Data automation.EventResult }
	e.post(key, eventsPath, body).decode(t, http.StatusOK, &out)
	return out.Data
}

// event is a request body for contact id with key.
func event(name, key, contactID string, payload map[string]any) map[string]any {
	b := map[string]any{"event": name, "event_key": key, "contact": map[string]any{"id": contactID}}
	if payload != nil {
		b["payload"] = payload
	}
	return b
}

// wantRuns checks an answer's runs' statuses, in listener order.
func wantRuns(t *testing.T, res automation.EventResult, want ...automation.RunOutcome) {
	t.Helper()
	if len(res.Runs) != len(want) || res.Matched != len(want) {
		t.Fatalf("runs %+v (matched %d), want %v", res.Runs, res.Matched, want)
	}
	started := 0
	for i, r := range res.Runs {
		if r.Status != want[i] {
			t.Errorf("run %d: status %s, want %s", i, r.Status, want[i])
		}
		if (r.RunID != "") != (r.Status == automation.OutcomeStarted) {
			t.Errorf("run %d (%s): run_id %q", i, r.Status, r.RunID)
		}
		if r.Status == automation.OutcomeStarted {
			started++
		}
	}
	if res.Started != started {
		t.Errorf("started = %d, want %d", res.Started, started)
	}
}
