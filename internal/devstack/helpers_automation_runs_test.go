package devstack_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/devstack"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/queue/queuetest"
	"github.com/sesame-mail/sesame/internal/routes"
)

// startAutomations is a dev server on clock whose automation emails are
// kept raw, and the poller of its automations queue with the dev
// server's runner.
func startAutomations(t *testing.T, clock *dynamotest.Clock) (*env, *queue.Poller) {
	t.Helper()
	dir := t.TempDir()
	e := newEnv(t, func(deps api.Deps, _ *queuetest.Set) (api.Deps, []httpapi.Route) {
		deps.Repos.Table.Now = clock.Now
		raw := &devstack.RawMessages{Dir: dir, Next: deps.AutomationRunner.Transport, Emails: deps.Repos.Emails}
		deps.AutomationRunner.Transport = raw
		deps.AutomationRunner.Captures = raw
		return deps, raw.Routes()
	})
	return e, e.queues.Poller(t, queue.Automations.Name, api.Consumers(e.deps)[routes.AutomationRunner])
}

// The items a started run is made of, as the event route writes them
// (dynamo's automation items): seeded directly until the lead wires the
// event route's StartRun in.
type seedVersion struct {
	PK        string    `dynamodbav:"pk"`
	SK        string    `dynamodbav:"sk"`
	Steps     string    `dynamodbav:"steps"`
	CreatedAt time.Time `dynamodbav:"created_at"`
}

type seedRun struct {
	PK           string            `dynamodbav:"pk"`
	SK           string            `dynamodbav:"sk"`
	ID           string            `dynamodbav:"id"`
	AutomationID string            `dynamodbav:"automation_id"`
	Version      int               `dynamodbav:"version"`
	ContactID    string            `dynamodbav:"contact_id"`
	Event        string            `dynamodbav:"event"`
	EventKey     string            `dynamodbav:"event_key"`
	Environment  string            `dynamodbav:"environment"`
	Payload      map[string]string `dynamodbav:"payload,omitempty"`
	Status       string            `dynamodbav:"status"`
	Step         int               `dynamodbav:"step"`
	DueAt        time.Time         `dynamodbav:"due_at"`
	StartedAt    time.Time         `dynamodbav:"started_at"`
	UpdatedAt    time.Time         `dynamodbav:"updated_at"`
}

type seedLive struct {
	PK    string `dynamodbav:"pk"`
	SK    string `dynamodbav:"sk"`
	RunID string `dynamodbav:"run_id"`
}

// startRun stores version 1 of an automation with steps and a run of it
// for the contact, due now, and wakes it on the automations queue.
func startRun(t *testing.T, e *env, workspaceID, contactID string, env apikey.Environment, payload map[string]string, steps ...automation.Step) automation.WakeMessage {
	t.Helper()
	now := e.store.Table.Time().UTC()
	autoID, runID := uuid.Must(uuid.NewV7()).String(), uuid.Must(uuid.NewV7()).String()
	js, err := json.Marshal(steps)
	if err != nil {
		t.Fatal(err)
	}
	ws := "WS#" + workspaceID + "#"
	put(t, e, seedVersion{PK: ws + "AUTOVER#" + autoID, SK: fmt.Sprintf("%06d", 1), Steps: string(js), CreatedAt: now})
	put(t, e, seedLive{PK: ws + "AUTOLIVE#" + autoID, SK: contactID, RunID: runID})
	put(t, e, seedRun{PK: ws + "AUTORUN#" + autoID, SK: runID, ID: runID, AutomationID: autoID, Version: 1, ContactID: contactID,
		Event: "cart_abandoned", EventKey: "order-" + runID, Environment: string(env), Payload: payload,
		Status: string(automation.RunActive), DueAt: now, StartedAt: now, UpdatedAt: now})
	m := automation.WakeMessage{WorkspaceID: workspaceID, AutomationID: autoID, RunID: runID}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	e.queues.Send(t, queue.Automations.Name, string(b))
	return m
}

func put(t *testing.T, e *env, item any) {
	t.Helper()
	av, err := attributevalue.MarshalMap(item)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Table.DB.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: &e.store.Table.Name, Item: av}); err != nil {
		t.Fatal(err)
	}
}

// drainAutomations polls the automations queue until it is empty.
func drainAutomations(t *testing.T, q *queue.Poller) {
	t.Helper()
	for range 20 {
		n, err := q.PollOnce(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
	t.Fatal("the automations queue never emptied")
}

// runOf reads a run back.
func runOf(t *testing.T, e *env, m automation.WakeMessage) automation.Run {
	t.Helper()
	r, err := e.store.AutomationRuns.GetRun(t.Context(), m.WorkspaceID, m.AutomationID, m.RunID)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
