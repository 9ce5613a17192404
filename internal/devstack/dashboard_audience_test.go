package devstack_test

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/segment"
)

// Suppressions: the empty list says so; an address added (audited) is
// listed, added again keeps its entry, a bad one is refused with the
// reason; removed, it is gone; removing an unlisted one is 404.
func TestDashboardSuppressions(t *testing.T) {
	d := startDashboard(t)
	c, csrf := d.signIn(t, d.owner)
	if p := d.dashDo(t, c, "/dashboard/suppressions", nil); p.status != http.StatusOK || !strings.Contains(p.body, "No suppressed address") {
		t.Fatalf("empty list: %d %s", p.status, p.body)
	}
	add := url.Values{"csrf": {csrf}, "address": {"Gone@Example.com"}, "reason": {"complained"}}
	if p := d.dashDo(t, c, "/dashboard/suppressions", add); p.status != http.StatusOK || !strings.Contains(p.body, "gone@example.com is suppressed") {
		t.Fatalf("add: %d %s", p.status, p.body)
	}
	if p := d.dashDo(t, c, "/dashboard/suppressions", add); p.status != http.StatusOK || !strings.Contains(p.body, "listed already") {
		t.Errorf("add again: %d", p.status)
	}
	bad := url.Values{"csrf": {csrf}, "address": {"not an address"}}
	if p := d.dashDo(t, c, "/dashboard/suppressions", bad); p.status != http.StatusBadRequest || !strings.Contains(p.body, `role="alert">address`) {
		t.Errorf("a bad address: %d %s", p.status, p.body)
	}
	if p := d.dashDo(t, c, "/dashboard/suppressions?reason=complained", nil); !strings.Contains(p.body, "<td>gone@example.com</td><td>complained</td>") {
		t.Errorf("filtered list lacks the entry: %s", p.body)
	}
	if p := d.dashDo(t, c, "/dashboard/suppressions?reason=bounced", nil); !strings.Contains(p.body, "No suppressed address matches") {
		t.Errorf("a filter matching nothing: %s", p.body)
	}
	if p := d.dashDo(t, c, "/dashboard/suppressions/remove", url.Values{"address": {"gone@example.com"}}); p.status != http.StatusForbidden {
		t.Errorf("remove without the CSRF token: %d, want 403", p.status)
	}
	rm := url.Values{"csrf": {csrf}, "address": {"gone@example.com"}}
	if p := d.dashDo(t, c, "/dashboard/suppressions/remove", rm); p.status != http.StatusOK || !strings.Contains(p.body, "no longer suppressed") {
		t.Fatalf("remove: %d %s", p.status, p.body)
	}
	if listed, err := d.store.Suppressions.Suppressed(t.Context(), d.ws, "gone@example.com"); listed || err != nil {
		t.Errorf("after removal: suppressed %v, %v", listed, err)
	}
	if p := d.dashDo(t, c, "/dashboard/suppressions/remove", rm); p.status != http.StatusNotFound {
		t.Errorf("remove an unlisted address: %d, want 404", p.status)
	}
	wantNewestAudit(t, d, account.ActionSuppressionRemoved, account.ActionSuppressionAdded)
}

// Contacts: search by email, a contact's page with its emails, another
// workspace's contact 404; a CSV import reports its progress and result,
// a file without an email column is refused on the page.
func TestDashboardContacts(t *testing.T) {
	d := startDashboard(t)
	c, csrf := d.signIn(t, d.owner)
	if p := d.dashDo(t, c, "/dashboard/contacts", nil); !strings.Contains(p.body, "No contact yet") {
		t.Errorf("empty contacts: %d", p.status)
	}
	p := importCSV(t, d, c, csrf, "email,first_name,tags,plan\nann@example.com,Ann,vip,gold\nbob@example.com,Bob,,\nnot-an-address,,,\n")
	for _, want := range []string{`<ol id="import-progress"`, "<li>3 rows read: 2 created, 0 updated, 1 refused</li>", `id="import-done"`, "line 4"} {
		if !strings.Contains(p.body, want) {
			t.Errorf("import page lacks %q: %s", want, p.body)
		}
	}
	if p := importCSV(t, d, c, csrf, "first_name\nAnn\n"); !strings.Contains(p.body, `id="import-error"`) || !strings.Contains(p.body, "email") {
		t.Errorf("a file without an email column: %s", p.body)
	}
	ann, err := d.store.Contacts.GetContactByEmail(t.Context(), d.ws, "ann@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if p := d.dashDo(t, c, "/dashboard/contacts?email=ANN@example.com", nil); !strings.Contains(p.body, "/dashboard/contacts/"+ann.ID) || strings.Contains(p.body, "bob@example.com") {
		t.Errorf("search by email: %s", p.body)
	}
	if p := d.dashDo(t, c, "/dashboard/contacts?email=nobody@example.com", nil); !strings.Contains(p.body, "No contact has the address nobody@example.com") {
		t.Errorf("search finding none: %s", p.body)
	}
	page := d.dashDo(t, c, "/dashboard/contacts/"+ann.ID, nil)
	for _, want := range []string{`id="contact-address">ann@example.com`, "<code>plan</code>", "&#34;gold&#34;", "No email to this address"} {
		if !strings.Contains(page.body, want) {
			t.Errorf("contact page lacks %q: %s", want, page.body)
		}
	}
	other, _ := d.workspace(apikey.Live)
	foreign := contact.Contact{ID: uuid.Must(uuid.NewV7()).String(), WorkspaceID: other, Email: "x@example.com", Subscribed: true, CreatedAt: time.Now(), UpdatedAt: time.Now()}
	if err := d.store.Contacts.CreateContact(t.Context(), foreign); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/dashboard/contacts/" + foreign.ID, "/dashboard/contacts/x@example.com"} {
		if p := d.dashDo(t, c, path, nil); p.status != http.StatusNotFound {
			t.Errorf("GET %s (another workspace's): %d, want 404", path, p.status)
		}
	}
}

