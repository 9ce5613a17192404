package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/identity"
)

// verifiedSender gives workspace ws a verified domain and a default
// sender on it, through the store.
func (c *consoleTable) verifiedSender(ws string) {
	c.t.Helper()
	ctx := c.t.Context()
	if _, err := c.store.Domains.AddDomain(ctx, ws, "acme.test", nil); err != nil {
		c.t.Fatal(err)
	}
	if _, err := c.store.Domains.SetDomainStatus(ctx, ws, "acme.test", identity.DomainVerified, nil); err != nil {
		c.t.Fatal(err)
	}
	if _, err := c.store.Senders.AddSender(ctx, ws, identity.Sender{Name: "Acme", Email: "hello@acme.test"}, true); err != nil {
		c.t.Fatal(err)
	}
}

func TestAutomationsCommands(t *testing.T) {
	c := newConsoleTable(t)
	ws := c.createWorkspace("Acme")
	c.verifiedSender(ws)
	bare := c.createWorkspace("Bare")

	cart, _ := mustJSON[automation.View](c, "automations", "create", "--blueprint", "cart_abandoned", "--workspace", ws)
	if cart.Status != automation.StatusDraft || cart.Event != "cart_abandoned" || cart.Version != 1 || len(cart.Steps) != 4 {
		t.Fatalf("create --blueprint: %+v", cart)
	}
	show := c.must("automations", "show", cart.ID, "--workspace", ws)
	for _, want := range []string{"status      draft", "0     wait 1h", `1     send "You left {{ event.product_name | \"your items\" }} in`, "2     wait 1d"} {
		if !strings.Contains(show, want) {
			t.Errorf("show printed %q, missing %q", show, want)
		}
	}

	// show --definition round-trips through edit --file.
	def := c.must("automations", "show", cart.ID, "--definition", "--workspace", ws)
	file := filepath.Join(t.TempDir(), "cart.json")
	if err := os.WriteFile(file, []byte(strings.Replace(def, `"Abandoned cart"`, `"Cart, edited"`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	edited, _ := mustJSON[automation.View](c, "automations", "edit", cart.ID, "--file", file, "--workspace", ws)
	if edited.Name != "Cart, edited" || edited.Version != 2 || len(edited.Steps) != 4 {
		t.Errorf("edit --file: %+v", edited)
	}
	fromFile := c.must("automations", "create", "--file", file, "--event", "checkout_left", "--workspace", ws)
	if !strings.Contains(fromFile, "created") || !strings.Contains(fromFile, "checkout_left") {
		t.Errorf("create --file printed %q", fromFile)
	}
	list := c.must("automations", "list", "--workspace", ws)
	if !strings.Contains(list, cart.ID) || !strings.Contains(list, "checkout_left") || strings.Count(list, "\n") != 3 {
		t.Errorf("list printed %q", list)
	}

	if out := c.must("automations", "activate", cart.ID, "--workspace", ws); !strings.Contains(out, "is active: events cart_abandoned start runs of version 2") {
		t.Errorf("activate printed %q", out)
	}
	if out := c.must("automations", "deactivate", cart.ID, "--workspace", ws); !strings.Contains(out, "is inactive") {
		t.Errorf("deactivate printed %q", out)
	}

	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"name":"x","event":"e","steps":[{"type":"wait","duration":"91d"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	order := c.must("automations", "create", "--blueprint", "order_placed", "--workspace", bare)
	orderID := idLine.FindStringSubmatch(order)[1]
	for _, tt := range []struct {
		args []string
		says string
	}{
		{[]string{"create", "--workspace", ws}, "--blueprint or file is required"},
		{[]string{"create", "--blueprint", "welcome", "--workspace", ws}, "--blueprint: no blueprint \"welcome\""},
		{[]string{"create", "--file", bad, "--workspace", ws}, "--file: steps[0].duration: a wait is 1m to 90d"},
		{[]string{"create", "--blueprint", "cart_abandoned", "--event", "CART_ABANDONED", "--workspace", ws}, `--event: an event name is lowercase: send "cart_abandoned"`},
		{[]string{"edit", cart.ID, "--event", "Cart Abandoned", "--workspace", ws}, "--event: an event name has no spaces"},
		{[]string{"show", "nope", "--workspace", ws}, "is not an automation of the workspace"},
		{[]string{"show", cart.ID, "--workspace", bare}, "is not an automation of the workspace"},
		{[]string{"activate", orderID, "--workspace", bare}, "steps[0].sender_id: from is required: this workspace has no default sender"},
	} {
		args := append([]string{"automations"}, tt.args...)
		out, err := c.run(args...)
		checkFails(t, args, out, err, nil, tt.says)
	}
}
