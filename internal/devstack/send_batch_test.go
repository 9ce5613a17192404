package devstack_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/apikey"
)

func TestSendBatch(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	other := newSendWS(t, e, defaultSender())
	good1, good2 := msg("batch1", nil), msg("batch2", nil)
	emails := []any{
		good1,
		msg("b", map[string]any{"to": nil}),
		msg("b", map[string]any{"reply_to": []string{"a@x.com", "bad"}}),
		"not an object",
		msg("b", map[string]any{"bogus": 1}),
		good2,
		msg("b", map[string]any{"attachments": []any{map[string]any{"filename": "x.exe", "content": "aGk="}}}),
		msg("b", map[string]any{"to": 42}),
		msg("b", map[string]any{"reply_to": "r@example.org,"}),
		msg("b", map[string]any{"attachments": []any{map[string]any{"filename": "a.txt", "content": "aGk=", "x": 1}}}),
	}
	wantErr := map[int][2]string{
		1: {"missing_field", "emails[1].to"},
		2: {"invalid_field", "emails[2].reply_to"},
		3: {"invalid_field", "emails[3]"},
		4: {"invalid_field", "emails[4].bogus"},
		6: {"invalid_field", "emails[6].attachments"},
		7: {"invalid_field", "emails[7].to"},
		8: {"invalid_field", "emails[8].reply_to"}, // was "internal error; retry it"
		9: {"invalid_field", "emails[9].attachments[0].x"},
	}
	// Items 1 to 9 but 5 are refused on purpose.
	items := e.bad().post(s.key, "/api/v1/send/batch", map[string]any{"emails": emails}).batch(t, len(emails))
	for i, it := range items {
		want, bad := wantErr[i]
		switch {
		case bad && it.Error == nil:
			t.Errorf("item %d: no error, want %v", i, want)
		case bad:
			if it.Error.Code != want[0] || deref(it.Error.Param) != want[1] || it.Error.Message == "" {
				t.Errorf("item %d: error %s %v %q, want %v", i, it.Error.Code, deref(it.Error.Param), it.Error.Message, want)
			}
			if it.Success != nil || it.ID != "" {
				t.Errorf("item %d: error item carries a send answer: %+v", i, it)
			}
		case it.Error != nil || it.Success == nil || !*it.Success || it.Status != "sent":
			t.Errorf("item %d: %+v, want sent", i, it)
		}
	}
	for _, m := range []map[string]any{good1, good2} {
		if n := len(e.ses.sendsTo(m["to"].(string))); n != 1 {
			t.Errorf("%d SES sends to %s, want 1", n, m["to"])
		}
	}
	if got := len(e.ses.Sends()); got != 2 {
		t.Errorf("%d SES sends in all, want the 2 good items", got)
	}
	if ids := e.emailIDs(t, s.key); len(ids) != 2 {
		t.Errorf("%d emails stored, want the 2 good items", len(ids))
	}

	t.Run("item refused by the service names its item", func(t *testing.T) {
		items := e.postTo(t, e.url, s.key, "/api/v1/send/batch", map[string]any{"emails": []any{
			msg("b", map[string]any{"sender_id": other.sender.ID}),
			msg("b", map[string]any{"tracking": "off"}),
		}}).batch(t, 2)
		for i, want := range [][2]string{{"sender_not_found", "emails[0].sender_id"}, {"service_unavailable", "emails[1].tracking"}} {
			if items[i].Error == nil || items[i].Error.Code != want[0] {
				t.Fatalf("item %d = %+v, want %s", i, items[i], want[0])
			}
			if got := deref(items[i].Error.Param); got != want[1] {
				t.Errorf("item %d param = %v, want %s: service errors of batch items are scoped to emails[i]", i, got, want[1])
			}
		}
	})

	t.Run("limits", func(t *testing.T) {
		var tooMany []any
		for range 101 {
			tooMany = append(tooMany, msg("many", nil))
		}
		cases := map[string]struct {
			body  any
			code  string
			param string
		}{
			"emails missing":      {map[string]any{}, "missing_field", "emails"},
			"emails empty":        {map[string]any{"emails": []any{}}, "invalid_field", "emails"},
			"101 emails":          {map[string]any{"emails": tooMany}, "invalid_field", "emails"},
			"emails not an array": {map[string]any{"emails": "x"}, "invalid_field", "emails"},
			"unknown field":       {map[string]any{"emails": []any{msg("u", nil)}, "mode": "fast"}, "invalid_field", "mode"},
		}
		for name, tc := range cases {
			t.Run(name, func(t *testing.T) {
				before := len(e.ses.Sends())
				e.bad().postTo(t, e.url, s.key, "/api/v1/send/batch", tc.body).wantError(t, http.StatusBadRequest, tc.code, tc.param)
				if len(e.ses.Sends()) != before {
					t.Error("a refused batch reached SES")
				}
			})
		}
	})

	t.Run("100 emails", func(t *testing.T) {
		var hundred []any
		for range 100 {
			hundred = append(hundred, msg("hundred", nil))
		}
		before := len(e.ses.Sends())
		items := e.postTo(t, e.url, s.testKey, "/api/v1/send/batch", map[string]any{"emails": hundred}).batch(t, 100)
		for _, it := range items {
			if it.Error != nil || it.Status != "sent" {
				t.Fatalf("item %d = %+v", it.Index, it)
			}
		}
		if len(e.ses.Sends()) != before {
			t.Error("test-mode batch reached SES")
		}
	})

	t.Run("Idempotency-Key replays each item", func(t *testing.T) {
		key := uuid.NewString()
		// Item 1 is refused on purpose.
		body := map[string]any{"emails": []any{msg("bidem1", nil), msg("bidem", map[string]any{"to": nil}), msg("bidem2", nil)}}
		first := e.bad().postTo(t, e.url, s.key, "/api/v1/send/batch", body, "Idempotency-Key", key).batch(t, 3)
		sends := len(e.ses.Sends())
		again := e.bad().postTo(t, e.url, s.key, "/api/v1/send/batch", body, "Idempotency-Key", key).batch(t, 3)
		for i := range first {
			if first[i].ID != again[i].ID || first[i].Status != again[i].Status {
				t.Errorf("item %d: replay %+v, first %+v", i, again[i], first[i])
			}
		}
		if first[0].ID == "" || first[2].ID == "" || first[0].ID == first[2].ID {
			t.Errorf("items 0 and 2 ids %q %q", first[0].ID, first[2].ID)
		}
		if again[1].Error == nil || deref(again[1].Error.Param) != "emails[1].to" {
			t.Errorf("replayed bad item = %+v", again[1])
		}
		if got := len(e.ses.Sends()) - sends; got != 0 {
			t.Errorf("replayed batch made %d SES sends", got)
		}
	})

	t.Run("scope", func(t *testing.T) {
		readOnly := s.scopedKey(t, e, apikey.EmailsRead)
		for _, path := range []string{"/api/v1/send", "/api/v1/send/batch"} {
			// One body for both routes, so /send's has an unknown field.
			r := e.bad().postTo(t, e.url, readOnly, path, map[string]any{"emails": []any{msg("scope", nil)}})
			r.wantError(t, http.StatusForbidden, "insufficient_scope", "")
			if !strings.Contains(string(r.body), "email:send") {
				t.Errorf("%s: message should name email:send: %s", path, r.body)
			}
		}
	})
}
