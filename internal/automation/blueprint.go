package automation

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// The blueprints: sensible, editable sequences an owner starts from, each
// listening for its default event name. Every one activates as shipped:
// each variable has a fallback, so any run renders (blueprint_test.go).
var blueprints = map[string]Definition{
	"cart_abandoned": {
		Name: "Abandoned cart", Event: "cart_abandoned",
		Steps: []Step{
			{Type: StepWait, Duration: Duration(time.Hour)},
			{
				Type:    StepSend,
				Subject: `You left {{ event.product_name | "your items" }} in your cart`,
				HTML: `<p>Hi {{ contact.first_name | "there" }},</p>` +
					`<p>You left {{ event.product_name | "your items" }} in your cart. They are still waiting for you.</p>`,
			},
			{Type: StepWait, Duration: Duration(24 * time.Hour)},
			{
				Type:    StepSend,
				Subject: `Still thinking about {{ event.product_name | "your cart" }}?`,
				HTML: `<p>Hi {{ contact.first_name | "there" }},</p>` +
					`<p>Your cart with {{ event.product_name | "your items" }} is saved. Come back whenever you are ready.</p>`,
			},
		},
	},
	"product_viewed": {
		Name: "Product viewed", Event: "product_viewed",
		Steps: []Step{
			{Type: StepWait, Duration: Duration(4 * time.Hour)},
			{
				Type:    StepSend,
				Subject: `Take another look at {{ event.product_name | "what you viewed" }}`,
				HTML: `<p>Hi {{ contact.first_name | "there" }},</p>` +
					`<p>You were looking at {{ event.product_name | "one of our products" }}. Any questions? Just reply to this email.</p>`,
			},
			{Type: StepTag, Add: []string{"product-viewed"}},
		},
	},
	"back_in_stock": {
		Name: "Back in stock", Event: "back_in_stock",
		Steps: []Step{
			{
				Type:    StepSend,
				Subject: `{{ event.product_name | "An item you wanted" }} is back in stock`,
				HTML: `<p>Hi {{ contact.first_name | "there" }},</p>` +
					`<p>Good news: {{ event.product_name | "the item you asked about" }} is back in stock.</p>`,
			},
			{Type: StepTag, Remove: []string{"waiting-for-stock"}},
		},
	},
	"order_placed": {
		Name: "Order placed", Event: "order_placed",
		Steps: []Step{
			{
				Type:    StepSend,
				Subject: `Thank you for your order {{ event.order_id | "" }}`,
				HTML: `<p>Hi {{ contact.first_name | "there" }},</p>` +
					`<p>Thank you for your order {{ event.order_id | "" }}. We will let you know when it ships.</p>`,
			},
			{Type: StepTag, Add: []string{"customer"}},
			{Type: StepWait, Duration: Duration(7 * 24 * time.Hour)},
			{
				Type:    StepSend,
				Subject: `How is your order?`,
				HTML: `<p>Hi {{ contact.first_name | "there" }},</p>` +
					`<p>We hope you enjoy your order. If anything is not right, reply to this email and we will fix it.</p>`,
			},
		},
	},
}

// BlueprintNames are the blueprints, sorted.
func BlueprintNames() []string {
	names := make([]string, 0, len(blueprints))
	for n := range blueprints {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Blueprint is a copy of the named blueprint's definition, the owner's to
// edit.
func Blueprint(name string) (Definition, error) {
	d, ok := blueprints[name]
	if !ok {
		return Definition{}, fmt.Errorf("no blueprint %q; the blueprints are %s", name, strings.Join(BlueprintNames(), ", "))
	}
	d.Steps = slices.Clone(d.Steps)
	for i, s := range d.Steps {
		d.Steps[i].Add, d.Steps[i].Remove = slices.Clone(s.Add), slices.Clone(s.Remove)
	}
	return d, nil
}
