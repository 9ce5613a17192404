package automation_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/dynamo/repositories"
	"github.com/sesame-mail/sesame/internal/dynamo/storetest"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/fail/failtest"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// automationsOf is the automations service over store.
func automationsOf(store repositories.Set) *automation.Service {
	return &automation.Service{Store: store.Automations, Senders: store.Senders, Workspaces: store.Workspaces}
}

// sendingWorkspace is a workspace whose default sender is on its verified
// domain acme.test; it also has a sender on beta.test, not verified.
// It returns the workspace and that unverified sender.
func sendingWorkspace(t *testing.T, store repositories.Set) (workspace.Workspace, identity.Sender) {
	t.Helper()
	ctx := t.Context()
	ws := storetest.Workspace(t, store, "Acme")
	addr := "Acme Ltd, 1 Main St, Springfield"
	if _, err := store.Workspaces.UpdateWorkspace(ctx, ws.ID, workspace.Settings{PostalAddress: &addr}); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"acme.test", "beta.test"} {
		if _, err := store.Domains.AddDomain(ctx, ws.ID, d, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := store.Domains.SetDomainStatus(ctx, ws.ID, "acme.test", identity.DomainVerified, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Senders.AddSender(ctx, ws.ID, identity.Sender{Name: "Acme", Email: "hello@acme.test"}, true); err != nil {
		t.Fatal(err)
	}
	beta, err := store.Senders.AddSender(ctx, ws.ID, identity.Sender{Name: "Beta", Email: "hi@beta.test"}, false)
	if err != nil {
		t.Fatal(err)
	}
	return ws, beta
}

// definitionJSON is d as a file holds it.
func definitionJSON(t *testing.T, d automation.Definition) []byte {
	t.Helper()
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wantActivation fails t unless err is an ActivationError with a problem
// at each of paths.
func wantActivation(t *testing.T, err error, paths ...string) {
	t.Helper()
	var ae *automation.ActivationError
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v, want an activation error", err)
	}
	for _, p := range paths {
		if !strings.Contains(ae.Error(), p+": ") {
			t.Errorf("activation error lacks %s:\n%v", p, ae)
		}
	}
}

func TestAutomationCreate(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store := storetest.New(t)
	svc := automationsOf(store)
	ws := storetest.Workspace(t, store, "Acme")
	for _, name := range automation.BlueprintNames() {
		a, err := svc.Create(ctx, automation.AutomationRequest{WorkspaceID: ws.ID, Blueprint: name})
		if err != nil || a.Status != automation.StatusDraft || a.Event != name || a.Version != 1 {
			t.Errorf("blueprint %s: %+v, %v", name, a, err)
		}
	}
	d, _ := automation.Blueprint("order_placed")
	a, err := svc.Create(ctx, automation.AutomationRequest{WorkspaceID: ws.ID, Definition: definitionJSON(t, d), Name: "Orders", Event: "order_paid"})
	if err != nil || a.Name != "Orders" || a.Event != "order_paid" || len(a.Steps) != len(d.Steps) {
		t.Errorf("from a file: %+v, %v", a, err)
	}
	if list, err := svc.List(ctx, ws.ID); err != nil || len(list) != 5 || list[4].ID != a.ID {
		t.Errorf("list = %d automations, %v", len(list), err)
	}
	bad := d
	bad.Steps = []automation.Step{{Type: automation.StepWait, Duration: automation.Duration(automation.MaxWait + time.Minute)}, {Type: automation.StepSend}}
	refusals := map[string]struct {
		req   automation.AutomationRequest
		field string
	}{
		"neither":           {automation.AutomationRequest{}, "blueprint"},
		"both":              {automation.AutomationRequest{Blueprint: "order_placed", Definition: []byte("{}")}, "blueprint"},
		"unknown blueprint": {automation.AutomationRequest{Blueprint: "welcome"}, "blueprint"},
		"not JSON":          {automation.AutomationRequest{Definition: []byte("name: x")}, "file"},
		"bad steps":         {automation.AutomationRequest{Definition: definitionJSON(t, bad)}, "file"},
		"event with spaces": {automation.AutomationRequest{Blueprint: "cart_abandoned", Event: "Cart Abandoned"}, "event"},
		"event uppercase":   {automation.AutomationRequest{Blueprint: "cart_abandoned", Event: "CART_ABANDONED"}, "event"},
		"long name":         {automation.AutomationRequest{Blueprint: "cart_abandoned", Name: strings.Repeat("n", 101)}, "name"},
	}
	for name, tt := range refusals {
		tt.req.WorkspaceID = ws.ID
		_, err := svc.Create(ctx, tt.req)
		if fail.ParamOf(err) != tt.field {
			t.Errorf("%s: err = %v, want an input error about %q", name, err, tt.field)
		}
	}
	_, err = svc.Create(ctx, automation.AutomationRequest{Definition: definitionJSON(t, bad), WorkspaceID: ws.ID})
	for _, path := range []string{"steps[0].duration", "steps[1].subject", "steps[1].html"} {
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("the refusal does not name %s: %v", path, err)
		}
	}
	if _, err := svc.Create(ctx, automation.AutomationRequest{WorkspaceID: "nope", Blueprint: "cart_abandoned"}); !errors.Is(err, workspace.ErrNotFound) {
		t.Errorf("no workspace: %v", err)
	}
	if _, err := svc.Show(ctx, ws.ID, "0190a2c0-0000-7000-8000-000000000000"); err == nil {
		t.Error("showed an unknown automation")
	} else {
		failtest.WantInput(t, err, "automation")
	}
}

func TestAutomationActivation(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store := storetest.New(t)
	svc := automationsOf(store)
	ws, beta := sendingWorkspace(t, store)
	cart, err := svc.Create(ctx, automation.AutomationRequest{WorkspaceID: ws.ID, Blueprint: "cart_abandoned"})
	if err != nil {
		t.Fatal(err)
	}
	active, err := svc.Activate(ctx, ws.ID, cart.ID)
	if err != nil || active.Status != automation.StatusActive {
		t.Fatalf("activate the blueprint: %+v, %v", active, err)
	}
	if again, err := svc.Activate(ctx, ws.ID, cart.ID); err != nil || again.Version != active.Version {
		t.Errorf("activating twice: %+v, %v", again, err)
	}

	// Content some run cannot render, senders that cannot send: every
	// problem at once, nothing activated.
	d, _ := automation.Blueprint("back_in_stock")
	d.Steps[0].Subject = "{{ event.product_name }} is back"
	d.Steps = append(d.Steps,
		automation.Step{Type: automation.StepSend, Subject: "s", HTML: "h", SenderID: beta.ID},
		automation.Step{Type: automation.StepSend, Subject: "s", HTML: "{{ contact.phone | \"x\" }}", SenderID: "0190a2c0-0000-7000-8000-000000000000"})
	broken, err := svc.Create(ctx, automation.AutomationRequest{WorkspaceID: ws.ID, Definition: definitionJSON(t, d)})
	if err != nil {
		t.Fatalf("a draft may hold what activation refuses: %v", err)
	}
	_, err = svc.Activate(ctx, ws.ID, broken.ID)
	wantActivation(t, err, "steps[0].subject", "steps[2].sender_id", "steps[3].html", "steps[3].sender_id")
	if !strings.Contains(err.Error(), "not on a verified domain") || !strings.Contains(err.Error(), "no sender with this id") {
		t.Errorf("the sender problems do not say why: %v", err)
	}
	if got, _ := svc.Show(ctx, ws.ID, broken.ID); got.Status != automation.StatusDraft {
		t.Errorf("refused automation is %s", got.Status)
	}

	// A workspace with no default sender cannot activate a send that names
	// none, nor one without the postal address of the emails' footer.
	bare := storetest.Workspace(t, store, "Bare")
	noSender, err := svc.Create(ctx, automation.AutomationRequest{WorkspaceID: bare.ID, Blueprint: "order_placed"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.Activate(ctx, bare.ID, noSender.ID)
	wantActivation(t, err, "steps[0].sender_id", "steps[3].sender_id", "postal_address")
	if n := strings.Count(err.Error(), "postal_address: "); n != 1 {
		t.Errorf("the postal address named %d times, want once:\n%v", n, err)
	}

	// The 11th automation on one event name is refused, saying why.
	for range automation.MaxActivePerEvent - 1 {
		a, err := svc.Create(ctx, automation.AutomationRequest{WorkspaceID: ws.ID, Blueprint: "cart_abandoned"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Activate(ctx, ws.ID, a.ID); err != nil {
			t.Fatal(err)
		}
	}
	eleventh, err := svc.Create(ctx, automation.AutomationRequest{WorkspaceID: ws.ID, Blueprint: "cart_abandoned"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.Activate(ctx, ws.ID, eleventh.ID)
	wantActivation(t, err, "event")
	if !strings.Contains(fmt.Sprint(err), "10 active automations") {
		t.Errorf("the 11th activation: %v", err)
	}
	if _, err := svc.Deactivate(ctx, ws.ID, cart.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Activate(ctx, ws.ID, eleventh.ID); err != nil {
		t.Errorf("activation once there is room: %v", err)
	}
}

// Edits write versions; an active automation stays renderable and keeps
// its event, and its listener follows the new version.
func TestAutomationEdit(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store := storetest.New(t)
	svc := automationsOf(store)
	ws, _ := sendingWorkspace(t, store)
	a, err := svc.Create(ctx, automation.AutomationRequest{WorkspaceID: ws.ID, Blueprint: "product_viewed"})
	if err != nil {
		t.Fatal(err)
	}
	name, event := "Viewed twice", "product_viewed_twice"
	renamed, err := svc.Edit(ctx, ws.ID, a.ID, automation.AutomationEdit{Name: &name, Event: &event})
	if err != nil || renamed.Version != 2 || renamed.Name != name || renamed.Event != event || len(renamed.Steps) != 3 {
		t.Fatalf("rename: %+v, %v", renamed, err)
	}
	_, err = svc.Edit(ctx, ws.ID, a.ID, automation.AutomationEdit{})
	failtest.WantInput(t, err, "file")
	if _, err := svc.Edit(ctx, ws.ID, a.ID, automation.AutomationEdit{Name: &name, Version: 1}); !errors.Is(err, automation.ErrAutomationChanged) {
		t.Errorf("an edit made from version 1 of version 2: %v, want ErrAutomationChanged", err)
	}
	spaced := "Product Viewed"
	_, err = svc.Edit(ctx, ws.ID, a.ID, automation.AutomationEdit{Event: &spaced})
	failtest.WantInput(t, err, "event")

	if _, err := svc.Activate(ctx, ws.ID, a.ID); err != nil {
		t.Fatal(err)
	}
	d := renamed.Definition()
	d.Steps[1].HTML = "<p>Hi {{ contact.first_name }}</p>"
	_, err = svc.Edit(ctx, ws.ID, a.ID, automation.AutomationEdit{Definition: definitionJSON(t, d)})
	wantActivation(t, err, "steps[1].html")
	_, err = svc.Edit(ctx, ws.ID, a.ID, automation.AutomationEdit{Event: &name})
	failtest.WantInput(t, err, "event")
	other := "other_event"
	_, err = svc.Edit(ctx, ws.ID, a.ID, automation.AutomationEdit{Event: &other})
	failtest.WantInput(t, err, "event")

	d.Steps[1].HTML = "<p>Hi {{ contact.first_name | \"there\" }}</p>"
	edited, err := svc.Edit(ctx, ws.ID, a.ID, automation.AutomationEdit{Definition: definitionJSON(t, d)})
	if err != nil || edited.Version != 3 || edited.Status != automation.StatusActive {
		t.Fatalf("edit while active: %+v, %v", edited, err)
	}
	if l, err := store.Automations.Listeners(ctx, ws.ID, event); err != nil || len(l) != 1 || l[0].Version != 3 {
		t.Errorf("listeners %+v, %v; want version 3", l, err)
	}
	if steps, err := store.Automations.GetVersion(ctx, ws.ID, a.ID, 2); err != nil || steps[1].HTML == d.Steps[1].HTML {
		t.Errorf("version 2 changed: %+v, %v", steps, err)
	}
	inactive, err := svc.Deactivate(ctx, ws.ID, a.ID)
	if err != nil || inactive.Status != automation.StatusInactive {
		t.Fatalf("deactivate: %+v, %v", inactive, err)
	}
	if again, err := svc.Deactivate(ctx, ws.ID, a.ID); err != nil || again.Status != automation.StatusInactive {
		t.Errorf("deactivating twice: %+v, %v", again, err)
	}
	if l, _ := store.Automations.Listeners(ctx, ws.ID, event); len(l) != 0 {
		t.Errorf("an inactive automation listens: %v", l)
	}
}
