package automation_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/dynamo/repositories"
	"github.com/sesame-mail/sesame/internal/dynamo/storetest"
	"github.com/sesame-mail/sesame/internal/fail/failtest"
)

// putAutomation stores the key of an automation of workspaceID, as the
// definitions' create writes it (dynamo's automationItem), and returns
// its id; the runs side reads no more of it.
func putAutomation(t *testing.T, store repositories.Set, workspaceID string) string {
	t.Helper()
	id := uuid.Must(uuid.NewV7()).String()
	item, err := attributevalue.MarshalMap(map[string]string{"pk": "WS#" + workspaceID + "#AUTOMATION", "sk": id, "id": id})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Table.DB.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: &store.Table.Name, Item: item}); err != nil {
		t.Fatal(err)
	}
	return id
}

// startRun starts a run of automationID for a new contact, as an event
// does, and returns its id.
func startRun(t *testing.T, store repositories.Set, workspaceID, automationID string) string {
	t.Helper()
	now := time.Now().UTC()
	r := automation.Run{ID: uuid.Must(uuid.NewV7()).String(), WorkspaceID: workspaceID, AutomationID: automationID, Version: 1,
		ContactID: uuid.NewString(), Event: "cart_abandoned", EventKey: uuid.NewString(), Environment: apikey.Live,
		Payload: map[string]string{"product_name": "Linen shirt"}, Status: automation.RunActive, DueAt: now, StartedAt: now, UpdatedAt: now}
	if out, err := store.AutomationRuns.StartRun(t.Context(), r); err != nil || out != automation.OutcomeStarted {
		t.Fatalf("start run: %s, %v", out, err)
	}
	return r.ID
}

// An automation's runs come newest first, a page at a time.
func TestAutomationRunsPages(t *testing.T) {
	store := storetest.New(t)
	ws := storetest.Workspace(t, store, "Acme").ID
	s := &automation.Runs{Store: store.AutomationRuns}
	auto, other := putAutomation(t, store, ws), putAutomation(t, store, ws)
	var ids []string
	for range 3 {
		ids = append(ids, startRun(t, store, ws, auto))
	}
	startRun(t, store, ws, other)
	slices.Sort(ids)
	slices.Reverse(ids) // UUIDv7: newest first

	first, err := s.Runs(t.Context(), ws, auto, automation.RunPage{Limit: 2})
	if err != nil || len(first.Runs) != 2 || first.Next == "" {
		t.Fatalf("first page = %+v, %v; want 2 runs and a next page", first, err)
	}
	rest, err := s.Runs(t.Context(), ws, strings.ToUpper(auto), automation.RunPage{After: first.Next})
	if err != nil || len(rest.Runs) != 1 || rest.Next != "" {
		t.Fatalf("second page = %+v, %v; want the last run and no next page", rest, err)
	}
	var got []string
	for _, r := range append(first.Runs, rest.Runs...) {
		got = append(got, r.ID)
		if r.AutomationID != auto || r.Payload["product_name"] != "Linen shirt" {
			t.Errorf("run %+v", r)
		}
	}
	if !slices.Equal(got, ids) {
		t.Errorf("runs %v, want newest first %v", got, ids)
	}
	if none, err := s.Runs(t.Context(), ws, uuid.NewString(), automation.RunPage{}); err != nil || none.Runs == nil || len(none.Runs) != 0 {
		t.Errorf("runs of an unknown automation = %+v, %v; want an empty list", none, err)
	}
	for field, page := range map[string]automation.RunPage{"limit": {Limit: automation.MaxRunLimit + 1}, "after": {After: "x"}} {
		_, err := s.Runs(t.Context(), ws, auto, page)
		failtest.WantInput(t, err, field)
	}
	_, err = s.Runs(t.Context(), ws, "cart", automation.RunPage{})
	failtest.WantInput(t, err, "automation")
	_, err = s.Runs(t.Context(), "", auto, automation.RunPage{})
	failtest.WantInput(t, err, "workspace")
}

// A run is found by its id alone, with its step log, among more
// automations than one BatchGetItem reads; never another workspace's.
func TestAutomationRunByID(t *testing.T) {
	store := storetest.New(t)
	ws, foreign := storetest.Workspace(t, store, "Acme").ID, storetest.Workspace(t, store, "Other").ID
	s := &automation.Runs{Store: store.AutomationRuns}
	var last string
	for range 101 {
		last = putAutomation(t, store, ws)
	}
	id := startRun(t, store, ws, last)
	r, err := store.AutomationRuns.GetRun(t.Context(), ws, last, id)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	if err := store.AutomationRuns.Advance(t.Context(), r, automation.Advance{Step: 1, DueAt: now, Status: automation.RunCompleted,
		Log: automation.StepLog{Step: 0, Type: automation.StepTag, At: now, Outcome: "tagged"}}); err != nil {
		t.Fatal(err)
	}

	got, err := s.Run(t.Context(), ws, strings.ToUpper(id))
	if err != nil || got.ID != id || got.AutomationID != last || got.Status != automation.RunCompleted || len(got.Log) != 1 || got.Log[0].Outcome != "tagged" {
		t.Fatalf("Run = %+v, %v; want the completed run with its one step", got, err)
	}
	foreignRun := startRun(t, store, foreign, putAutomation(t, store, foreign))
	for name, runID := range map[string]string{"another workspace's": foreignRun, "unknown": uuid.NewString(), "not an id": "run-1"} {
		_, err := s.Run(t.Context(), ws, runID)
		t.Run(name, func(t *testing.T) { failtest.WantInput(t, err, "run") })
	}
	empty := storetest.Workspace(t, store, "Empty").ID
	_, err = s.Run(t.Context(), empty, id)
	failtest.WantInput(t, err, "run")
}
