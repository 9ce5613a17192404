package devstack_test

import (
	"net/http"
	"testing"

	"github.com/sesame-mail/sesame/internal/contact"
)

// contactBody is the Contact object as the tests read it.
type contactBody = contact.View

type contactList struct {
	Data       []contactBody `json:"data"`
	HasMore    bool          `json:"has_more"`
	NextCursor *string       `json:"next_cursor"`
}

// call sends one request with the (bare) key; see do.
func (e *env) call(key, method, path string, body any) response {
	e.t.Helper()
	r, err := e.do(e.url, key, method, path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

// createContact creates a contact through the API and returns it.
func (e *env) createContact(t *testing.T, key string, body map[string]any) contactBody {
	t.Helper()
	var out struct{ Data contactBody }
	e.call(key, http.MethodPost, "/api/v1/contacts", body).decode(t, http.StatusCreated, &out)
	return out.Data
}

// listContacts reads one page of GET /api/v1/contacts?query.
func (e *env) listContacts(t *testing.T, key, query string) contactList {
	t.Helper()
	var out contactList
	e.call(key, http.MethodGet, "/api/v1/contacts"+query, nil).decode(t, http.StatusOK, &out)
	return out
}

// contactIDs are the ids of a page, in order.
func (l contactList) ids() []string {
	out := make([]string, 0, len(l.Data))
	for _, c := range l.Data {
		out = append(out, c.ID)
	}
	return out
}
