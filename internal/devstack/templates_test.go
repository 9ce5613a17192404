package devstack_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/apikey"
)

// templateView is a template as the API answers it.
type templateView struct {
	ID        string   `json:"id"`
	Name      string   `json:"name"`
	Subject   string   `json:"subject"`
	HTML      string   `json:"html"`
	Version   int      `json:"version"`
	Variables []string `json:"variables"`
	Review    *struct {
		State   string   `json:"state"`
		Reasons []string `json:"reasons"`
	} `json:"review"`
}

// template decodes a template answer of status.
func (r response) template(t *testing.T, status int) templateView {
	t.Helper()
	var b struct {
		Data templateView `json:"data"`
	}
	r.decode(t, status, &b)
	return b.Data
}

// A stored template's version is reviewed when it is saved, so its first
// send goes out at once (a new layout sent as html is held), and its
// recipients get the variables as text and their contact's name: read in
// the kept MIME and the SES emulator.
func TestRecipientsOfTemplateSend(t *testing.T) {
	t.Parallel()
	k := startKept(t, nil)
	s := newSendWS(t, k.env, defaultSender())
	layout := `<div><h2>Order {{ data.order }}</h2><p>Hi {{ contact.first_name | "there" }}, your total is {{ data.total }}.</p>` +
		`<p><a href="https://acme.test/orders/{{ data.order }}">See your order</a></p></div>`
	tpl := k.post(s.key, "/api/v1/templates", map[string]any{
		"name": "Receipt", "subject": "Your order {{ data.order }}", "html": layout,
	}).template(t, http.StatusCreated)
	if tpl.Version != 1 || tpl.Review == nil || tpl.Review.State != "cleared" || strings.Join(tpl.Variables, ",") != "order,total" {
		t.Fatalf("created template = %+v", tpl)
	}

	stranger := rcpt("tpl-stranger")
	k.post(s.key, "/api/v1/send", map[string]any{
		"to": stranger, "template_id": tpl.ID, "variables": map[string]string{"order": "A-17", "total": "<b>$5</b>"},
	}).sent(t, http.StatusOK).want(t, true, "sent")

	ann := rcpt("tpl-ann")
	k.post(s.key, "/api/v1/contacts", map[string]any{"email": ann, "first_name": "Ann"}).decode(t, http.StatusCreated, &struct{}{})
	k.post(s.key, "/api/v1/send", map[string]any{
		"to": ann, "template_id": tpl.ID, "variables": map[string]string{"order": "B-2", "total": "€9"},
	}).sent(t, http.StatusOK).want(t, true, "sent")

	k.box(t, s.id).Check(t,
		sentHTML(stranger, "Your order A-17", `<div><h2>Order A-17</h2><p>Hi there, your total is &lt;b&gt;$5&lt;/b&gt;.</p>`+
			`<p><a href="https://acme.test/orders/A-17">See your order</a></p></div>`),
		sentHTML(ann, "Your order B-2", `<div><h2>Order B-2</h2><p>Hi Ann, your total is €9.</p>`+
			`<p><a href="https://acme.test/orders/B-2">See your order</a></p></div>`),
	)

	// The same layout sent as html, never saved as a template, would have
	// been held: what the template's review spared.
	fresh := `<section><h3>Shipped ` + uuid.NewString()[:8] + `</h3></section>`
	k.post(s.key, "/api/v1/send", msg("tpl-fresh", map[string]any{"html": fresh})).sent(t, http.StatusAccepted).want(t, true, "held")
}

// A layout the review denies at save is reported on the template, and a
// send of it fails without reaching anyone.
func TestTemplateDeniedAtSave(t *testing.T) {
	t.Parallel()
	k := startKept(t, nil)
	s := newSendWS(t, k.env, defaultSender())
	tpl := k.post(s.key, "/api/v1/templates", map[string]any{
		"name": "Login", "subject": "Sign in", "html": `<form action="https://acme.test/login"><input type="password" name="p"></form>`,
	}).template(t, http.StatusCreated)
	if tpl.Review == nil || tpl.Review.State != "denied" || len(tpl.Review.Reasons) == 0 {
		t.Fatalf("review = %+v, want denied with reasons", tpl.Review)
	}
	b := k.post(s.key, "/api/v1/send", map[string]any{"to": rcpt("tpl-denied"), "template_id": tpl.ID}).sent(t, http.StatusOK)
	b.want(t, false, "failed")
	k.wantEmail(t, s.key, b.ID, "failed", "security review")
	k.box(t, s.id).Check(t) // no one received anything
}

