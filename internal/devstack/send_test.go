package devstack_test

import (
	"fmt"
	"mime"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/ses"
)

func TestSendDeliversThroughSES(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	req := msg("sent", map[string]any{"to": "Ann Example <" + rcpt("ann") + ">"})
	r := e.post(s.key, "/api/v1/send", req)
	b := r.sent(t, http.StatusOK)
	b.want(t, true, "sent")
	if b.Error != nil || len(b.Warnings) != 0 {
		t.Errorf("plain send has error or warnings: %s", r.body)
	}
	d := e.wantEmail(t, s.key, b.ID, "sent", "")
	to := strings.TrimSuffix(strings.SplitN(req["to"].(string), "<", 2)[1], ">")
	if d["to"] != to || d["subject"] != req["subject"] || d["type"] != "transactional" ||
		d["environment"] != "live" || d["open_tracking_mode"] != "full" {
		t.Errorf("email = %v", d)
	}
	sends := e.ses.sendsTo(to)
	if len(sends) != 1 {
		t.Fatalf("%d SES sends to %s, want 1", len(sends), to)
	}
	in := sends[0]
	if in.Tags["email_id"] != b.ID || in.Tags["workspace_id"] != s.id {
		t.Errorf("SES tags = %v", in.Tags)
	}
	if in.ConfigurationSet != "full-set" || in.From != "hello@"+sendDomain {
		t.Errorf("SES input: config set %q, from %q", in.ConfigurationSet, in.From)
	}
	m := parseRaw(t, in.Raw)
	if got := addresses(t, m.Header, "From"); len(got) != 1 || got[0] != "hello@"+sendDomain {
		t.Errorf("From = %v, want the default sender", got)
	}
	if got := addresses(t, m.Header, "To"); len(got) != 1 || got[0] != to {
		t.Errorf("To = %v", got)
	}
	if id := m.Header.Get("Message-Id"); !strings.Contains(id, b.ID) {
		t.Errorf("Message-Id %q does not carry the email id", id)
	}
	if got := emulated(t, req["subject"].(string)); len(got) != 1 || len(got[0].Destination.To) != 1 || !strings.Contains(got[0].Destination.To[0], to) {
		t.Errorf("emulator captured %+v, want one message to %s", got, to)
	}
}

func TestSendBudget(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	// The day's first send of a layout also puts the day's reference of
	// it, beside the email's own write: one more call (not one more round
	// trip) once a day per layout (docs/decisions.md, "The kept content
	// against its layout's reference"). The budgets below are every later
	// send's.
	e.rec.Reset()
	e.post(s.key, "/api/v1/send", msg("budget", nil)).sent(t, http.StatusOK).want(t, true, "sent")
	if got := e.rec.Calls("PutItem"); got != 1 {
		t.Errorf("the day's first send of a layout made %d PutItem calls, want 1 (its reference)", got)
	}
	// The email and its kept content are one BatchWriteItem. With a key,
	// the key's record is written with both in a transaction and its
	// final answer after SES: one more item and one more round trip
	// (docs/decisions.md, "What a transactional email keeps"). Units are
	// write capacity units as DynamoDB reports them (an item under 1 KB is
	// one).
	cases := map[string]struct {
		hdr       []string
		maxCall   int
		maxWrites int
		maxUnits  float64
	}{
		"no Idempotency-Key": {nil, 3, 3, 3},
		// DynamoDB Local counts a transaction's items at one unit each
		// (AWS at two): this bounds the items, so it cannot silently grow.
		"with Idempotency-Key": {[]string{"Idempotency-Key", uuid.NewString()}, 4, 5, 5},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			req := msg("budget", nil)
			before := len(e.ses.Sends())
			e.rec.Reset()
			e.postTo(t, e.url, s.key, "/api/v1/send", req, tc.hdr...).sent(t, http.StatusOK).want(t, true, "sent")
			if got := e.rec.Total(); got > tc.maxCall {
				t.Errorf("send took %d DynamoDB calls, want at most %d (BatchGetItem %d, PutItem %d, UpdateItem %d)",
					got, tc.maxCall, e.rec.Calls("BatchGetItem"), e.rec.Calls("PutItem"), e.rec.Calls("UpdateItem"))
			}
			if got := e.rec.Writes(); got > tc.maxWrites {
				t.Errorf("send wrote %d items, want at most %d", got, tc.maxWrites)
			}
			if _, units := e.rec.Units(); units > tc.maxUnits || units == 0 {
				t.Errorf("send consumed %.1f write units, want at most %.0f", units, tc.maxUnits)
			}
			if got := e.rec.Calls("BatchGetItem"); got != 1 {
				t.Errorf("%d BatchGetItem calls, want the one context read", got)
			}
			if got := len(e.ses.Sends()) - before; got != 1 {
				t.Errorf("%d SES calls, want 1", got)
			}
		})
	}
}

