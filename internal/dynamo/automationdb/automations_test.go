package automationdb_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/dynamo/repositories"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// newAutomation stores a draft of ws listening for event, with one tag
// step adding tag.
func newAutomation(t *testing.T, store repositories.Set, ws, event, tag string) automation.Automation {
	t.Helper()
	a, err := store.Automations.CreateAutomation(t.Context(), automation.Automation{
		ID: uuid.Must(uuid.NewV7()).String(), WorkspaceID: ws, Name: "A " + tag, Event: event, Status: automation.StatusDraft,
		Steps: []automation.Step{{Type: automation.StepTag, Add: []string{tag}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// automationStore is a fresh store with two workspaces (their ids), its
// key layout checked at the end.
func automationStore(t *testing.T) (repositories.Set, string, string) {
	t.Helper()
	store, _ := dynamotest.NewStore(t)
	t.Cleanup(func() { dynamotest.CheckKeyLayout(t, store.Table.Name) })
	a, err := store.Workspaces.CreateWorkspace(t.Context(), "Acme")
	if err != nil {
		t.Fatal(err)
	}
	b, err := store.Workspaces.CreateWorkspace(t.Context(), "Beta")
	if err != nil {
		t.Fatal(err)
	}
	return store, a.ID, b.ID
}

func tagsDefinition(a automation.Automation, tag string) automation.Definition {
	d := a.Definition()
	d.Steps = []automation.Step{{Type: automation.StepTag, Add: []string{tag}}, {Type: automation.StepWait, Duration: automation.Duration(time.Hour)}}
	return d
}

// Every edit writes a new version and keeps the old ones unchanged; an
// edit from a stale read is refused; another workspace reads nothing.
func TestAutomationVersionsKept(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, ws1, ws2 := automationStore(t)
	a := newAutomation(t, store, ws1, "signed_up", "v1")
	if a.Version != 1 || a.CreatedAt.IsZero() {
		t.Fatalf("created %+v", a)
	}
	v2, err := store.Automations.UpdateAutomation(ctx, a, tagsDefinition(a, "v2"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Automations.UpdateAutomation(ctx, a, tagsDefinition(a, "stale")); !errors.Is(err, automation.ErrConflict) {
		t.Errorf("edit from a stale read: %v", err)
	}
	renamed := tagsDefinition(v2, "v3")
	renamed.Name, renamed.Event = "Renamed", "registered"
	v3, err := store.Automations.UpdateAutomation(ctx, v2, renamed)
	if err != nil {
		t.Fatal(err)
	}
	got, err := store.Automations.GetAutomation(ctx, ws1, a.ID)
	if err != nil || got.Version != 3 || got.Name != "Renamed" || got.Event != "registered" || got.Steps[0].Add[0] != "v3" ||
		len(got.Steps) != 2 || got.Steps[1].Duration != automation.Duration(time.Hour) || !got.UpdatedAt.Equal(v3.UpdatedAt) {
		t.Errorf("read back %+v, %v", got, err)
	}
	for v, tag := range map[int]string{1: "v1", 2: "v2", 3: "v3"} {
		steps, err := store.Automations.GetVersion(ctx, ws1, a.ID, v)
		if err != nil || steps[0].Add[0] != tag {
			t.Errorf("version %d = %+v, %v; want tag %s", v, steps, err, tag)
		}
	}
	if _, err := store.Automations.GetVersion(ctx, ws1, a.ID, 4); !errors.Is(err, automation.ErrNotFound) {
		t.Errorf("version 4: %v", err)
	}
	b := newAutomation(t, store, ws1, "signed_up", "b")
	list, err := store.Automations.ListAutomations(ctx, ws1)
	if err != nil || len(list) != 2 || list[0].ID != a.ID || list[1].ID != b.ID {
		t.Errorf("list = %+v, %v", list, err)
	}
	if _, err := store.Automations.GetAutomation(ctx, ws2, a.ID); !errors.Is(err, automation.ErrNotFound) {
		t.Errorf("another workspace reads the automation: %v", err)
	}
	if list, err := store.Automations.ListAutomations(ctx, ws2); err != nil || len(list) != 0 {
		t.Errorf("another workspace lists %v, %v", list, err)
	}
}

// Activation writes the listener at the current version, an edit of an
// active automation moves it to the new version, deactivation removes it.
func TestAutomationListeners(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, ws1, _ := automationStore(t)
	a := newAutomation(t, store, ws1, "cart_abandoned", "x")
	listeners := func(event string, want ...automation.Listener) {
		t.Helper()
		got, err := store.Automations.Listeners(ctx, ws1, event)
		if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("listeners of %s = %v, %v; want %v", event, got, err, want)
		}
	}
	listeners("cart_abandoned")
	active, err := store.Automations.ActivateAutomation(ctx, a)
	if err != nil || active.Status != automation.StatusActive {
		t.Fatalf("activate: %+v, %v", active, err)
	}
	listeners("cart_abandoned", automation.Listener{AutomationID: a.ID, Version: 1})
	if _, err := store.Automations.ActivateAutomation(ctx, a); !errors.Is(err, automation.ErrConflict) {
		t.Errorf("activating from a stale read: %v", err)
	}
	if _, err := store.Automations.UpdateAutomation(ctx, a, tagsDefinition(a, "y")); !errors.Is(err, automation.ErrConflict) {
		t.Errorf("editing as a draft an automation activated meanwhile: %v", err)
	}
	v2, err := store.Automations.UpdateAutomation(ctx, active, tagsDefinition(active, "y"))
	if err != nil || v2.Status != automation.StatusActive {
		t.Fatalf("edit while active: %+v, %v", v2, err)
	}
	listeners("cart_abandoned", automation.Listener{AutomationID: a.ID, Version: 2})
	moved := tagsDefinition(v2, "z")
	moved.Event = "other"
	if _, err := store.Automations.UpdateAutomation(ctx, v2, moved); err == nil {
		t.Error("an active automation changed its event")
	}
	inactive, err := store.Automations.DeactivateAutomation(ctx, v2)
	if err != nil || inactive.Status != automation.StatusInactive {
		t.Fatalf("deactivate: %+v, %v", inactive, err)
	}
	listeners("cart_abandoned")
	if _, err := store.Automations.DeactivateAutomation(ctx, v2); !errors.Is(err, automation.ErrConflict) {
		t.Errorf("deactivating twice: %v", err)
	}
	if got, _ := store.Automations.GetAutomation(ctx, ws1, a.ID); got.Status != automation.StatusInactive || got.Version != 2 {
		t.Errorf("read back %+v", got)
	}
}

// At most ten automations listen for one event name: the 11th activation
// is refused until one is deactivated; another event is not affected.
func TestEleventhActivationRefused(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, ws1, ws2 := automationStore(t)
	var active []automation.Automation
	for i := range automation.MaxActivePerEvent {
		a, err := store.Automations.ActivateAutomation(ctx, newAutomation(t, store, ws1, "order_placed", fmt.Sprint("t", i)))
		if err != nil {
			t.Fatal(err)
		}
		active = append(active, a)
	}
	eleventh := newAutomation(t, store, ws1, "order_placed", "t10")
	if _, err := store.Automations.ActivateAutomation(ctx, eleventh); !errors.Is(err, automation.ErrEventFull) {
		t.Fatalf("11th activation: %v", err)
	}
	if got, _ := store.Automations.GetAutomation(ctx, ws1, eleventh.ID); got.Status != automation.StatusDraft {
		t.Errorf("the refused automation is %s", got.Status)
	}
	if _, err := store.Automations.ActivateAutomation(ctx, newAutomation(t, store, ws1, "back_in_stock", "o")); err != nil {
		t.Errorf("another event: %v", err)
	}
	if _, err := store.Automations.ActivateAutomation(ctx, newAutomation(t, store, ws2, "order_placed", "o")); err != nil {
		t.Errorf("another workspace: %v", err)
	}
	if _, err := store.Automations.DeactivateAutomation(ctx, active[3]); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Automations.ActivateAutomation(ctx, eleventh); err != nil {
		t.Errorf("activation after a deactivation: %v", err)
	}
	if l, _ := store.Automations.Listeners(ctx, ws1, "order_placed"); len(l) != automation.MaxActivePerEvent {
		t.Errorf("%d listeners", len(l))
	}
}

// Fifteen activations at once on one event name: never more than ten
// listeners, and each refusal is the limit or a retryable store fault.
func TestConcurrentActivationsNeverExceedTen(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, ws1, _ := automationStore(t)
	drafts := make([]automation.Automation, 15)
	for i := range drafts {
		drafts[i] = newAutomation(t, store, ws1, "back_in_stock", fmt.Sprint("t", i))
	}
	var (
		mu        sync.Mutex
		activated int
		wg        sync.WaitGroup
	)
	for _, a := range drafts {
		wg.Go(func() {
			_, err := store.Automations.ActivateAutomation(ctx, a)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				activated++
			case !errors.Is(err, automation.ErrEventFull):
				t.Logf("activation refused: %v", err) // a store fault after its retries
			}
		})
	}
	wg.Wait()
	l, err := store.Automations.Listeners(ctx, ws1, "back_in_stock")
	if err != nil || activated > automation.MaxActivePerEvent || len(l) != activated || activated == 0 {
		t.Errorf("%d activated, %d listeners (%v); at most %d", activated, len(l), err, automation.MaxActivePerEvent)
	}
	for _, a := range drafts { // the limit still holds after the race
		_, _ = store.Automations.ActivateAutomation(ctx, a)
	}
	if l, _ := store.Automations.Listeners(ctx, ws1, "back_in_stock"); len(l) != automation.MaxActivePerEvent {
		t.Errorf("%d listeners after every activation was tried again", len(l))
	}
}

// An automation of no workspace is refused, nothing written.
func TestAutomationOfNoWorkspace(t *testing.T) {
	t.Parallel()
	store, _ := dynamotest.NewStore(t)
	_, err := store.Automations.CreateAutomation(t.Context(), automation.Automation{ID: uuid.Must(uuid.NewV7()).String(), WorkspaceID: "nope", Name: "x", Event: "e"})
	if !errors.Is(err, workspace.ErrNotFound) {
		t.Errorf("err = %v", err)
	}
	if items := dynamotest.Items(t, store.Table.Name); len(items) != 0 {
		t.Errorf("%d items written", len(items))
	}
}
