package automation

import (
	"slices"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/mergetag"
)

// Every blueprint activates as shipped, listens for its own name and
// renders its fallbacks for a run with an empty payload.
func TestBlueprintsActivateAsShipped(t *testing.T) {
	names := BlueprintNames()
	if want := []string{"back_in_stock", "cart_abandoned", "order_placed", "product_viewed"}; !slices.Equal(names, want) {
		t.Fatalf("blueprints %v, want %v", names, want)
	}
	for _, name := range names {
		d, err := Blueprint(name)
		if err != nil {
			t.Fatal(err)
		}
		if p := d.CheckActivation(); len(p) > 0 {
			t.Errorf("%s does not activate: %v", name, p)
		}
		if d.Event != name {
			t.Errorf("%s listens for %q", name, d.Event)
		}
		for i, s := range d.Steps {
			if s.Type != StepSend {
				continue
			}
			subject, err := mergetag.RenderSubject(s.Subject, mergetag.Vars{Email: "a@example.com"})
			if err != nil || strings.TrimSpace(subject) == "" || strings.Contains(subject, "{{") {
				t.Errorf("%s step %d renders subject %q, %v", name, i, subject, err)
			}
		}
	}
}

func TestCartAbandonedBlueprint(t *testing.T) {
	d, _ := Blueprint("cart_abandoned")
	var kinds []string
	for _, s := range d.Steps {
		kinds = append(kinds, string(s.Type)+" "+s.Duration.String())
	}
	if got := strings.Join(kinds, ", "); got != "wait 1h, send 0m, wait 1d, send 0m" {
		t.Errorf("cart_abandoned steps %s", got)
	}
	html, _ := mergetag.RenderHTML(d.Steps[1].HTML, mergetag.Vars{Event: map[string]string{}})
	if !strings.Contains(d.Steps[1].HTML, `{{ event.product_name | "your items" }}`) || !strings.Contains(html, "your items") {
		t.Errorf("the reminder does not name the product with its fallback: %s", html)
	}
}

// A blueprint is a copy: editing it leaves the shipped one as it was.
func TestBlueprintIsACopy(t *testing.T) {
	d, _ := Blueprint("product_viewed")
	d.Steps[2].Add[0] = "changed"
	d.Steps[0].Duration = 0
	again, _ := Blueprint("product_viewed")
	if again.Steps[2].Add[0] != "product-viewed" || again.Steps[0].Duration == 0 {
		t.Error("editing a blueprint changed the shipped one")
	}
	if _, err := Blueprint("welcome"); err == nil || !strings.Contains(err.Error(), "cart_abandoned") {
		t.Errorf("unknown blueprint: %v", err)
	}
}
