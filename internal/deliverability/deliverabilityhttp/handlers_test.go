package deliverabilityhttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/deliverability"
	"github.com/sesame-mail/sesame/internal/deliverability/deliverabilityhttp"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/openapi"
	"github.com/sesame-mail/sesame/internal/workspace"
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

// workspacesFunc is a WorkspaceReader from a function.
type workspacesFunc func(ctx context.Context, id string) (workspace.Workspace, error)

func (f workspacesFunc) GetWorkspace(ctx context.Context, id string) (workspace.Workspace, error) {
	return f(ctx, id)
}

// The check reads the key's workspace for the brands it owns, as /send's
// review does, and takes the address it was asked at for the stack's: an
// unsubscribe link there (127.0.0.1 locally) is Sesame's own. A store
// fault is the route's error, not a report.
func TestCheckReadsTheWorkspaceAndTheStacksAddress(t *testing.T) {
	body := `{"subject": "Your receipt", "bulk": true,
		"html": "<p>Thanks for your order: you paid with PayPal, and it ships tomorrow from our warehouse.</p><p><a href=\"http://127.0.0.1:8787/unsubscribe/abc\">Unsubscribe</a></p>"}`
	fault := errors.New("store down")
	check := func(ws workspace.Workspace, err error) (deliverability.Report, error) {
		var asked string
		h := deliverabilityhttp.Handlers{Checks: &deliverability.Service{Workspaces: workspacesFunc(func(_ context.Context, id string) (workspace.Workspace, error) {
			asked = id
			return ws, err
		})}}
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8787/api/v1/deliverability/check", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req = req.WithContext(httpapi.WithPrincipal(req.Context(), apikey.Principal{WorkspaceID: "ws-1"}))
		w := httptest.NewRecorder()
		if err := h.Check(w, req); err != nil {
			return deliverability.Report{}, err
		}
		if asked != "ws-1" {
			t.Errorf("read workspace %q, want the key's", asked)
		}
		var out httpapi.Data[deliverability.Report]
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
			t.Fatal(err)
		}
		return out.Data, nil
	}
	if r, err := check(workspace.Workspace{Name: "Acme"}, nil); err != nil || r.Verdict != deliverability.Fail || len(r.Checks) != 1 || r.Checks[0].ID != deliverability.ForeignBrand {
		t.Errorf("a foreign brand: %+v, %v; want fail for foreign_brand alone (the local unsubscribe link is no ip_link)", r, err)
	}
	if r, err := check(workspace.Workspace{Name: "Acme", Brands: []string{"PayPal"}}, nil); err != nil || r.Verdict != deliverability.Pass {
		t.Errorf("the workspace's brand: %+v, %v; want pass", r, err)
	}
	if _, err := check(workspace.Workspace{}, fault); !errors.Is(err, fault) {
		t.Errorf("store fault: %v, want it returned", err)
	}
}
