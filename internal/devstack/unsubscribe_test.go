package devstack_test

import (
	"bytes"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/unsubscribe"
)

// oneClick is the RFC 8058 body a mailbox provider POSTs.
const oneClick = "List-Unsubscribe=One-Click"

// unsubContact creates a subscribed contact in a new workspace and
// returns it with its unsubscribe link from a campaign.
func (e *env) unsubContact() (contact.Contact, string) {
	e.t.Helper()
	ws, _ := e.workspace(apikey.Test)
	return e.unsubContactIn(ws)
}

// unsubContactIn is unsubContact in workspace ws.
func (e *env) unsubContactIn(ws string) (contact.Contact, string) {
	e.t.Helper()
	now := time.Now().UTC().Truncate(time.Millisecond)
	c := contact.Contact{ID: uuid.Must(uuid.NewV7()).String(), WorkspaceID: ws, Email: "ann@example.com", Subscribed: true,
		Tags: []string{}, Properties: map[string]contact.Property{}, CreatedAt: now, UpdatedAt: now}
	if err := e.store.Contacts.CreateContact(e.t.Context(), c); err != nil {
		e.t.Fatal(err)
	}
	link, err := e.deps.Links.URL(unsubscribe.Token{WorkspaceID: ws, ContactID: c.ID,
		Source: unsubscribe.Source{Kind: unsubscribe.SourceCampaign, ID: uuid.Must(uuid.NewV7()).String()}})
	if err != nil {
		e.t.Fatal(err)
	}
	if !strings.HasPrefix(link, e.url+"/unsubscribe/") {
		e.t.Fatalf("link %s is not on the dev server %s", link, e.url)
	}
	return c, link
}

