package devstack_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/deliverability"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// A good email passes with 100 and no finding; the check reads the key
// (lookup and rate limit) and the workspace (its brands): two DynamoDB
// calls.
func TestDeliverabilityGoodEmailPasses(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	_, key := e.workspace(apikey.Live)
	e.rec.Reset()
	r := e.check(t, key, checkBody(nil))
	if r.Verdict != deliverability.Pass || r.Score != 100 || len(r.Checks) != 0 {
		t.Errorf("report %+v, want pass, 100, no finding", r)
	}
	want := deliverability.Stats{HTMLBytes: len(checkedHTML), TextChars: r.Stats.TextChars, Images: 0, Links: 2, LinkDomains: 2}
	if r.Stats != want || r.Stats.TextChars < 200 {
		t.Errorf("stats %+v, want %+v with at least 200 characters of text", r.Stats, want)
	}
	if n, w, g := e.rec.Total(), e.rec.Calls("UpdateItem"), e.rec.Calls("GetItem"); n != 2 || w != 1 || g != 1 {
		t.Errorf("%d DynamoDB calls (%d UpdateItem, %d GetItem), want the key lookup and the workspace", n, w, g)
	}
	// The same body, the same answer.
	if again := e.check(t, key, checkBody(nil)); !slices.Equal(findingIDs(again), findingIDs(r)) || again.Stats != r.Stats {
		t.Errorf("second answer %+v, first %+v", again, r)
	}
}

// Each rule fires over HTTP, alone on an otherwise good email, with its
// severity, and the verdict follows.
func TestDeliverabilityEachRuleFires(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	_, key := e.workspace(apikey.Test)
	add := func(snippet string) func(map[string]any) {
		return func(b map[string]any) { b["html"] = strings.Replace(checkedHTML, "</body>", snippet+"</body>", 1) }
	}
	noUnsub := strings.Replace(checkedHTML, `<p><a href="https://acme.example/unsubscribe?u=1">Unsubscribe</a></p>`, "", 1)
	cases := map[deliverability.ID]func(map[string]any){
		deliverability.SubjectEmpty:   func(b map[string]any) { b["subject"] = "" },
		deliverability.SubjectAllCaps: func(b map[string]any) { b["subject"] = "WHAT IS NEW IN NOVEMBER" },
		deliverability.TextAllCaps:    func(b map[string]any) { b["html"] = strings.ToUpper(checkedHTML) },
		deliverability.LittleText:     add(`<img src="https://cdn.acme.example/logo.png" alt="Acme">`),
		deliverability.ForeignBrand:   add(`<p>Pay with PayPal.</p>`),
		deliverability.LargeSums:      add(`<p>Our fund passed $2,000,000.</p>`),
		deliverability.NoText:         func(b map[string]any) { b["html"] = `<a href="https://acme.example/unsubscribe"></a>` },
		deliverability.ImageHeavy:     add(`<img src="a.png"><img src="b.png"><img src="c.png">`),
		deliverability.HTMLClipped:    add(strings.Repeat("<!-- padding -->", deliverability.GmailClipBytes/16)),
		deliverability.Script:         add(`<script>track()</script>`),
		deliverability.Form:           add(`<form action="https://acme.example/s"></form>`),
		deliverability.PasswordField:  add(`<input type="password">`),
		deliverability.JavascriptURL:  add(`<a href="javascript:open()">Open</a>`),
		deliverability.DeceptiveLink:  add(`<a href="https://acme.example/login">www.bank.example</a>`),
		deliverability.IPLink:         add(`<a href="http://192.0.2.7/">offer</a>`),
		deliverability.URLShortener: func(b map[string]any) { // without from: bit.ly is no sender's
			add(`<a href="https://bit.ly/3x">more</a>`)(b)
			delete(b, "from")
		},
		deliverability.UnrelatedLinkDomain: add(`<a href="https://partner.example.net/">partner</a>`),
		deliverability.NoUnsubscribe:       func(b map[string]any) { b["html"] = noUnsub },
		deliverability.SpamPhrases:         add(`<p>It is 100% free, act now.</p>`),
	}
	severity := map[deliverability.ID]deliverability.Severity{}
	for _, r := range deliverability.Rules {
		severity[r.ID] = r.Severity
	}
	for id, edit := range cases {
		r := e.check(t, key, checkBody(edit))
		if got := findingIDs(r); !slices.Equal(got, []deliverability.ID{id}) {
			t.Errorf("%s: findings %v, want %s alone", id, got, id)
			continue
		}
		want := deliverability.Warn
		if severity[id] == deliverability.Critical {
			want = deliverability.Fail
		}
		if r.Checks[0].Severity != severity[id] || r.Verdict != want {
			t.Errorf("%s: %+v, verdict %s; want severity %s, verdict %s", id, r.Checks[0], r.Verdict, severity[id], want)
		}
	}
	// Without bulk, a missing unsubscribe link is no finding.
	if r := e.check(t, key, checkBody(func(b map[string]any) { b["html"], b["bulk"] = noUnsub, false })); r.Verdict != deliverability.Pass {
		t.Errorf("not bulk, no unsubscribe link: %+v", r)
	}
}

