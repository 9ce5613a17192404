package devstack_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/apikey"
)

// UUIDs are case-insensitive: an email's id in upper case reads the same
// email and its clicks.
func TestEmailIDIsCaseInsensitive(t *testing.T) {
	e := startDev(t)
	ws, key := e.workspace(apikey.Test)
	em := e.putEmail(ws, nil)
	upper := strings.ToUpper(em.ID)
	if r := e.get(bearer(key), "/api/v1/emails/"+upper); r.status != http.StatusOK || !strings.Contains(string(r.body), em.ID) {
		t.Errorf("GET the upper-case id = %d %s, want the email %s", r.status, r.body, em.ID)
	}
	if r := e.get(bearer(key), "/api/v1/emails/"+upper+"/clicks"); r.status != http.StatusOK {
		t.Errorf("GET its clicks by the upper-case id = %d %s, want 200", r.status, r.body)
	}
}

// An id in another spelling of the same UUID ({…}, urn:uuid:…, without
// hyphens) is not an id: 404 on every route that takes one, read or write.
func TestNonCanonicalIDsAreNotFound(t *testing.T) {
	e := startDev(t)
	ws, key := e.workspace(apikey.Live)
	em := e.putEmail(ws, nil)
	c := e.createContact(t, key, map[string]any{"email": "ids@example.com"})
	spellings := func(id string) []string {
		return []string{"%7B" + id + "%7D", "urn:uuid:" + id, strings.ReplaceAll(id, "-", "")}
	}
	for _, path := range spellings(em.ID) {
		e.bad().call(key, http.MethodGet, "/api/v1/emails/"+path, nil).wantError(t, http.StatusNotFound, "not_found", "")
		e.bad().call(key, http.MethodGet, "/api/v1/emails/"+path+"/clicks", nil).wantError(t, http.StatusNotFound, "not_found", "")
	}
	for _, path := range spellings(c.ID) {
		e.bad().call(key, http.MethodGet, "/api/v1/contacts/"+path, nil).wantError(t, http.StatusNotFound, "not_found", "")
		e.bad().call(key, http.MethodPatch, "/api/v1/contacts/"+path, map[string]any{"first_name": "X"}).wantError(t, http.StatusNotFound, "not_found", "")
		e.bad().call(key, http.MethodDelete, "/api/v1/contacts/"+path, nil).wantError(t, http.StatusNotFound, "not_found", "")
	}
	var got struct{ Data contactBody }
	e.call(key, http.MethodGet, "/api/v1/contacts/"+strings.ToUpper(c.ID), nil).decode(t, http.StatusOK, &got)
	if got.Data.ID != c.ID || got.Data.FirstName != nil {
		t.Errorf("after refused PATCH and DELETE the contact reads %+v", got.Data)
	}
}
