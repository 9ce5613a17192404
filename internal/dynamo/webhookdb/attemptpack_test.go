package webhookdb

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/webhook"
)

func TestPackAttemptsRoundTrip(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 27, 15, 4, 5, 123456789, time.UTC)
	email := uuid.Must(uuid.NewV7()).String()
	long := strings.Repeat("é", 150) // 300 bytes
	attempts := []webhook.Attempt{
		{EventType: event.Delivered, EmailID: email, EventID: "evt_0123456789abcdef0123456789abcdef", Number: 1, At: at, StatusCode: 204, LatencyMS: 87},
		{EventType: event.Bounced, EmailID: email, EventID: "evt_0123456789ABCDEF0123456789ABCDEF", Number: 1, At: at, StatusCode: 204},
		{EventType: event.Clicked, EmailID: email, EventID: "evt_1", Number: 3, At: at.Add(-2 * time.Second), StatusCode: 500, LatencyMS: 12, Error: "HTTP 500"},
		{EventType: event.Opened, EmailID: "not-a-uuid", EventID: "evt_2", Number: 14, At: at.Add(-time.Nanosecond), StatusCode: 302, Error: "redirect not followed (HTTP 302)"},
		{EventType: event.Failed, EventID: "evt_3", Number: 2, At: at.Add(-9 * time.Second), LatencyMS: 10000, Error: "the endpoint did not answer within 10s"},
		{EventType: "email.future", EmailID: strings.ToUpper(email), EventID: "evt_4", Number: 1, At: at, StatusCode: 0, Error: long},
	}
	for i := range attempts {
		attempts[i].WorkspaceID, attempts[i].EndpointID = "ws", "ep"
	}
	b := packAttempts(attempts)
	got, err := unpackAttempts(b, "ws", "ep")
	if err != nil {
		t.Fatal(err)
	}
	want := append([]webhook.Attempt(nil), attempts...)
	want[5].Error = strings.Repeat("é", 100) // cut at 200 bytes, on a rune boundary
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
	}
	// A batch of 10 deliveries (UUID ids) packs in well under a write unit.
	ten := make([]webhook.Attempt, 10)
	for i := range ten {
		ten[i] = webhook.Attempt{EventType: event.Delivered, EmailID: uuid.NewString(), EventID: "evt_" + strings.ReplaceAll(uuid.NewString(), "-", ""),
			Number: 1, At: at.Add(time.Duration(i) * time.Millisecond), StatusCode: 200, LatencyMS: 150}
	}
	if n := len(packAttempts(ten)); n > 500 {
		t.Errorf("10 attempts pack in %d bytes, want ≤ 500", n)
	}
}

func TestUnpackRefusesMalformed(t *testing.T) {
	t.Parallel()
	good := packAttempts([]webhook.Attempt{{EventType: event.Delivered, EventID: "e", At: time.Unix(1, 0), StatusCode: 200}})
	for name, b := range map[string][]byte{
		"empty":         nil,
		"version":       append([]byte{9}, good[1:]...),
		"truncated":     good[:len(good)-1],
		"trailing":      append(append([]byte(nil), good...), 0),
		"huge count":    {packVersion, 2, 0xff, 0xff, 0xff, 0xff, 0x0f},
		"negative time": {packVersion, 1, 0},
	} {
		if as, err := unpackAttempts(b, "ws", "ep"); err == nil {
			t.Errorf("%s: unpacked %+v", name, as)
		}
	}
}

// FuzzUnpackAttempts: any bytes either fail to unpack or give attempts
// that pack and unpack to the same attempts.
func FuzzUnpackAttempts(f *testing.F) {
	at := time.Date(2026, 11, 27, 15, 4, 5, 0, time.UTC)
	f.Add(packAttempts([]webhook.Attempt{
		{EventType: event.Delivered, EmailID: uuid.NewString(), EventID: uuid.NewString(), Number: 1, At: at, StatusCode: 204},
		{EventType: "x", EmailID: "e", EventID: "v", Number: 2, At: at.Add(-time.Second), Error: "refused"},
		{EventType: event.Bounced, EventID: "w", At: at, StatusCode: 503, Error: "HTTP 503"},
	}))
	f.Add([]byte{packVersion, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		as, err := unpackAttempts(b, "ws", "ep")
		if err != nil {
			return
		}
		again, err := unpackAttempts(packAttempts(as), "ws", "ep")
		if err != nil {
			t.Fatalf("repacked attempts do not unpack: %v", err)
		}
		if len(as) == 0 && len(again) == 0 {
			return
		}
		if !reflect.DeepEqual(as, again) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", again, as)
		}
	})
}