// The check agrees with /send's review about brands, through the
// workspace's own, and Sesame's own links (the unsubscribe link on the
// local stack's 127.0.0.1) are never findings.
func TestDeliverabilityOwnBrandsAndLinks(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	ws, key := e.workspace(apikey.Live)
	own := checkBody(func(b map[string]any) {
		b["html"] = strings.Replace(checkedHTML, "https://acme.example/unsubscribe?u=1", e.url+"/unsubscribe/abc", 1)
	})
	if !strings.HasPrefix(e.url, "http://127.0.0.1:") {
		t.Fatalf("dev server at %s, want a loopback IP (the case of the issue)", e.url)
	}
	if r := e.check(t, key, own); r.Verdict != deliverability.Pass {
		t.Errorf("an unsubscribe link on the stack's own address: %+v, want pass", r)
	}
	paypal := checkBody(func(b map[string]any) { b["subject"] = "Your PayPal receipt" })
	if r := e.check(t, key, paypal); !slices.Equal(findingIDs(r), []deliverability.ID{deliverability.ForeignBrand}) {
		t.Errorf("a brand the workspace does not own: %v, want foreign_brand", findingIDs(r))
	}
	if _, err := e.store.Workspaces.UpdateWorkspace(t.Context(), ws, workspace.Settings{Brands: &[]string{"PayPal"}}); err != nil {
		t.Fatal(err)
	}
	if r := e.check(t, key, paypal); r.Verdict != deliverability.Pass {
		t.Errorf("the workspace's own brand: %+v, want pass", r)
	}
}

// Bad input: the spec's envelope with the exact param, and nothing is
// written (the key's count aside).
func TestDeliverabilityBadInput(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	_, key := e.workspace(apikey.Live)
	without := func(field string) map[string]any {
		return checkBody(func(b map[string]any) { delete(b, field) })
	}
	set := func(field string, v any) map[string]any {
		return checkBody(func(b map[string]any) { b[field] = v })
	}
	for name, c := range map[string]struct {
		body        any
		status      int
		code, param string
	}{
		"no subject":             {without("subject"), 400, "missing_field", "subject"},
		"null subject":           {set("subject", nil), 400, "missing_field", "subject"},
		"no html":                {without("html"), 400, "missing_field", "html"},
		"subject a number":       {set("subject", 5), 400, "invalid_field", "subject"},
		"html an object":         {set("html", map[string]any{"x": 1}), 400, "invalid_field", "html"},
		"from a list":            {set("from", []string{"a@acme.example"}), 400, "invalid_field", "from"},
		"bulk a string":          {set("bulk", "yes"), 400, "invalid_field", "bulk"},
		"unknown field":          {set("to", "a@acme.example"), 400, "invalid_field", "to"},
		"subject over 998":       {set("subject", strings.Repeat("a", 999)), 400, "invalid_field", "subject"},
		"subject with a newline": {set("subject", "Hi\nBcc: x@evil.example"), 400, "invalid_field", "subject"},
		"from not an address":    {set("from", "news at acme"), 400, "invalid_field", "from"},
		"from two addresses":     {set("from", "a@acme.example, b@acme.example"), 400, "invalid_field", "from"},
		"from a spoofing name":   {set("from", `"support@bank.example" <news@acme.example>`), 400, "invalid_field", "from"},
		"not JSON":               {"{subject", 400, "invalid_field", "body"},
		"an array":               {"[]", 400, "invalid_field", "body"},
		"over 5 MB":              {set("html", strings.Repeat("x", 5<<20)), 413, "message_too_large", ""},
	} {
		e.rec.Reset()
		e.bad().post(key, checkPath, c.body).wantError(t, c.status, c.code, c.param)
		if w := e.rec.Writes(); w > 1 {
			t.Errorf("%s: %d writes, want the key's count alone", name, w)
		}
	}
	e.bad().post(key, checkPath, `{"subject":"x","html":"y"}`, "Content-Type", "text/plain").
		wantError(t, http.StatusBadRequest, "invalid_field", "Content-Type")
}

// The route needs deliverability:check: the Full access preset and a key
// with that scope alone may check, test keys too; Read only and Send only
// keys, and a custom key without it, get 403; no key gets 401.
func TestDeliverabilityScopes(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	ws, full := e.workspace(apikey.Live)
	_, only := e.workspace(apikey.Test, apikey.DeliverabilityCheck)
	_, other := e.workspace(apikey.Live, apikey.EmailsRead, apikey.EmailSend, apikey.EmailSendBulk)
	for name, k := range map[string]string{"full access": full, "scope alone, test key": only} {
		if r := e.check(t, k, checkBody(nil)); r.Verdict != deliverability.Pass {
			t.Errorf("%s: %+v", name, r)
		}
	}
	for name, k := range map[string]string{
		"read only": presetKey(t, e, ws, apikey.PresetRead), "send only": presetKey(t, e, ws, apikey.PresetSend), "other scopes": other,
	} {
		r := e.bad().post(k, checkPath, checkBody(nil))
		r.wantError(t, http.StatusForbidden, "insufficient_scope", "")
		if !strings.Contains(string(r.body), "deliverability:check") {
			t.Errorf("%s: %s, want the message to name deliverability:check", name, r.body)
		}
	}
	e.bad().post("", checkPath, checkBody(nil)).wantError(t, http.StatusUnauthorized, "unauthorized", "")
	e.bad().post("ps_live_nope", checkPath, checkBody(nil)).wantError(t, http.StatusUnauthorized, "unauthorized", "")
}