// Versions: a new subject or html is a new version, reviewed; a rename
// keeps the version; each version stays readable; the list shows the
// latest without html; a deleted template is gone for reads and sends.
func TestTemplateVersions(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	v1 := e.post(s.key, "/api/v1/templates", map[string]any{"name": "Welcome", "subject": "Hi", "html": "<p>Welcome {{ data.name }}</p>"}).template(t, http.StatusCreated)
	path := "/api/v1/templates/" + v1.ID

	v2 := e.call(s.key, http.MethodPatch, path, map[string]any{"html": "<div><p>Welcome aboard, {{ data.name }}</p></div>"}).template(t, http.StatusOK)
	if v2.Version != 2 || v2.Review == nil || v2.Review.State != "cleared" || v2.Name != "Welcome" {
		t.Errorf("after a new html: %+v", v2)
	}
	renamed := e.call(s.key, http.MethodPatch, path, map[string]any{"name": "Welcome mail"}).template(t, http.StatusOK)
	if renamed.Version != 2 || renamed.Name != "Welcome mail" || renamed.HTML != "<div><p>Welcome aboard, {{ data.name }}</p></div>" {
		t.Errorf("after a rename: %+v", renamed)
	}
	if old := e.get(bearer(s.key), path+"?version=1").template(t, http.StatusOK); old.HTML != "<p>Welcome {{ data.name }}</p>" || old.Version != 1 {
		t.Errorf("version 1 = %+v", old)
	}
	if latest := e.get(bearer(s.key), path).template(t, http.StatusOK); latest.Version != 2 || latest.Name != "Welcome mail" {
		t.Errorf("latest = %+v", latest)
	}
	e.get(bearer(s.key), path+"?version=3").wantError(t, http.StatusNotFound, "not_found", "")

	var page struct {
		Data    []templateView `json:"data"`
		HasMore bool           `json:"has_more"`
	}
	e.get(bearer(s.key), "/api/v1/templates").decode(t, http.StatusOK, &page)
	if len(page.Data) != 1 || page.Data[0].ID != v1.ID || page.Data[0].Version != 2 || page.Data[0].HTML != "" || page.HasMore {
		t.Errorf("list = %+v", page)
	}

	e.call(s.key, http.MethodDelete, path, nil).decode(t, http.StatusOK, &struct{}{})
	e.get(bearer(s.key), path).wantError(t, http.StatusNotFound, "not_found", "")
	e.get(bearer(s.key), path+"?version=1").wantError(t, http.StatusNotFound, "not_found", "")
	e.post(s.key, "/api/v1/send", map[string]any{"to": rcpt("gone"), "template_id": v1.ID, "variables": map[string]string{"name": "x"}}).
		wantError(t, http.StatusBadRequest, "invalid_field", "template_id")
}

