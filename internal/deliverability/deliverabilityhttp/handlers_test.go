package deliverabilityhttp_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/deliverability"
	"github.com/sesame-mail/sesame/internal/deliverability/deliverabilityhttp"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/openapi"
)

func ptr(s string) *string { return &s }

// The request is read as /send reads the same fields; from gives the
// sender's domain, in lower case.
func TestRequestInput(t *testing.T) {
	in, err := deliverabilityhttp.Request{Subject: ptr(""), HTML: ptr(""), From: `"News" <News@Mail.Example.COM>`, Bulk: true}.Input()
	want := deliverability.Input{SenderDomain: "mail.example.com", Bulk: true}
	if err != nil || !reflect.DeepEqual(in, want) {
		t.Errorf("Input() = %+v, %v; want %+v (empty subject and html are checked, not refused)", in, err, want)
	}
	for name, c := range map[string]struct {
		req   deliverabilityhttp.Request
		kind  fail.Kind
		param string
	}{
		"no subject":          {deliverabilityhttp.Request{HTML: ptr("x")}, fail.KindMissing, "subject"},
		"no html":             {deliverabilityhttp.Request{Subject: ptr("x")}, fail.KindMissing, "html"},
		"neither":             {deliverabilityhttp.Request{}, fail.KindMissing, "subject"},
		"subject too long":    {deliverabilityhttp.Request{Subject: ptr(strings.Repeat("é", 999)), HTML: ptr("x")}, fail.KindInvalid, "subject"},
		"subject line break":  {deliverabilityhttp.Request{Subject: ptr("a\r\nBcc: x@y.z"), HTML: ptr("x")}, fail.KindInvalid, "subject"},
		"from not an address": {deliverabilityhttp.Request{Subject: ptr("x"), HTML: ptr("x"), From: "news at acme"}, fail.KindInvalid, "from"},
		"two addresses":       {deliverabilityhttp.Request{Subject: ptr("x"), HTML: ptr("x"), From: "a@acme.com, b@acme.com"}, fail.KindInvalid, "from"},
		"spoofing name":       {deliverabilityhttp.Request{Subject: ptr("x"), HTML: ptr("x"), From: `"help@bank.example" <x@acme.com>`}, fail.KindInvalid, "from"},
	} {
		_, err := c.req.Input()
		if e, ok := fail.As(err); !ok || e.Kind != c.kind || e.Param != c.param {
			t.Errorf("%s: %v, want %s of %s", name, err, c.kind, c.param)
		}
	}
	if _, err := (deliverabilityhttp.Request{Subject: ptr(strings.Repeat("é", 998)), HTML: ptr("x")}).Input(); err != nil {
		t.Errorf("998 characters: %v", err)
	}
}

// The API document lists exactly the rules of the package, in order.
func TestDocumentListsTheRules(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Enum []string `json:"enum"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openapi.Document, &doc); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range deliverability.Rules {
		want = append(want, string(r.ID))
	}
	finding := doc.Components.Schemas["DeliverabilityFinding"].Properties
	if got := finding["id"].Enum; !reflect.DeepEqual(got, want) {
		t.Errorf("DeliverabilityFinding.id enum = %v, want %v", got, want)
	}
	if got := finding["severity"].Enum; !reflect.DeepEqual(got, []string{string(deliverability.Warning), string(deliverability.Critical)}) {
		t.Errorf("severity enum = %v", got)
	}
}
