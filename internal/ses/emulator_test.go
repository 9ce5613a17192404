package ses_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"os"
	"strings"
	"testing"
	"time"

	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/compose/raw"
	"github.com/sesame-mail/sesame/internal/emulatortest"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/ses"
)

// TestEmulatorSendRaw sends a composed message through the real SDK to
// aws-ses-v2-local and reads it back from the emulator's store.
func TestEmulatorSendRaw(t *testing.T) {
	endpoint := emulatortest.Require(t, "AWS_ENDPOINT_URL_SESV2")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	client := &ses.Client{API: sesv2.NewFromConfig(cfg)}

	id := uuid.Must(uuid.NewV7()).String()
	subject := "Grüße 👋 " + id // unique: the emulator's store is shared
	pdf := append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte{0, 1, 2, 0xfe, 0xff}, 1000)...)
	raw, err := raw.Build(compose.Message{
		From:        mail.Address{Name: "Sesame", Address: "hello@mail.example.test"},
		To:          "bob@example.test",
		ReplyTo:     []string{"support@example.test"},
		Subject:     subject,
		HTML:        "<p>Hello <b>Bob</b></p>",
		Attachments: []compose.Attachment{{Filename: "report.pdf", ContentType: "application/pdf", Data: pdf}},
		Headers:     map[string]string{"List-Unsubscribe": "<https://unsub.example.test/u>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"},
		EmailID:     id,
	})
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now().Add(-2 * time.Second)
	messageID, err := client.Send(ctx, sending.SendInput{
		Raw:              raw,
		ConfigurationSet: "sesame-tracking-on",
		Tags:             map[string]string{"email_id": id, "workspace_id": uuid.NewString()},
		From:             "hello@mail.example.test",
		To:               "bob@example.test",
	})
	if err != nil {
		t.Fatalf("Send: %v", err)
	}
	if messageID == "" {
		t.Fatal("empty message id")
	}

	emails, err := ses.ReadEmulatorStore(ctx, endpoint)
	if err != nil {
		t.Fatal(err)
	}
	var got *ses.StoredEmail
	for i := range emails {
		if emails[i].MessageID == messageID {
			got = &emails[i]
		}
	}
	if got == nil {
		t.Fatalf("message %s not in the emulator store (%d emails)", messageID, len(emails))
	}
	if got.Subject != subject {
		t.Errorf("subject = %q, want %q", got.Subject, subject)
	}
	if len(got.Destination.To) != 1 || !strings.Contains(got.Destination.To[0], "bob@example.test") {
		t.Errorf("to = %q", got.Destination.To)
	}
	if !strings.Contains(got.From, "hello@mail.example.test") {
		t.Errorf("from = %q", got.From)
	}
	if len(got.ReplyTo) != 1 || !strings.Contains(got.ReplyTo[0], "support@example.test") {
		t.Errorf("reply-to = %q", got.ReplyTo)
	}
	if !strings.Contains(got.Body.HTML, "<b>Bob</b>") || strings.TrimSpace(got.Body.Text) != "Hello Bob" {
		t.Errorf("body = %+v", got.Body)
	}
	if len(got.Attachments) != 1 {
		t.Fatalf("attachments = %d, want 1", len(got.Attachments))
	}
	a := got.Attachments[0]
	if a.Filename != "report.pdf" || a.ContentType != "application/pdf" || a.Size != len(pdf) || !bytes.Equal(a.Content, pdf) {
		t.Errorf("attachment = %q %q size %d, %d bytes equal=%v", a.Filename, a.ContentType, a.Size, len(a.Content), bytes.Equal(a.Content, pdf))
	}
	if got.Time().Before(before) || got.Time().After(time.Now().Add(2*time.Second)) {
		t.Errorf("captured at %v", got.Time())
	}
}

func TestReadEmulatorStore(t *testing.T) {
	fixture, err := os.ReadFile("testdata/store.json")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/store" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(fixture)
	}))
	defer srv.Close()

	emails, err := ses.ReadEmulatorStore(t.Context(), srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if len(emails) != 2 {
		t.Fatalf("got %d emails, want 2", len(emails))
	}
	raw, simple := emails[0], emails[1]
	if raw.MessageID != "ses-493712055" || raw.Subject != "Grüße 👋 fixture" || raw.At != 1795307460 ||
		len(raw.Destination.To) != 1 || raw.Destination.To[0] != "bob@example.test" ||
		raw.Body.Text != "Hello Bob" || !strings.Contains(raw.Body.HTML, "<b>Bob</b>") {
		t.Errorf("raw email = %+v", raw)
	}
	if len(raw.Attachments) != 1 || raw.Attachments[0].Filename != "report.pdf" ||
		raw.Attachments[0].ContentType != "application/pdf" || string(raw.Attachments[0].Content) != "%PDF-1.4 fixture" {
		t.Errorf("raw attachments = %+v", raw.Attachments)
	}
	if len(simple.Headers) != 1 || simple.Headers[0] != (ses.StoredHeader{Name: "X-Test", Value: "1"}) {
		t.Errorf("simple headers = %+v", simple.Headers)
	}

	srv404 := httptest.NewServer(http.NotFoundHandler())
	defer srv404.Close()
	if _, err := ses.ReadEmulatorStore(t.Context(), srv404.URL); err == nil {
		t.Error("want an error for a 404")
	}
}
