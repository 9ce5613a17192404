package devstack_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/contact"
)

func TestContactLifecycleOverHTTP(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	key := newSendWS(t, e, defaultSender()).key
	c := e.createContact(t, key, map[string]any{
		"email": " Jane@Example.com", "first_name": "Jane", "tags": []string{"vip", "beta"},
		"properties": map[string]any{"plan": "pro", "seats": 3, "trial": false},
	})
	if c.Email != "jane@example.com" || *c.FirstName != "Jane" || c.LastName != nil || !c.Subscribed ||
		c.UnsubscribedAt != nil || len(c.Tags) != 2 || c.Properties["seats"] != contact.NumberProperty(3) || c.Properties["trial"] != contact.BoolProperty(false) ||
		c.CreatedAt == "" || c.CreatedAt != c.UpdatedAt {
		t.Fatalf("created %+v", c)
	}
	var got struct{ Data contactBody }
	e.call(key, http.MethodGet, "/api/v1/contacts/"+strings.ToUpper(c.ID), nil).decode(t, http.StatusOK, &got)
	if got.Data.ID != c.ID || got.Data.Email != c.Email {
		t.Errorf("get %+v, want %+v", got.Data, c)
	}

	// Absent is unchanged, null clears, properties merge, the email moves.
	var upd struct{ Data contactBody }
	e.call(key, http.MethodPatch, "/api/v1/contacts/"+c.ID, map[string]any{
		"email": "jane@new.example.com", "first_name": nil, "last_name": "Doe", "subscribed": false,
		"properties": map[string]any{"plan": nil, "seats": 5},
	}).decode(t, http.StatusOK, &upd)
	u := upd.Data
	if u.Email != "jane@new.example.com" || u.FirstName != nil || *u.LastName != "Doe" || u.Subscribed ||
		u.UnsubscribedAt == nil || len(u.Tags) != 2 || len(u.Properties) != 2 || u.Properties["seats"] != contact.NumberProperty(5) ||
		u.CreatedAt != c.CreatedAt {
		t.Errorf("updated %+v", u)
	}
	// The old address is free again; the new one is taken.
	e.createContact(t, key, map[string]any{"email": "jane@example.com"})
	e.call(key, http.MethodPost, "/api/v1/contacts", map[string]any{"email": "JANE@new.example.com"}).
		wantError(t, http.StatusConflict, "contact_exists", "email")
	e.call(key, http.MethodPatch, "/api/v1/contacts/"+c.ID, map[string]any{"email": "jane@example.com"}).
		wantError(t, http.StatusConflict, "contact_exists", "email")

	// Delete erases the contact and frees its address; the address stays
	// on the do-not-send list.
	e.suppress(t, key, map[string]any{"email": u.Email}).entry(t, http.StatusCreated)
	var del struct{ Data map[string]any }
	e.call(key, http.MethodDelete, "/api/v1/contacts/"+c.ID, nil).decode(t, http.StatusOK, &del)
	if del.Data["id"] != c.ID || del.Data["deleted"] != true {
		t.Errorf("delete answered %v", del.Data)
	}
	e.call(key, http.MethodGet, "/api/v1/contacts/"+c.ID, nil).wantError(t, http.StatusNotFound, "not_found", "")
	e.call(key, http.MethodDelete, "/api/v1/contacts/"+c.ID, nil).wantError(t, http.StatusNotFound, "not_found", "")
	if p := e.suppressions(t, key, "?email="+url.QueryEscape(u.Email)); len(p.Data) != 1 || p.Data[0].Email != u.Email {
		t.Errorf("after the delete the suppressions of %s are %+v, want the entry kept", u.Email, p.Data)
	}
	e.post(key, "/api/v1/send", msg("deleted", map[string]any{"to": u.Email})).sent(t, http.StatusOK).want(t, false, "suppressed")
	e.createContact(t, key, map[string]any{"email": "jane@new.example.com"})
}

