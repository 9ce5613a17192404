package main

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/webhook"
)

// deliveryRow is the first attempt's row as `emails deliveries` prints it.
var deliveryRow = regexp.MustCompile(`https://hooks\.example\.com/in\s+email\.delivered\s+1\s+HTTP 503\s+42ms`)

// `emails deliveries` prints an email's webhook delivery attempts across
// the workspace's endpoints, oldest first, in text and JSON; an email
// without any says so; another workspace's email is not found.
func TestEmailsDeliveries(t *testing.T) {
	ctx := t.Context()
	c := newConsoleTable(t)
	ws, other := c.createWorkspace("Acme"), c.createWorkspace("Other")
	sent := time.Now().UTC().Add(-time.Hour).Truncate(time.Millisecond)
	put := func(ws string) email.Email {
		m := email.Email{ID: uuid.NewString(), WorkspaceID: ws, To: "a@example.com", Subject: "Hi", Status: email.StatusDelivered,
			Type: email.TypeTransactional, Environment: apikey.Live, SentAt: sent, TrackingMode: email.TrackingFull}
		if err := c.store.Emails.PutEmail(ctx, m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	m, quiet, foreign := put(ws), put(ws), put(other)
	ep, err := webhook.NewEndpoint(ws, "https://hooks.example.com/in", nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.store.Webhooks.CreateEndpoint(ctx, ep); err != nil {
		t.Fatal(err)
	}
	for i, code := range []int{503, 204} {
		a := webhook.Attempt{WorkspaceID: ws, EndpointID: ep.ID, EventID: "evt_1", EventType: event.Delivered, EmailID: m.ID,
			Number: i + 1, At: sent.Add(time.Duration(i+1) * time.Minute), StatusCode: code, LatencyMS: 42}
		if code != 204 {
			a.Error = "HTTP 503"
		}
		if err := c.store.Webhooks.RecordAttempt(ctx, a); err != nil {
			t.Fatal(err)
		}
	}

	out := c.must("emails", "deliveries", m.ID, "--workspace", ws)
	first, second := strings.Index(out, "HTTP 503"), strings.Index(out, "HTTP 204")
	if !strings.Contains(out, "ENDPOINT") || !deliveryRow.MatchString(out) ||
		first < 0 || second < first {
		t.Errorf("deliveries printed, want the 503 then the 204:\n%s", out)
	}
	got, _ := mustJSON[webhook.EmailDeliveries](c, "emails", "deliveries", m.ID, "--workspace", ws)
	if len(got.Attempts) != 2 || got.Partial || got.Attempts[1].StatusCode != 204 || got.Attempts[1].EndpointURL != ep.URL ||
		got.Attempts[1].EmailID != m.ID {
		t.Errorf("deliveries --output json = %+v", got)
	}
	if out := c.must("emails", "deliveries", quiet.ID, "--workspace", ws); !strings.Contains(out, "No webhook deliveries for this email.") {
		t.Errorf("an email without deliveries printed:\n%s", out)
	}
	args := []string{"emails", "deliveries", foreign.ID, "--workspace", ws}
	out, err = c.run(args...)
	checkFails(t, args, out, err, email.ErrNotFound, foreign.ID)
}

// `emails show` prints an email and its content as the send kept it: the
// facts, each attachment's name, type and size, the text part derived
// from the html, and the html; in JSON too. An email whose content is not
// kept says why; another workspace's email is not found.
func TestEmailsShow(t *testing.T) {
	ctx := t.Context()
	c := newConsoleTable(t)
	ws, other := c.createWorkspace("Acme"), c.createWorkspace("Other")
	put := func(ws string, typ email.Type, kept email.KeptContent) email.Email {
		m := email.Email{ID: uuid.NewString(), WorkspaceID: ws, To: "ann@example.com", Subject: "Your receipt", Status: email.StatusSent,
			Type: typ, Environment: apikey.Live, SentAt: time.Now().UTC(), TrackingMode: email.TrackingFull}
		if _, err := c.store.Sends.CreateEmail(ctx, m, kept, email.ContentRef{}, nil); err != nil {
			t.Fatal(err)
		}
		return m
	}
	receipt := email.KeptContent{HTML: "<h1>Thanks</h1>\t<p>See <a href=\"https://example.com/o/7\">order 7</a></p>",
		Attachments: []email.AttachmentInfo{{Filename: "Zürich receipt.pdf", ContentType: "application/pdf", Size: 1234}}}
	m := put(ws, email.TypeTransactional, receipt)

	out := c.must("emails", "show", m.ID, "--workspace", ws)
	for _, want := range []string{
		"subject      Your receipt", "type         transactional",
		"ATTACHMENT          TYPE             BYTES\nZürich receipt.pdf  application/pdf  1234",
		"--- text part ---\nThanks\n\nSee order 7 (https://example.com/o/7)\n--- html part ---\n" + receipt.HTML + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("emails show lacks %q:\n%s", want, out)
		}
	}
	got, _ := mustJSON[struct {
		Email   email.View `json:"email"`
		Content struct {
			Subject, Text, HTML string
			Attachments         []email.AttachmentInfo
		} `json:"content"`
	}](c, "emails", "show", m.ID, "--workspace", ws)
	if got.Email.ID != m.ID || got.Content.HTML != receipt.HTML || !strings.HasPrefix(got.Content.Text, "Thanks") ||
		len(got.Content.Attachments) != 1 || got.Content.Attachments[0] != receipt.Attachments[0] {
		t.Errorf("emails show --output json = %+v", got)
	}

	legacy := put(ws, email.TypeCampaign, email.KeptContent{})
	if out := c.must("emails", "show", legacy.ID, "--workspace", ws); !strings.Contains(out, "The content is not shown: it was sent before Sesame recorded") ||
		strings.Contains(out, "--- html part ---") {
		t.Errorf("a campaign email without its source printed:\n%s", out)
	}
	foreign := put(other, email.TypeTransactional, receipt)
	args := []string{"emails", "show", foreign.ID, "--workspace", ws}
	out, err := c.run(args...)
	checkFails(t, args, out, err, email.ErrNotFound, foreign.ID)
}