// Bad input: the spec's envelope with the field as param, and nothing
// stored or sent; another workspace's template is not found; the scopes
// hold.
func TestTemplateBadInput(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	other := newSendWS(t, e, defaultSender())
	tpl := e.post(s.key, "/api/v1/templates", map[string]any{"name": "Reset", "subject": "Reset {{ data.who | \"your\" }} password", "html": "<p>Code {{ data.code }}</p>"}).template(t, http.StatusCreated)

	creates := map[string]struct {
		body        any
		code, param string
	}{
		"no name":               {map[string]any{"subject": "s", "html": "<p>x</p>"}, "missing_field", "name"},
		"blank name":            {map[string]any{"name": " ", "subject": "s", "html": "<p>x</p>"}, "invalid_field", "name"},
		"no html":               {map[string]any{"name": "n", "subject": "s"}, "missing_field", "html"},
		"unclosed variable":     {map[string]any{"name": "n", "subject": "s", "html": "<p>{{ data.code </p>"}, "invalid_field", "html"},
		"unknown variable":      {map[string]any{"name": "n", "subject": "s", "html": "<p>{{ event.x }}</p>"}, "invalid_field", "html"},
		"contact, no fallback":  {map[string]any{"name": "n", "subject": "Hi {{ contact.first_name }}", "html": "<p>x</p>"}, "invalid_field", "subject"},
		"subject line break":    {map[string]any{"name": "n", "subject": "a\r\nBcc: x@example.org", "html": "<p>x</p>"}, "invalid_field", "subject"},
		"unknown field":         {map[string]any{"name": "n", "subject": "s", "html": "<p>x</p>", "text": "x"}, "invalid_field", "text"},
		"field in another case": {map[string]any{"name": "n", "subject": "s", "html": "<p>x</p>", "HTML": "<p>y</p>"}, "invalid_field", "HTML"},
	}
	for name, c := range creates {
		t.Run("create "+name, func(t *testing.T) {
			e.bad().post(s.key, "/api/v1/templates", c.body).wantError(t, http.StatusBadRequest, c.code, c.param)
		})
	}
	var page struct {
		Data []templateView `json:"data"`
	}
	e.get(bearer(s.key), "/api/v1/templates").decode(t, http.StatusOK, &page)
	if len(page.Data) != 1 {
		t.Errorf("%d templates stored, want the one valid", len(page.Data))
	}

	sends := map[string]struct {
		body        map[string]any
		code, param string
	}{
		"template and html":           {map[string]any{"template_id": tpl.ID, "html": "<p>x</p>", "variables": map[string]string{"code": "1"}}, "invalid_field", "html"},
		"template and subject":        {map[string]any{"template_id": tpl.ID, "subject": "x", "variables": map[string]string{"code": "1"}}, "invalid_field", "subject"},
		"variables without template":  {map[string]any{"subject": "x", "html": plainHTML, "variables": map[string]string{"code": "1"}}, "invalid_field", "variables"},
		"template id not a UUID":      {map[string]any{"template_id": "welcome"}, "invalid_field", "template_id"},
		"unknown template":            {map[string]any{"template_id": uuid.NewString()}, "invalid_field", "template_id"},
		"another workspace's":         {map[string]any{"template_id": tpl.ID, "variables": map[string]string{"code": "1"}, "key": other.key}, "invalid_field", "template_id"},
		"variable missing":            {map[string]any{"template_id": tpl.ID}, "invalid_field", "variables.code"},
		"variable name with a space":  {map[string]any{"template_id": tpl.ID, "variables": map[string]string{"code": "1", "a b": "x"}}, "invalid_field", "variables.a b"},
		"variable value not a string": {map[string]any{"template_id": tpl.ID, "variables": map[string]any{"code": 1}}, "invalid_field", "variables"},
	}
	for name, c := range sends {
		t.Run("send "+name, func(t *testing.T) {
			key := s.key
			if k, ok := c.body["key"].(string); ok {
				key = k
				delete(c.body, "key")
			}
			c.body["to"] = rcpt("tpl-bad")
			e.bad().post(key, "/api/v1/send", c.body).wantError(t, http.StatusBadRequest, c.code, c.param)
		})
	}
	if ids := e.emailIDs(t, s.key); len(ids) != 0 {
		t.Errorf("%d emails stored by refused sends", len(ids))
	}
	if ids := e.emailIDs(t, other.key); len(ids) != 0 {
		t.Errorf("%d emails stored by refused sends of the other workspace", len(ids))
	}

	path := "/api/v1/templates/" + tpl.ID
	e.get(bearer(other.key), path).wantError(t, http.StatusNotFound, "not_found", "")
	e.call(other.key, http.MethodPatch, path, map[string]any{"name": "mine"}).wantError(t, http.StatusNotFound, "not_found", "")
	e.call(other.key, http.MethodDelete, path, nil).wantError(t, http.StatusNotFound, "not_found", "")
	e.bad().get(bearer(s.key), "/api/v1/templates/"+strings.ReplaceAll(tpl.ID, "-", "")).wantError(t, http.StatusNotFound, "not_found", "")
	e.bad().get(bearer(s.key), path+"?version=0").wantError(t, http.StatusBadRequest, "invalid_field", "version")
	e.bad().call(s.key, http.MethodPatch, path, map[string]any{}).wantError(t, http.StatusBadRequest, "invalid_field", "")

	sendOnly := s.scopedKey(t, e, apikey.EmailSend)
	e.get(bearer(sendOnly), "/api/v1/templates").wantError(t, http.StatusForbidden, "insufficient_scope", "")
	e.post(sendOnly, "/api/v1/templates", map[string]any{"name": "n", "subject": "s", "html": "<p>x</p>"}).wantError(t, http.StatusForbidden, "insufficient_scope", "")
	reader := s.scopedKey(t, e, apikey.TemplatesRead)
	e.call(reader, http.MethodPatch, path, map[string]any{"name": "x"}).wantError(t, http.StatusForbidden, "insufficient_scope", "")
	// Sending a template needs email:send only.
	e.post(sendOnly, "/api/v1/send", map[string]any{"to": rcpt("tpl-scope"), "template_id": tpl.ID, "variables": map[string]string{"code": "42"}}).
		sent(t, http.StatusOK).want(t, true, "sent")
}