func TestContactEmailIsUniqueUnderConcurrency(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	_, key := e.workspace(apikey.Live)
	e.createContact(t, key, map[string]any{"email": "dup@example.com"})
	for _, variant := range []string{"dup@example.com", "  DUP@Example.COM  "} {
		e.call(key, http.MethodPost, "/api/v1/contacts", map[string]any{"email": variant}).
			wantError(t, http.StatusConflict, "contact_exists", "email")
	}

	statuses := make([]int, 20)
	var wg sync.WaitGroup
	for i := range statuses {
		wg.Go(func() {
			r, err := e.do(e.url, key, http.MethodPost, "/api/v1/contacts", map[string]any{"email": "race@example.com"})
			if err != nil {
				t.Error(err)
				return
			}
			statuses[i] = r.status
		})
	}
	wg.Wait()
	if n := countOf(statuses, http.StatusCreated); n != 1 || countOf(statuses, http.StatusConflict) != 19 {
		t.Errorf("20 concurrent creates answered %v; want one 201 and 19 409", statuses)
	}
	for _, email := range []string{"race@example.com", "dup@example.com"} {
		if l := e.listContacts(t, key, "?email="+url.QueryEscape(email)); len(l.Data) != 1 {
			t.Errorf("%s: %d contacts, want exactly one", email, len(l.Data))
		}
	}
	if l := e.listContacts(t, key, ""); len(l.Data) != 2 || l.HasMore {
		t.Errorf("the workspace lists %d contacts, want 2", len(l.Data))
	}
}

func countOf(statuses []int, want int) int {
	n := 0
	for _, s := range statuses {
		if s == want {
			n++
		}
	}
	return n
}

func TestContactBadInputWritesNothing(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	_, key := e.workspace(apikey.Live)
	existing := e.createContact(t, key, map[string]any{"email": "keep@example.com"})
	tags51 := make([]string, 51)
	for i := range tags51 {
		tags51[i] = "t"
	}
	for name, tc := range map[string]struct {
		body        any
		code, param string
	}{
		"no email":            {map[string]any{"first_name": "x"}, "missing_field", "email"},
		"invalid email":       {map[string]any{"email": "not-an-address"}, "invalid_field", "email"},
		"email with a name":   {map[string]any{"email": "Jane <j@example.com>"}, "invalid_field", "email"},
		"email not a string":  {map[string]any{"email": 5}, "invalid_field", "email"},
		"51 tags":             {map[string]any{"email": "a@example.com", "tags": tags51}, "invalid_field", "tags"},
		"bad tag":             {map[string]any{"email": "a@example.com", "tags": []string{"ok", "Not OK"}}, "invalid_field", "tags[1]"},
		"nested property":     {map[string]any{"email": "a@example.com", "properties": map[string]any{"plan": map[string]any{"x": 1}}}, "invalid_field", "properties.plan"},
		"array property":      {map[string]any{"email": "a@example.com", "properties": map[string]any{"list": []int{1}}}, "invalid_field", "properties.list"},
		"property key w. dot": {map[string]any{"email": "a@example.com", "properties": map[string]any{"a.b": 1}}, "invalid_field", "properties.a.b"},
		"long first name":     {map[string]any{"email": "a@example.com", "first_name": strings.Repeat("x", 201)}, "invalid_field", "first_name"},
		"subscribed null":     {map[string]any{"email": "a@example.com", "subscribed": nil}, "invalid_field", "subscribed"},
		"unknown field":       {map[string]any{"email": "a@example.com", "name": "x"}, "invalid_field", "name"},
		"not an object":       {"[1]", "invalid_field", "body"},
		// Numbers DynamoDB cannot store are the client's to fix, not a fault to retry.
		"number over 1e126": {`{"email":"a@example.com","properties":{"n":1e126}}`, "invalid_field", "properties.n"},
		"number 1e308":      {`{"email":"a@example.com","properties":{"n":1e308}}`, "invalid_field", "properties.n"},
		"number -1e200":     {`{"email":"a@example.com","properties":{"n":-1e200}}`, "invalid_field", "properties.n"},
		"number 1e-131":     {`{"email":"a@example.com","properties":{"n":1e-131}}`, "invalid_field", "properties.n"},
		"number 5e-324":     {`{"email":"a@example.com","properties":{"n":5e-324}}`, "invalid_field", "properties.n"},
		"39 digits":         {`{"email":"a@example.com","properties":{"n":1.23456789012345678901234567890123456789}}`, "invalid_field", "properties.n"},
		"EMAIL in capitals": {`{"email":"a@example.com","EMAIL":"b@example.com"}`, "invalid_field", "EMAIL"},
		"email named twice": {`{"email":"a@example.com","email":"b@example.com"}`, "invalid_field", "email"},
	} {
		t.Run(name, func(t *testing.T) {
			e.bad().call(key, http.MethodPost, "/api/v1/contacts", tc.body).wantError(t, http.StatusBadRequest, tc.code, tc.param)
			if tc.code == "invalid_field" && tc.param != "body" && tc.param != "name" && tc.param != "email" {
				e.bad().call(key, http.MethodPatch, "/api/v1/contacts/"+existing.ID, tc.body).wantError(t, http.StatusBadRequest, tc.code, tc.param)
			}
		})
	}
	l := e.listContacts(t, key, "")
	if len(l.Data) != 1 || l.Data[0].UpdatedAt != existing.UpdatedAt {
		t.Errorf("after refused requests the workspace holds %+v", l.Data)
	}
}