func TestSendSESRejection(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	e.ses.setFail(func(sending.SendInput) error {
		return &ses.RejectedError{Reason: "the message contains a virus", Code: "MessageRejected"}
	})
	key := uuid.NewString()
	req := msg("rejected", nil)
	r := e.post(s.key, "/api/v1/send", req, "Idempotency-Key", key)
	b := r.sent(t, http.StatusOK)
	b.want(t, false, "failed")
	if b.Error == nil || !strings.Contains(*b.Error, "the message contains a virus") {
		t.Errorf("error = %v, want the rejection reason", deref(b.Error))
	}
	e.wantEmail(t, s.key, b.ID, "failed", "the message contains a virus")
	if got := emulated(t, req["subject"].(string)); len(got) != 0 {
		t.Errorf("rejected email reached the emulator")
	}
	// The replay answers with the final outcome, without a second attempt.
	attempts := len(e.ses.Sends())
	again := e.post(s.key, "/api/v1/send", req, "Idempotency-Key", key).sent(t, http.StatusOK)
	again.want(t, false, "failed")
	if again.ID != b.ID || len(e.ses.Sends()) != attempts {
		t.Errorf("replay: id %s (want %s), %d new SES attempts", again.ID, b.ID, len(e.ses.Sends())-attempts)
	}
}

func TestSendSESThrottled(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	e.ses.setFail(func(sending.SendInput) error { return fmt.Errorf("%w: rate exceeded", ses.ErrThrottled) })
	key := uuid.NewString()
	req := msg("throttled", nil)
	r := e.post(s.key, "/api/v1/send", req, "Idempotency-Key", key)
	r.wantError(t, http.StatusServiceUnavailable, "service_unavailable", "")
	if r.header.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
	if ids := e.emailIDs(t, s.key); len(ids) != 0 {
		t.Errorf("an email that was never sent is listed: %v", ids)
	}
	// Without the key too: nothing kept.
	e.post(s.key, "/api/v1/send", msg("throttled-nokey", nil)).wantError(t, http.StatusServiceUnavailable, "service_unavailable", "")
	if ids := e.emailIDs(t, s.key); len(ids) != 0 {
		t.Errorf("an email that was never sent is listed: %v", ids)
	}

	e.ses.setFail(nil)
	b := e.post(s.key, "/api/v1/send", req, "Idempotency-Key", key).sent(t, http.StatusOK)
	b.want(t, true, "sent")
	replay := e.post(s.key, "/api/v1/send", req, "Idempotency-Key", key).sent(t, http.StatusOK)
	if replay.ID != b.ID {
		t.Errorf("replay id %s, want %s", replay.ID, b.ID)
	}
	if ids := e.emailIDs(t, s.key); len(ids) != 1 || ids[0] != b.ID {
		t.Errorf("emails = %v, want only %s", ids, b.ID)
	}
	if got := emulated(t, req["subject"].(string)); len(got) != 1 {
		t.Errorf("emulator has %d messages, want exactly 1", len(got))
	}
}

// A subject of 998 characters is taken however many bytes they are, and
// reaches SES folded: no line over 998 octets, the subject read back whole.
func TestSendLongSubject(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	dec := new(mime.WordDecoder)
	for name, subject := range map[string]string{
		"non-ASCII":     strings.Repeat("é", 998),
		"one long word": strings.Repeat("s", 998),
	} {
		t.Run(name, func(t *testing.T) {
			req := msg("subject", map[string]any{"subject": subject})
			b := e.post(s.key, "/api/v1/send", req).sent(t, http.StatusOK)
			b.want(t, true, "sent")
			if d := e.emailData(t, s.key, b.ID); d["subject"] != subject {
				t.Errorf("stored subject = %v", d["subject"])
			}
			sends := e.ses.sendsTo(req["to"].(string))
			if len(sends) != 1 {
				t.Fatalf("%d SES sends, want 1", len(sends))
			}
			for i, line := range strings.Split(string(sends[0].Raw), "\r\n") {
				if len(line) > 998 {
					t.Errorf("line %d of the message is %d octets", i, len(line))
				}
			}
			got, err := dec.DecodeHeader(parseRaw(t, sends[0].Raw).Header.Get("Subject"))
			if err != nil || got != subject {
				t.Errorf("Subject reads back as %q (%v)", got, err)
			}
		})
	}
}
