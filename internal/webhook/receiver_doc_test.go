package webhook_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/webhook"
)

// The Go receiver of docs/api.md is receiver_example_test.go: these tests
// run it against deliveries signed as the dispatcher signs them, and keep
// the guide's copy equal to it.

// docMarker precedes the guide's copy of receiver_example_test.go.
const docMarker = "<!-- go-webhook-receiver: internal/webhook/receiver_example_test.go -->"

// delivery is a webhook request as the dispatcher makes it.
func delivery(t *testing.T, secret string, sent time.Time, body []byte) *http.Request {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/hooks/sesame", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(webhook.HeaderSignature, webhook.Sign(sent, body, secret))
	r.Header.Set(webhook.HeaderEventID, "evt_1")
	r.Header.Set(webhook.HeaderEventType, string(event.Delivered))
	return r
}

func eventBody(t *testing.T) []byte {
	t.Helper()
	view := email.Email{ID: "01a20b3a-0000-7000-8000-000000000001", To: "ann@example.org", Subject: "Hi", Status: email.StatusDelivered,
		Type: email.TypeTransactional, Environment: "live", SentAt: time.Now()}.View()
	// Not ASCII and not in Go's key order: the signature covers the bytes.
	view.Subject = "Grüße"
	body, err := event.Event{ID: "evt_1", Type: event.Delivered, CreatedAt: time.Now(), Data: &view}.Body()
	if err != nil {
		t.Fatal(err)
	}
	return body
}

func TestReceiverExampleTakesSesameDeliveries(t *testing.T) {
	secret := webhook.NewSecret()
	var got []Event
	h := webhookHandler(secret, func(ev Event) error { got = append(got, ev); return nil })
	body := eventBody(t)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, delivery(t, secret, time.Now(), body))
	if rec.Code != http.StatusNoContent {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	if len(got) != 1 || got[0].ID != "evt_1" || got[0].Type != "email.delivered" || !bytes.Contains(got[0].Data, []byte(`"status":"delivered"`)) {
		t.Errorf("handled %+v", got)
	}
}

func TestReceiverExampleRefuses(t *testing.T) {
	secret := webhook.NewSecret()
	body := eventBody(t)
	now := time.Now()
	cases := map[string]struct {
		req  func() *http.Request
		fail bool // the handler fails
		want int
	}{
		"another secret": {func() *http.Request { return delivery(t, webhook.NewSecret(), now, body) }, false, http.StatusUnauthorized},
		"the secret without its whsec_ prefix": {func() *http.Request {
			return delivery(t, strings.TrimPrefix(secret, "whsec_"), now, body)
		}, false, http.StatusUnauthorized},
		"a changed body": {func() *http.Request {
			r := delivery(t, secret, now, body)
			r.Body = io.NopCloser(bytes.NewReader(bytes.Replace(body, []byte("delivered"), []byte("bounced"), 1)))
			return r
		}, false, http.StatusUnauthorized},
		"signed 6 minutes ago": {func() *http.Request { return delivery(t, secret, now.Add(-6*time.Minute), body) }, false, http.StatusUnauthorized},
		"no signature": {func() *http.Request {
			r := delivery(t, secret, now, body)
			r.Header.Del(webhook.HeaderSignature)
			return r
		}, false, http.StatusUnauthorized},
		"the handler fails": {func() *http.Request { return delivery(t, secret, now, body) }, true, http.StatusInternalServerError},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			handled := false
			h := webhookHandler(secret, func(Event) error {
				handled = true
				if tc.fail {
					return errors.New("database down")
				}
				return nil
			})
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, tc.req())
			if rec.Code != tc.want {
				t.Errorf("status %d, want %d", rec.Code, tc.want)
			}
			if handled != tc.fail {
				t.Errorf("handled = %v: an unverified event must never reach the handler", handled)
			}
		})
	}
}

// During a rotation a delivery carries a v1 per secret, newest first: the
// guide's receiver takes it with either secret, and refuses it with neither.
func TestReceiverExampleTakesARotationsTwoSignatures(t *testing.T) {
	oldSecret, newSecret := webhook.NewSecret(), webhook.NewSecret()
	body := eventBody(t)
	now := time.Now()
	header := webhook.Sign(now, body, newSecret, oldSecret)
	if n := strings.Count(header, "v1="); n != 2 {
		t.Fatalf("header %q has %d v1 entries, want 2", header, n)
	}
	for name, secret := range map[string]string{"old": oldSecret, "new": newSecret} {
		if err := verifySignature(secret, header, body, now); err != nil {
			t.Errorf("the %s secret: %v", name, err)
		}
	}
	if err := verifySignature(webhook.NewSecret(), header, body, now); err == nil {
		t.Error("a third secret verifies the rotation's header")
	}
}

// docs/api.md shows receiver_example_test.go word for word, after its
// package clause.
func TestReceiverExampleIsTheGuides(t *testing.T) {
	src, err := os.ReadFile("receiver_example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	code, ok := strings.CutPrefix(string(src), "package webhook_test\n\n")
	if !ok {
		t.Fatal("receiver_example_test.go does not start with its package clause and a blank line")
	}
	guide, err := os.ReadFile(filepath.Join("..", "..", "docs", "api.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(guide), docMarker+"\n```go\n")
	if !ok {
		t.Fatalf("docs/api.md has no %s followed by a go code block", docMarker)
	}
	shown, _, ok := strings.Cut(after, "```\n")
	if !ok {
		t.Fatal("the go code block of docs/api.md does not end")
	}
	if shown != code {
		t.Errorf("docs/api.md's Go receiver differs from receiver_example_test.go; copy the file (after its package clause) into the guide")
	}
}
