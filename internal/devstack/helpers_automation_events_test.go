package devstack_test

// Helpers of the automation tests: a workspace with a live and a test key
// that may report events, contacts put through the repository,
// automations created and activated through the owner service (as the
// console does), events reported through POST /api/v1/automations/events
// and runs read back through the runs repository.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/workspace"
)

const eventsPath = "/api/v1/automations/events"

// eventWS is a workspace with a verified default sender (so its
// automations activate) and a live and a test key that may report events.
type eventWS struct {
	id, live, test string
}

func newEventWS(t *testing.T, e *env) eventWS {
	t.Helper()
	s := newSendWS(t, e, defaultSender())
	addr := "Shop Ltd, 1 Main St, Springfield" // automation emails' footer
	s.update(t, e, workspace.Settings{PostalAddress: &addr})
	test, _, err := e.store.Keys.CreateKey(t.Context(), s.id, apikey.Test, "", []apikey.Scope{apikey.AutomationsTrigger})
	if err != nil {
		t.Fatal(err)
	}
	return eventWS{id: s.id, live: s.scopedKey(t, e, apikey.AutomationsTrigger), test: test}
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

// automations is the owner's automation service over the dev server's
// table, as the console builds it.
func (e *env) automations() *automation.Service {
	return &automation.Service{Store: e.store.Automations, Senders: e.store.Senders, Workspaces: e.store.Workspaces}
}

// reminder is a one-send definition for event whose subject says which
// version of it a run executes.
func reminder(event, subject string) automation.Definition {
	return automation.Definition{Name: "Reminder", Event: event, Steps: []automation.Step{{
		Type: automation.StepSend, Subject: subject, HTML: `<p>Hi {{ contact.first_name | "there" }}</p>`,
	}}}
}

// createAutomation creates a draft automation of workspaceID from d
// through the owner service (a definition file, as `create --file`).
func createAutomation(t *testing.T, e *env, workspaceID string, d automation.Definition) string {
	t.Helper()
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	a, err := e.automations().Create(t.Context(), automation.AutomationRequest{WorkspaceID: workspaceID, Definition: b})
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}

// activeAutomation creates an automation from d and activates it; it
// returns the automation's id.
func activeAutomation(t *testing.T, e *env, workspaceID string, d automation.Definition) string {
	t.Helper()
	id := createAutomation(t, e, workspaceID, d)
	activate(t, e, workspaceID, id)
	return id
}

func activate(t *testing.T, e *env, workspaceID, id string) {
	t.Helper()
	if _, err := e.automations().Activate(t.Context(), workspaceID, id); err != nil {
		t.Fatal(err)
	}
}

// editAutomation writes d as the automation's next version; it returns
// the version.
func editAutomation(t *testing.T, e *env, workspaceID, id string, d automation.Definition) int {
	t.Helper()
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	a, err := e.automations().Edit(t.Context(), workspaceID, id, automation.AutomationEdit{Definition: b})
	if err != nil {
		t.Fatal(err)
	}
	return a.Version
}

// listen is an active automation of the workspace listening for event.
func (w eventWS) listen(t *testing.T, e *env, event string) string {
	t.Helper()
	return activeAutomation(t, e, w.id, reminder(event, "Version 1"))
}

// itemsUnder reads every item of the table whose partition key starts
// with prefix (a test's own table: a Scan is fine here).
func itemsUnder(t *testing.T, e *env, prefix string) int {
	t.Helper()
	n := 0
	for _, it := range dynamotest.Items(t, e.store.Table.Name) {
		var k struct {
			PK string `dynamodbav:"pk"`
		}
		if err := attributevalue.UnmarshalMap(it, &k); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(k.PK, prefix) {
			n++
		}
	}
	return n
}

// runs are every run of an automation, newest first, read through the
// runs repository.
func runsOf(t *testing.T, e *env, workspaceID, automationID string) []automation.Run {
	t.Helper()
	var all []automation.Run
	after := ""
	for {
		page, next, more, err := e.store.AutomationRuns.ListRuns(t.Context(), workspaceID, automationID, after, 100)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, page...)
		if !more {
			return all
		}
		after = next
	}
}

func (w eventWS) runs(t *testing.T, e *env, automationID string) []automation.Run {
	return runsOf(t, e, w.id, automationID)
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
