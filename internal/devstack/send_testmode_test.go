package devstack_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/sending"
)

func TestSendTestKey(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	cases := map[string]map[string]any{
		"cleared template":         msg("test", nil),
		"new template":             msg("testnew", map[string]any{"html": "<ul><li>never seen</li></ul>"}),
		"new template with a form": msg("testform", map[string]any{"html": "<form><input type=password></form>"}),
		"foreign brand":            msg("testbrand", map[string]any{"subject": "Amazon order " + uuid.NewString()}),
	}
	for name, req := range cases {
		t.Run(name, func(t *testing.T) {
			b := e.postTo(t, e.url, s.testKey, "/api/v1/send", req).sent(t, http.StatusOK)
			b.want(t, true, "sent")
			d := e.wantEmail(t, s.testKey, b.ID, "sent", "")
			if d["environment"] != "test" {
				t.Errorf("environment = %v, want test", d["environment"])
			}
			if got := e.ses.sendsTo(req["to"].(string)); len(got) != 0 {
				t.Errorf("test-mode email was handed to SES")
			}
		})
	}
}

// lockedBuffer is a log destination the server writes to while the test
// reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// A test-mode email is captured: logged with its recipient, subject and
// test marker instead of going to SES.
func TestSendTestKeyLogsTheCapture(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	var logs lockedBuffer
	logged := e.withService(t, func(s *sending.Service) { s.Logger = slog.New(slog.NewJSONHandler(&logs, nil)) })
	req := msg("captured", nil)
	b := e.postTo(t, logged, s.testKey, "/api/v1/send", req).sent(t, http.StatusOK)
	type captureLine struct {
		Msg     string `json:"msg"`
		Test    bool   `json:"test"`
		EmailID string `json:"email_id"`
		To      string `json:"to"`
		Subject string `json:"subject"`
	}
	var line *captureLine
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var c captureLine
		if json.Unmarshal([]byte(l), &c) == nil && c.Msg == "captured test email" {
			line = &c
		}
	}
	if line == nil {
		t.Fatalf("no capture log line in:\n%s", logs.String())
	}
	if !line.Test || line.EmailID != b.ID || line.To != req["to"] || line.Subject != req["subject"] {
		t.Errorf("capture log = %+v, want test marker, id %s, recipient and subject", line, b.ID)
	}
	if len(e.ses.sendsTo(req["to"].(string))) != 0 {
		t.Error("test-mode email was handed to SES")
	}
}
