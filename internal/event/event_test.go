package event_test

import (
	"slices"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/event"
)

func TestTypes(t *testing.T) {
	// The spec's six event types, and nothing else.
	want := []event.Type{"email.delivered", "email.bounced", "email.complained", "email.failed", "email.opened", "email.clicked"}
	if !slices.Equal(event.Types, want) {
		t.Errorf("Types = %v, want %v", event.Types, want)
	}
	cases := map[event.Type]bool{
		event.Delivered: true, event.Bounced: true, event.Complained: true, event.Failed: true, event.Opened: true, event.Clicked: true,
		"email.sent": false, "email.suppressed": false, "delivered": false, "EMAIL.DELIVERED": false, "": false,
	}
	for typ, valid := range cases {
		if typ.Valid() != valid {
			t.Errorf("%q.Valid() = %v, want %v", typ, typ.Valid(), valid)
		}
	}
}

func TestEnvelope(t *testing.T) {
	delivered := time.Date(2026, 11, 22, 10, 0, 1, 250_000_000, time.UTC)
	view := email.Email{
		ID: "01937f4e-0000-7000-8000-000000000001", To: "ann@example.com", Subject: "Hi",
		Status: email.StatusDelivered, Type: email.TypeTransactional, Environment: apikey.Live,
		SentAt: delivered.Add(-time.Second), DeliveredAt: &delivered, TrackingMode: email.TrackingEssential,
	}.View()
	paris := time.FixedZone("CET", 3600)
	cases := map[string]struct {
		ev   event.Event
		want string
	}{
		"with an email": {
			event.Event{ID: "evt_1", WorkspaceID: "ws_secret", Type: event.Delivered, CreatedAt: delivered.In(paris), Data: &view},
			`{"id":"evt_1","type":"email.delivered","created_at":"2026-11-22T10:00:01.250Z","data":{"id":"01937f4e-0000-7000-8000-000000000001","to":"ann@example.com","subject":"Hi","status":"delivered","type":"transactional","environment":"live","sent_at":"2026-11-22T10:00:00.250Z","delivered_at":"2026-11-22T10:00:01.250Z","opened_at":null,"clicked_at":null,"bounced_at":null,"complained_at":null,"open_tracking_mode":"essential","error":null,"tags":[],"source":{"type":"api"}}}`,
		},
		"no associated message: data null": {
			event.Event{ID: "evt_2", Type: event.Failed, CreatedAt: time.Date(2026, 11, 22, 0, 0, 0, 999_999, time.UTC)},
			`{"id":"evt_2","type":"email.failed","created_at":"2026-11-22T00:00:00.000Z","data":null}`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b, err := tc.ev.Body()
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("body\n got %s\nwant %s", b, tc.want)
			}
			env := tc.ev.Envelope()
			if env.ID != tc.ev.ID || env.Type != tc.ev.Type || env.Data != tc.ev.Data {
				t.Errorf("envelope = %+v", env)
			}
		})
	}
}
