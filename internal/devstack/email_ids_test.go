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
