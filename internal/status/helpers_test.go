package status_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/status"
)

// fixtureDir holds the SES event samples, with ${WORKSPACE_ID}, ${EMAIL_ID}
// and ${RECIPIENT} placeholders.
var fixtureDir = filepath.Join("..", "..", "events", "ses")

// The ids the fixtures are expanded with unless a test says otherwise.
const (
	wsID      = "ws_0000000000000001"
	emailID   = "01937f4e-0000-7000-8000-000000000001"
	recipient = "ann@example.com"
)

// fixtureNames lists every SES event sample, so a new one is covered by the
// tests that range over them.
func fixtureNames(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(fixtureDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("no SES fixtures in %s", fixtureDir)
	}
	names := make([]string, 0, len(paths))
	for _, p := range paths {
		names = append(names, strings.TrimSuffix(filepath.Base(p), ".json"))
	}
	sort.Strings(names)
	return names
}

// fixtureFor returns the SES event sample name expanded for one email.
func fixtureFor(t *testing.T, name, workspaceID, id, to string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(fixtureDir, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"WORKSPACE_ID": workspaceID, "EMAIL_ID": id, "RECIPIENT": to}
	return []byte(os.Expand(string(raw), func(k string) string {
		v, ok := vars[k]
		if !ok {
			t.Fatalf("fixture %s: unknown placeholder %q", name, k)
		}
		return v
	}))
}

// fixture is fixtureFor the default ids.
func fixture(t *testing.T, name string) []byte {
	t.Helper()
	return fixtureFor(t, name, wsID, emailID, recipient)
}

// edited returns fixture name (default ids) after edit changed its JSON.
func edited(t *testing.T, name string, edit func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(fixture(t, name), &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// obj returns m[k] as an object, failing when it is not one.
func obj(t *testing.T, m map[string]any, k string) map[string]any {
	t.Helper()
	o, ok := m[k].(map[string]any)
	if !ok {
		t.Fatalf("fixture has no %q object", k)
	}
	return o
}

// parsed is the parsed SES event of a body that must parse.
func parsed(t *testing.T, body []byte) status.SESEvent {
	t.Helper()
	ev, err := status.Parse(body)
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, body)
	}
	return ev
}

// sesEvent is the parsed fixture name (default ids).
func sesEvent(t *testing.T, name string) status.SESEvent {
	t.Helper()
	return parsed(t, fixture(t, name))
}

// at is a fixed time of the fixtures' day (2026-11-22 UTC).
func at(hh, mm, ss, ms int) time.Time {
	return time.Date(2026, 11, 22, hh, mm, ss, ms*int(time.Millisecond), time.UTC)
}

// sentEmail is the email every fixture is about, as the send path stores
// it, after mutate.
func sentEmail(mutate ...func(*email.Email)) email.Email {
	e := email.Email{
		ID: emailID, WorkspaceID: wsID, To: recipient, Subject: "Your order",
		Status: email.StatusSent, Type: email.TypeTransactional, Environment: apikey.Live,
		SentAt: at(10, 0, 0, 0), TrackingMode: email.TrackingFull,
	}
	for _, m := range mutate {
		m(&e)
	}
	return e
}

func ptr[T any](v T) *T { return &v }

// timeOf formats an optional time for messages.
func timeOf(p *time.Time) string {
	if p == nil {
		return "<nil>"
	}
	return p.UTC().Format(time.RFC3339Nano)
}