func (e *env) contact(ws, id string) contact.Contact {
	e.t.Helper()
	c, err := e.store.Contacts.GetContact(e.t.Context(), ws, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

// page requests an unsubscribe page: no key, no cookie, redirects not
// followed (there must be none).
func (e *env) page(method, link, contentType string, body []byte) response {
	e.t.Helper()
	req, err := http.NewRequest(method, link, bytes.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	client := *e.http
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	res, err := client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return response{status: res.StatusCode, header: res.Header, body: b}
}

// wantPage checks an HTML page: status, safe headers, no cookie, no
// redirect, and the text it must say.
func (r response) wantPage(t *testing.T, status int, says string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d; body %s", r.status, status, r.body)
	}
	for h, want := range map[string]string{"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "Referrer-Policy": "no-referrer"} {
		if got := r.header.Get(h); got != want {
			t.Errorf("%s = %q, want %q", h, got, want)
		}
	}
	if !strings.Contains(r.header.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Errorf("Content-Security-Policy = %q", r.header.Get("Content-Security-Policy"))
	}
	if r.header.Get("Set-Cookie") != "" || r.header.Get("Location") != "" {
		t.Errorf("Set-Cookie %q, Location %q: want neither", r.header.Get("Set-Cookie"), r.header.Get("Location"))
	}
	if !strings.Contains(string(r.body), says) {
		t.Errorf("page does not say %q:\n%s", says, r.body)
	}
	if strings.Contains(string(r.body), "http://") || strings.Contains(string(r.body), "https://") || strings.Contains(string(r.body), "<script") {
		t.Errorf("page loads or links something: %s", r.body)
	}
}

// GET shows the confirmation and changes nothing, however often; the
// one-click POST unsubscribes at once, 200 with no redirect; again, it
// changes nothing more.
// The one-click unsubscribe of a contact stops campaigns only: a
// transactional send to the address still goes out.
func TestUnsubscribeContact(t *testing.T) {
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	c, link := e.unsubContactIn(s.id)
	for range 3 { // a link scanner, a preview, the person
		r := e.page(http.MethodGet, link, "", nil)
		r.wantPage(t, http.StatusOK, `<form method="post">`)
		if !strings.Contains(string(r.body), `name="List-Unsubscribe" value="One-Click"`) {
			t.Errorf("the form does not post the one-click body:\n%s", r.body)
		}
	}
	if got := e.contact(c.WorkspaceID, c.ID); !got.Subscribed || got.UnsubscribedAt != nil {
		t.Fatalf("after GETs: subscribed %v, unsubscribed_at %v; a GET must change nothing", got.Subscribed, got.UnsubscribedAt)
	}

	e.page(http.MethodPost, link, "application/x-www-form-urlencoded", []byte(oneClick)).wantPage(t, http.StatusOK, "You are unsubscribed")
	first := e.contact(c.WorkspaceID, c.ID)
	if first.Subscribed || first.UnsubscribedAt == nil {
		t.Fatalf("after the POST: subscribed %v, unsubscribed_at %v", first.Subscribed, first.UnsubscribedAt)
	}
	e.page(http.MethodPost, link, "application/x-www-form-urlencoded", []byte(oneClick)).wantPage(t, http.StatusOK, "You are unsubscribed")
	if again := e.contact(c.WorkspaceID, c.ID); again.Subscribed || !again.UnsubscribedAt.Equal(*first.UnsubscribedAt) {
		t.Errorf("a second POST: subscribed %v, unsubscribed_at %v, want %v kept", again.Subscribed, again.UnsubscribedAt, first.UnsubscribedAt)
	}
	e.post(s.key, "/api/v1/send", msg("receipt", map[string]any{"to": c.Email})).sent(t, http.StatusOK).want(t, true, "sent")
	if got := e.ses.sendsTo(c.Email); len(got) != 1 {
		t.Errorf("a transactional send to the unsubscribed contact reached SES %d times, want 1", len(got))
	}
}

// RFC 8058 lets the provider post multipart/form-data too.
func TestUnsubscribeMultipart(t *testing.T) {
	e := startDev(t)
	c, link := e.unsubContact()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	if err := w.WriteField("List-Unsubscribe", "One-Click"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	e.page(http.MethodPost, link, w.FormDataContentType(), body.Bytes()).wantPage(t, http.StatusOK, "You are unsubscribed")
	if got := e.contact(c.WorkspaceID, c.ID); got.Subscribed {
		t.Error("still subscribed after a multipart one-click")
	}
}

// An address with no contact goes on the do-not-send list, reason
// unsubscribed.
func TestUnsubscribeAddress(t *testing.T) {
	e := startDev(t)
	ws, _ := e.workspace(apikey.Test)
	link, err := e.deps.Links.URL(unsubscribe.Token{WorkspaceID: ws, Address: "bob@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	e.page(http.MethodGet, link, "", nil).wantPage(t, http.StatusOK, "Unsubscribe")
	if n := suppressions(t, e, ws); len(n) != 0 {
		t.Fatalf("a GET suppressed %v", n)
	}
	for range 2 {
		e.page(http.MethodPost, link, "application/x-www-form-urlencoded", []byte(oneClick)).wantPage(t, http.StatusOK, "You are unsubscribed")
	}
	if got := suppressions(t, e, ws); len(got) != 1 || got["bob@example.com"] != "unsubscribed" {
		t.Errorf("suppressions %v, want bob@example.com unsubscribed", got)
	}
}

// suppressions maps each address on ws's do-not-send list to its reason.
func suppressions(t *testing.T, e *env, ws string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, it := range dynamotest.Items(t, e.store.Table.Name) {
		// Any shard of the list (WS#<ws>#SUPPRESSION#<n>).
		if pk := attr(it, "pk"); strings.HasPrefix(pk, "WS#"+ws+"#SUPPRESSION#") {
			out[attr(it, "sk")] = attr(it, "reason")
		}
	}
	return out
}

func attr(it map[string]ddbtypes.AttributeValue, name string) string {
	s, _ := it[name].(*ddbtypes.AttributeValueMemberS)
	if s == nil {
		return ""
	}
	return s.Value
}

// A tampered, cut, foreign or garbage token is a 400 page that says only
// that the link is not valid, for GET and POST alike, and changes nothing;
// so is a POST that does not confirm.
func TestUnsubscribeRefusals(t *testing.T) {
	e := startDev(t)
	c, link := e.unsubContact()
	token := strings.TrimPrefix(link, e.url+"/unsubscribe/")
	foreign, err := unsubscribe.Signer{Secret: []byte("another deployment")}.Sign(unsubscribe.Token{WorkspaceID: c.WorkspaceID, ContactID: c.ID})
	if err != nil {
		t.Fatal(err)
	}
	tampered := []byte(token)
	tampered[30] = map[bool]byte{true: 'b', false: 'a'}[tampered[30] == 'a'] // an id byte, still base64url
	cases := map[string]string{
		"tampered":       string(tampered),
		"cut short":      token[:len(token)-4],
		"another key":    foreign,
		"garbage":        "hello",
		"other alphabet": url.PathEscape("%%%"),
	}
	for name, tok := range cases {
		t.Run(name, func(t *testing.T) {
			bad := e.bad()
			for _, method := range []string{http.MethodGet, http.MethodPost} {
				r := bad.page(method, e.url+"/unsubscribe/"+tok, "application/x-www-form-urlencoded", []byte(oneClick))
				r.wantPage(t, http.StatusBadRequest, "This link is not valid")
				for _, secret := range []string{c.ID, c.WorkspaceID, c.Email, "ann"} {
					if strings.Contains(string(r.body), secret) {
						t.Errorf("%s: the page reveals %q", method, secret)
					}
				}
			}
		})
	}
	for name, body := range map[string]string{"no body": "", "another value": "List-Unsubscribe=Yes"} {
		t.Run(name, func(t *testing.T) {
			e.bad().page(http.MethodPost, link, "application/x-www-form-urlencoded", []byte(body)).wantPage(t, http.StatusBadRequest, "Nothing was changed")
		})
	}
	if got := e.contact(c.WorkspaceID, c.ID); !got.Subscribed {
		t.Error("a refused request unsubscribed the contact")
	}
}

// A store fault is a 503 page with Retry-After, its detail logged only.
func TestUnsubscribeStoreFault(t *testing.T) {
	e := startDev(t)
	c, link := e.unsubContact()
	e.rec.Fail = func(op string) error {
		if op == "UpdateItem" {
			return errors.New("connection reset by dynamodb")
		}
		return nil
	}
	r := e.page(http.MethodPost, link, "application/x-www-form-urlencoded", []byte(oneClick))
	r.wantPage(t, http.StatusServiceUnavailable, "try again")
	if got := r.header.Get("Retry-After"); got != "2" {
		t.Errorf("Retry-After = %q, want 2", got)
	}
	if strings.Contains(string(r.body), "connection reset") {
		t.Errorf("internal error text leaked: %s", r.body)
	}
	e.rec.Fail = nil
	if got := e.contact(c.WorkspaceID, c.ID); !got.Subscribed {
		t.Error("unsubscribed despite the fault")
	}
}