func TestContactRoutesRefuseForeignAndReadOnly(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	ws, key := e.workspace(apikey.Live)
	_, otherKey := e.workspace(apikey.Live)
	c := e.createContact(t, key, map[string]any{"email": "mine@example.com"})
	readOnly, _, err := e.store.Keys.CreateKey(t.Context(), ws, apikey.Live, "", []apikey.Scope{apikey.ContactsRead, apikey.EmailsRead})
	if err != nil {
		t.Fatal(err)
	}
	idPaths := map[string]string{http.MethodGet: "", http.MethodPatch: "", http.MethodDelete: ""}
	for method := range idPaths {
		for _, id := range []string{c.ID, "not-a-uuid", "0192d7c4-0000-7000-8000-000000000000"} {
			k := otherKey
			if id != c.ID {
				k = key
			}
			var body any
			if method == http.MethodPatch {
				body = map[string]any{"first_name": "x"}
			}
			e.bad().call(k, method, "/api/v1/contacts/"+id, body).wantError(t, http.StatusNotFound, "not_found", "")
		}
	}
	writes := []struct{ method, path string }{
		{http.MethodPost, "/api/v1/contacts"}, {http.MethodPatch, "/api/v1/contacts/" + c.ID},
		{http.MethodDelete, "/api/v1/contacts/" + c.ID},
	}
	for _, w := range writes {
		e.call(readOnly, w.method, w.path, map[string]any{"email": "new@example.com"}).
			wantError(t, http.StatusForbidden, "insufficient_scope", "")
	}
	l := e.listContacts(t, readOnly, "")
	if !slices.Equal(l.ids(), []string{c.ID}) || l.Data[0].Email != "mine@example.com" {
		t.Errorf("after refused writes: %+v", l.Data)
	}
	if l := e.listContacts(t, otherKey, ""); len(l.Data) != 0 {
		t.Errorf("another workspace lists %d contacts", len(l.Data))
	}
}

func TestContactListPagesAndFilters(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	_, key := e.workspace(apikey.Live)
	var created []string
	for i := range 7 {
		body := map[string]any{"email": string(rune('a'+i)) + "@example.com", "subscribed": i%2 == 0}
		if i%3 == 0 {
			body["tags"] = []string{"vip"}
		}
		created = append(created, e.createContact(t, key, body).ID)
	}
	newest := slices.Clone(created)
	slices.Reverse(newest)
	var got []string
	query := "?limit=3"
	for pages := 0; ; pages++ {
		l := e.listContacts(t, key, query)
		got = append(got, l.ids()...)
		if !l.HasMore {
			if pages != 2 || l.NextCursor != nil {
				t.Errorf("ended after %d more pages, next_cursor %v", pages, l.NextCursor)
			}
			break
		}
		query = "?limit=3&cursor=" + *l.NextCursor
	}
	if !slices.Equal(got, newest) {
		t.Errorf("paged ids %v, want %v", got, newest)
	}
	filtered := map[string][]string{
		"?subscribed=true":          {newest[0], newest[2], newest[4], newest[6]},
		"?subscribed=false":         {newest[1], newest[3], newest[5]},
		"?tag=vip":                  {newest[0], newest[3], newest[6]},
		"?tag=vip&subscribed=false": {newest[3]},
		"?email=C%40Example.com":    {created[2]},
		"?email=zz%40example.com":   {},
	}
	for q, want := range filtered {
		if l := e.listContacts(t, key, q); !slices.Equal(l.ids(), want) || l.HasMore {
			t.Errorf("%s: %v (has_more %v), want %v", q, l.ids(), l.HasMore, want)
		}
	}
	first := e.listContacts(t, key, "?limit=1&tag=vip")
	e.bad().call(key, http.MethodGet, "/api/v1/contacts?limit=1&cursor="+*first.NextCursor, nil).
		wantError(t, http.StatusBadRequest, "invalid_field", "cursor")
	for q, param := range map[string]string{
		"?subscribed=yes": "subscribed", "?subscribed=1": "subscribed", "?tag=Not%20OK": "tag", "?email=nope": "email", "?limit=0": "limit",
	} {
		e.bad().call(key, http.MethodGet, "/api/v1/contacts"+q, nil).wantError(t, http.StatusBadRequest, "invalid_field", param)
	}
}
