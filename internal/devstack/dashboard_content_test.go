package devstack_test

import (
	"bytes"
	"encoding/base64"
	"html"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/http"
	"net/mail"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/api/owners"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
)

// The policies of a preview: remote images blocked, or loaded on purpose.
const (
	previewBlocked = "sandbox; default-src 'none'; img-src data: cid:; style-src 'unsafe-inline'; frame-ancestors 'self'"
	previewImages  = "sandbox; default-src 'none'; img-src https: http: data: cid:; style-src 'unsafe-inline'; frame-ancestors 'self'"
)

// An email's page shows what its recipient got: the preview serves the
// html part of the message SES took, the page the text part and each
// attachment's name and size, for a transactional email and for a
// campaign's (its unsubscribe link the approval preview's stand-in,
// `<public URL>/unsubscribe/preview`, for the recipient's own); a held
// email and a test key's capture show theirs.
// Every preview (an email's, a held email's, a campaign's, a draft's
// approval preview) blocks remote images unless asked to load them.
func TestDashboardEmailShowsWhatWent(t *testing.T) {
	e := startDev(t)
	o := newOwnedBulk(t, e, 1)
	body := `<html><body><h1>Your receipt</h1><p>Thanks &amp; welcome, <a href="https://example.com/orders/7">see order 7</a>.</p>` +
		`<img src="https://tracker.example.com/pixel.gif" alt=""></body></html>`
	clearTemplate(t, e, o.id, body)
	report := []byte("quarterly numbers\n")
	req := msg("content", map[string]any{"html": body, "attachments": []map[string]any{
		{"filename": "Zürich report.txt", "content": base64.StdEncoding.EncodeToString(report), "content_type": "text/plain"},
	}})
	sent := e.post(o.key, "/api/v1/send", req).sent(t, http.StatusOK)
	got := wentTo(t, e, req["to"].(string))
	if len(got.attachments) != 1 || got.attachments[0].name != "Zürich report.txt" || got.attachments[0].size != len(report) {
		t.Fatalf("the message SES took has attachments %+v", got.attachments)
	}

	page := e.dashDo(t, o.c, "/dashboard/emails/"+sent.ID, nil)
	if page.status != http.StatusOK {
		t.Fatalf("email page: %d", page.status)
	}
	if text := html.UnescapeString(between(page.body, `id="text-part">`, `</pre>`)); text != got.text {
		t.Errorf("page's text part %q, the message's %q", text, got.text)
	}
	table := between(page.body, `id="attachments">`, `</table>`)
	if !strings.Contains(table, "<td>Zürich report.txt</td><td>text/plain</td><td>18 bytes</td>") {
		t.Errorf("attachments shown: %s", table)
	}
	if !strings.Contains(page.body, `src="/dashboard/preview/emails/`+sent.ID+`"`) || strings.Contains(page.body, "<h1>Your receipt</h1>") {
		t.Error("the page does not frame the preview, or inlines the html")
	}
	preview := e.dashDo(t, o.c, "/dashboard/preview/emails/"+sent.ID, nil)
	if preview.body != got.html {
		t.Errorf("preview %q, the message's html part %q", preview.body, got.html)
	}
	wantPreviewPolicies(t, e, o.c, "/dashboard/preview/emails/"+sent.ID)

	// A campaign email: rendered again from the campaign, footer and all.
	if p := e.dashDo(t, o.c, "/dashboard/approvals/"+o.first+"/approve", url.Values{"csrf": {o.csrf}, "at": {""}}); p.status != http.StatusSeeOther {
		t.Fatalf("approve: %d %s", p.status, p.body)
	}
	drainSends(t, e.queues.Poller(t, queue.Sends.Name, api.Consumers(e.deps)[routes.CampaignSender]))
	list, _, _, err := e.store.Emails.ListEmails(t.Context(), o.id, email.Filter{Type: email.TypeCampaign}, "", 10)
	if err != nil || len(list) != 1 {
		t.Fatalf("campaign emails: %d, %v", len(list), err)
	}
	went := wentTo(t, e, list[0].To)
	link := between(went.html, `<a href="`, `"`)
	if !strings.Contains(went.html, "What changed this month.") || !strings.Contains(link, "/unsubscribe/") {
		t.Fatalf("campaign message html %q", went.html)
	}
	shown := e.url + "/unsubscribe/preview"
	cp := e.dashDo(t, o.c, "/dashboard/emails/"+list[0].ID, nil)
	if text := html.UnescapeString(between(cp.body, `id="text-part">`, `</pre>`)); text != strings.ReplaceAll(went.text, link, shown) {
		t.Errorf("campaign email's text part %q, the message's %q", text, went.text)
	}
	if p := e.dashDo(t, o.c, "/dashboard/preview/emails/"+list[0].ID, nil); p.body != strings.ReplaceAll(went.html, link, shown) {
		t.Errorf("campaign email's preview %q, the message's html %q", p.body, went.html)
	}

	// Every other preview: the held email's, the draft's.
	held := e.post(o.key, "/api/v1/send", msg("held", map[string]any{"html": `<aside><img src="https://tracker.example.com/h.gif"></aside>`})).sent(t, http.StatusAccepted)
	wantPreviewPolicies(t, e, o.c, "/dashboard/preview/held/"+held.ID)
	wantPreviewPolicies(t, e, o.c, "/dashboard/preview/campaigns/"+o.second)
	wantPreviewPolicies(t, e, o.c, "/dashboard/preview/approvals/"+o.second)
	if p := e.dashDo(t, o.c, "/dashboard/emails/"+held.ID, nil); !strings.Contains(p.body, `id="text-part">`) || !strings.Contains(p.body, "/dashboard/preview/emails/"+held.ID) {
		t.Error("a held email's page does not show its content")
	}

	// A test key's capture keeps its content like a send.
	testKey, _, err := e.store.Keys.CreateKey(t.Context(), o.id, apikey.Test, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	captured := e.post(testKey, "/api/v1/send", msg("captured", nil)).sent(t, http.StatusOK)
	if p := e.dashDo(t, o.c, "/dashboard/emails/"+captured.ID, nil); between(p.body, `id="text-part">`, `</pre>`) != "Hello there" {
		t.Errorf("a captured email's text part: %q", between(p.body, `id="text-part">`, `</pre>`))
	}
	if p := e.dashDo(t, o.c, "/dashboard/preview/emails/"+captured.ID, nil); p.body != plainHTML {
		t.Errorf("a captured email's preview: %q", p.body)
	}

	other := newOwnedBulk(t, e, 1)
	foreign := e.post(other.key, "/api/v1/send", msg("foreign", nil)).sent(t, http.StatusOK)
	if p := e.dashDo(t, o.c, "/dashboard/preview/emails/"+foreign.ID, nil); p.status != http.StatusNotFound || strings.Contains(p.body, plainHTML) {
		t.Errorf("another workspace's email preview: %d", p.status)
	}
}

// wantPreviewPolicies checks a preview's CSP: remote images blocked, and
// allowed on ?images=1; the sandbox either way.
func wantPreviewPolicies(t *testing.T, e *env, c *http.Client, path string) {
	t.Helper()
	if p := e.dashDo(t, c, path, nil); p.status != http.StatusOK || p.header.Get("Content-Security-Policy") != previewBlocked {
		t.Errorf("%s: %d, CSP %q, want %q", path, p.status, p.header.Get("Content-Security-Policy"), previewBlocked)
	}
	if p := e.dashDo(t, c, path+"?images=1", nil); p.status != http.StatusOK || p.header.Get("Content-Security-Policy") != previewImages {
		t.Errorf("%s?images=1: %d, CSP %q, want %q", path, p.status, p.header.Get("Content-Security-Policy"), previewImages)
	}
}

// wentMessage is a message as its recipient reads it: the decoded text
// and html parts and the attachments.
type wentMessage struct {
	text, html  string
	attachments []wentAttachment
}

type wentAttachment struct {
	name string
	size int
}

// wentTo is the one message handed to SES for to, read part by part.
func wentTo(t *testing.T, e *env, to string) wentMessage {
	t.Helper()
	var raws [][]byte
	for _, s := range e.ses.Sends() {
		if s.To == to {
			raws = append(raws, s.Raw)
		}
	}
	if len(raws) != 1 {
		t.Fatalf("%d messages to %s, want 1", len(raws), to)
	}
	m, err := mail.ReadMessage(bytes.NewReader(raws[0]))
	if err != nil {
		t.Fatal(err)
	}
	var out wentMessage
	readPart(t, textproto(m.Header), m.Body, &out)
	return out
}

// textproto is a mail header as a multipart one.
func textproto(h mail.Header) map[string][]string { return h }

// readPart walks a MIME part, decoding each leaf.
func readPart(t *testing.T, h map[string][]string, body io.Reader, out *wentMessage) {
	t.Helper()
	get := func(k string) string {
		if v := h[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	mt, params, err := mime.ParseMediaType(get("Content-Type"))
	if err != nil {
		t.Fatalf("content type %q: %v", get("Content-Type"), err)
	}
	if strings.HasPrefix(mt, "multipart/") {
		r := multipart.NewReader(body, params["boundary"])
		for {
			p, err := r.NextRawPart()
			if err == io.EOF {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			readPart(t, p.Header, p, out)
		}
	}
	switch strings.ToLower(get("Content-Transfer-Encoding")) {
	case "base64":
		body = base64.NewDecoder(base64.StdEncoding, body) // it skips line breaks
	case "quoted-printable":
		body = quotedprintable.NewReader(body)
	}
	data, err := io.ReadAll(body)
	if err != nil {
		t.Fatal(err)
	}
	if _, dp, err := mime.ParseMediaType(get("Content-Disposition")); err == nil && dp["filename"] != "" {
		// RFC 2231 is decoded by ParseMediaType; today's encoded-word in a
		// quoted string (issue 18) by the word decoder, leniently.
		name, err := new(mime.WordDecoder).DecodeHeader(dp["filename"])
		if err != nil {
			t.Fatal(err)
		}
		out.attachments = append(out.attachments, wentAttachment{name: name, size: len(data)})
		return
	}
	// The wire's line ends are CRLF; the content's are its own.
	switch text := strings.ReplaceAll(string(data), "\r\n", "\n"); mt {
	case "text/plain":
		out.text = text
	case "text/html":
		out.html = text
	}
}

// An automation email's content, rendered again for its owner from the
// run's version, payload and contact, is what SES took: its html and text
// parts, markup in the payload escaped alike, the footer included, the
// recipient's unsubscribe link shown as the approval preview's stand-in
// (owner.PreviewLinks on the public URL).
func TestAutomationEmailShownAsItWent(t *testing.T) {
	t.Parallel()
	p := startAutomationPipeline(t, pipelineStart)
	ctx := t.Context()
	b := newBulkWS(t, p.env)
	c := p.createContact(t, b.bulkKey, map[string]any{"email": rcpt("ada"), "first_name": "Ada"})
	a, err := p.automations().Create(ctx, automation.AutomationRequest{WorkspaceID: b.id, Blueprint: "cart_abandoned"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err = p.automations().Activate(ctx, b.id, a.ID); err != nil {
		t.Fatal(err)
	}
	wantRuns(t, p.report(t, b.key, event("cart_abandoned", "order-1", c.ID, map[string]any{"product_name": "<b>Boots</b>"})), automation.OutcomeStarted)
	drainAutomations(t, p.runner)
	p.after(t, time.Hour)
	list := p.automationEmails(t, b.key)
	if len(list.Data) != 1 {
		t.Fatalf("%d automation emails, want 1", len(list.Data))
	}
	msg, _ := p.raw(t, b.key, list.Data[0].ID)
	link := unsubscribeURL(t, msg)
	went := wentTo(t, p.env, c.Email)

	svc := owners.Service(owners.Queues{}, p.store, owners.Clients{PublicURL: "https://mail.example"})
	got, err := svc.Emails.Content(ctx, b.id, list.Data[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	shown := "https://mail.example/unsubscribe/preview"
	if want := strings.ReplaceAll(went.html, link, shown); got.HTML != want || !strings.Contains(got.HTML, "&lt;b&gt;Boots&lt;/b&gt;") {
		t.Errorf("content html\n%s\nthe message's\n%s", got.HTML, want)
	}
	if want := strings.ReplaceAll(went.text, link, shown); got.Text != want {
		t.Errorf("content text\n%s\nthe message's\n%s", got.Text, want)
	}
	if got.Subject != msg.Header.Get("Subject") {
		t.Errorf("subject %q, the message's %q", got.Subject, msg.Header.Get("Subject"))
	}
}