// importCSV posts file to the import form as a browser does.
func importCSV(t *testing.T, d *dash, c *http.Client, csrf, file string) page {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("csrf", csrf)
	fw, _ := mw.CreateFormFile("file", "contacts.csv")
	_, _ = fw.Write([]byte(file))
	_ = mw.Close()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, d.url+"/dashboard/contacts/import", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("import: %d %s", res.StatusCode, b.String())
	}
	return page{status: res.StatusCode, header: res.Header, body: b.String()}
}

// Segments: none yet says how to make one; a segment's page shows its
// filter and counts its recipients now (a contact tagged after creation
// included); another workspace's segment is 404.
func TestDashboardSegments(t *testing.T) {
	d := startDashboard(t)
	c, _ := d.signIn(t, d.owner)
	if p := d.dashDo(t, c, "/dashboard/segments", nil); !strings.Contains(p.body, "No segment yet") {
		t.Errorf("no segments: %s", p.body)
	}
	seg := storeSegment(t, d.env, d.ws)
	for _, email := range []string{"a@example.com", "b@example.com"} {
		ct := contact.Contact{ID: uuid.Must(uuid.NewV7()).String(), WorkspaceID: d.ws, Email: email, Subscribed: true, Tags: []string{"vip"}, CreatedAt: time.Now(), UpdatedAt: time.Now()}
		if err := d.store.Contacts.CreateContact(t.Context(), ct); err != nil {
			t.Fatal(err)
		}
	}
	if p := d.dashDo(t, c, "/dashboard/segments", nil); !strings.Contains(p.body, "/dashboard/segments/"+seg) {
		t.Errorf("list lacks the segment: %s", p.body)
	}
	p := d.dashDo(t, c, "/dashboard/segments/"+seg, nil)
	for _, want := range []string{`id="segment-count">2<`, "has_tag", "a@example.com"} {
		if !strings.Contains(p.body, want) {
			t.Errorf("segment page lacks %q: %s", want, p.body)
		}
	}
	other, _ := d.workspace(apikey.Live)
	if p := d.dashDo(t, c, "/dashboard/segments/"+storeSegment(t, d.env, other), nil); p.status != http.StatusNotFound {
		t.Errorf("another workspace's segment: %d, want 404", p.status)
	}
}

// storeSegment stores a vip segment of ws.
func storeSegment(t *testing.T, e *env, ws string) string {
	t.Helper()
	raw, _ := json.Marshal(vip)
	f, err := segment.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	seg := segment.Segment{ID: uuid.Must(uuid.NewV7()).String(), WorkspaceID: ws, Name: "VIPs", Filter: f, CreatedAt: time.Now()}
	if err := e.store.Segments.CreateSegment(t.Context(), seg); err != nil {
		t.Fatal(err)
	}
	return seg.ID
}

// wantAudit fails t unless the workspace's newest audit entries are the
// actions, by the owner.
func wantNewestAudit(t *testing.T, d *dash, actions ...string) {
	t.Helper()
	entries, err := d.store.Owners.ListAudit(t.Context(), d.ws, len(actions))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		if e.Actor == d.owner {
			got = append(got, e.Action)
		}
	}
	if strings.Join(got, " ") != strings.Join(actions, " ") {
		t.Errorf("newest audit entries %v, want %v", got, actions)
	}
}
