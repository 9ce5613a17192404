package devstack_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/ses"
	"github.com/sesame-mail/sesame/internal/workspace"
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
	// With a key, the key's record is written with the email and its final
	// answer after SES: one more item and one more round trip. Units are
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
		"with Idempotency-Key": {[]string{"Idempotency-Key", uuid.NewString()}, 4, 4, 4},
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

func TestSendHeldUntilCleared(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	layout := func(name string) string { return "<div><h1>Welcome " + name + "</h1><p>Glad you joined.</p></div>" }

	first := msg("held1", map[string]any{"html": layout("Ann")})
	r := e.post(s.key, "/api/v1/send", first)
	held1 := r.sent(t, http.StatusAccepted)
	held1.want(t, true, "held")
	// A later email of the same (still pending) template waits with it.
	second := msg("held2", map[string]any{"html": layout("Bob")})
	held2 := e.post(s.key, "/api/v1/send", second).sent(t, http.StatusAccepted)
	held2.want(t, true, "held")
	for _, id := range []string{held1.ID, held2.ID} {
		e.wantEmail(t, s.key, id, "held", "")
	}
	if n := len(e.ses.Sends()); n != 0 {
		t.Fatalf("%d SES sends before review, want 0", n)
	}

	e.reviewHeld(t, 2)
	for _, m := range []struct {
		id  string
		req map[string]any
	}{{held1.ID, first}, {held2.ID, second}} {
		e.wantEmail(t, s.key, m.id, "sent", "")
		sends := e.ses.sendsTo(m.req["to"].(string))
		if len(sends) != 1 || sends[0].Tags["email_id"] != m.id {
			t.Errorf("SES sends to %s after review: %+v, want one for %s", m.req["to"], sends, m.id)
		}
		if got := emulated(t, m.req["subject"].(string)); len(got) != 1 {
			t.Errorf("emulator has %d messages for %s, want 1", len(got), m.id)
		}
	}
	// The template is cleared now: the next email of it goes out at once.
	third := msg("held3", map[string]any{"html": layout("Cy")})
	e.post(s.key, "/api/v1/send", third).sent(t, http.StatusOK).want(t, true, "sent")
	if len(e.ses.sendsTo(third["to"].(string))) != 1 {
		t.Error("email of a cleared template was not sent at once")
	}
}

func TestSendHeldNotCleared(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	formHTML := `<form action="https://acme.test/login"><input type="password" name="pw"><button>Sign in</button></form>`
	// A layout that fails the review is denied: the email fails.
	form := msg("form", map[string]any{"html": formHTML})
	fb := e.postTo(t, e.url, s.key, "/api/v1/send", form).sent(t, http.StatusAccepted)
	fb.want(t, true, "held")
	e.reviewHeld(t, 1)
	e.wantEmail(t, s.key, fb.ID, "failed", "contains a form")
	// An email naming a foreign brand stays held for the owner, who denies it.
	cases := map[string]map[string]any{
		"foreign brand in the subject":        msg("brand", map[string]any{"subject": "Your PayPal account " + uuid.NewString()}),
		"foreign brand in the text":           msg("brandtext", map[string]any{"html": "<p>Log in to Netflix now</p>"}),
		"foreign brand in a new template too": msg("brandnew", map[string]any{"html": "<section><p>DHL parcel waiting</p></section>"}),
	}
	for name, req := range cases {
		t.Run(name, func(t *testing.T) {
			b := e.postTo(t, e.url, s.key, "/api/v1/send", req).sent(t, http.StatusAccepted)
			b.want(t, true, "held")
			e.reviewHeld(t, 1)
			e.wantEmail(t, s.key, b.ID, "held", "")
			if err := e.held().Deny(t.Context(), s.id, b.ID); err != nil {
				t.Fatal(err)
			}
			e.reviewHeld(t, 1)
			e.wantEmail(t, s.key, b.ID, "failed", "denied by the workspace owner")
			if got := e.ses.sendsTo(req["to"].(string)); len(got) != 0 {
				t.Errorf("an email that was not cleared reached SES: %+v", got)
			}
		})
	}
	// A later email of the denied template is recorded failed at once.
	later := msg("form-later", map[string]any{"html": formHTML})
	r := e.post(s.key, "/api/v1/send", later)
	b := r.sent(t, http.StatusOK)
	b.want(t, false, "failed")
	if b.Error == nil || *b.Error == "" {
		t.Errorf("failed answer without error: %s", r.body)
	}
	e.wantEmail(t, s.key, b.ID, "failed", "security review")
	if len(e.ses.sendsTo(later["to"].(string))) != 0 {
		t.Error("email of a denied template reached SES")
	}
}

func TestSendOwnBrandIsNotHeld(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	s.update(t, e, workspace.Settings{Brands: &[]string{"PayPal"}})
	req := msg("ownbrand", map[string]any{"subject": "Your PayPal receipt " + uuid.NewString()})
	e.post(s.key, "/api/v1/send", req).sent(t, http.StatusOK).want(t, true, "sent")
	if len(e.ses.sendsTo(req["to"].(string))) != 1 {
		t.Error("email naming the workspace's own brand was not sent")
	}
}

// Two emails held behind one new template: the review of the clean one
// must not release the other, which names a brand the workspace does not
// own: it stays held for the owner.
func TestSendPendingTemplateDoesNotClearForeignBrand(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	layout := "<table><tr><td>Receipt</td></tr></table>"
	clean := msg("clean", map[string]any{"html": layout})
	phish := msg("phish", map[string]any{"html": layout, "subject": "PayPal: confirm your account " + uuid.NewString()})
	c := e.post(s.key, "/api/v1/send", clean).sent(t, http.StatusAccepted)
	p := e.post(s.key, "/api/v1/send", phish).sent(t, http.StatusAccepted)
	e.reviewHeld(t, 2)
	e.wantEmail(t, s.key, c.ID, "sent", "")
	if got := e.emailData(t, s.key, p.ID)["status"]; got != "held" || len(e.ses.sendsTo(phish["to"].(string))) != 0 {
		t.Errorf("email naming PayPal held behind a pending template was released with it: status %v, %d SES sends",
			got, len(e.ses.sendsTo(phish["to"].(string))))
	}
}

func TestSendSuppressed(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	to := rcpt("Suppressed")
	if err := e.store.Suppressions.AddSuppression(context.Background(), s.id, to, "bounced"); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"same address":            to,
		"other case, with a name": "Sue <" + strings.ToUpper(to) + ">",
	}
	for name, addr := range cases {
		t.Run(name, func(t *testing.T) {
			r := e.postTo(t, e.url, s.key, "/api/v1/send", msg("x", map[string]any{"to": addr}))
			b := r.sent(t, http.StatusOK)
			b.want(t, false, "suppressed")
			e.wantEmail(t, s.key, b.ID, "suppressed", "")
			if got := e.ses.sendsTo(to); len(got) != 0 {
				t.Errorf("suppressed recipient reached SES: %d sends", len(got))
			}
		})
	}
}

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

func TestSendTracking(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	yes := true
	essential := "essential"
	cases := map[string]struct {
		settings workspace.Settings
		tracking string
		set      string
		mode     string
	}{
		"default is full":                {workspace.Settings{}, "", "full-set", "full"},
		"essential requested":            {workspace.Settings{}, "essential", "essential-set", "essential"},
		"full requested":                 {workspace.Settings{}, "full", "full-set", "full"},
		"off, provisioned":               {workspace.Settings{TrackingOffProvisioned: &yes}, "off", "off-set", "off"},
		"workspace default essential":    {workspace.Settings{DefaultTracking: &essential}, "", "essential-set", "essential"},
		"request overrides the default":  {workspace.Settings{DefaultTracking: &essential}, "full", "full-set", "full"},
		"provisioned, but not requested": {workspace.Settings{TrackingOffProvisioned: &yes}, "", "full-set", "full"},
	}
	for name, tc := range cases {
		s := newSendWS(t, e, defaultSender())
		if tc.settings != (workspace.Settings{}) {
			s.update(t, e, tc.settings)
		}
		t.Run(name, func(t *testing.T) {
			req := msg("track", map[string]any{"tracking": tc.tracking})
			if tc.tracking == "" {
				delete(req, "tracking")
			}
			b := e.postTo(t, e.url, s.key, "/api/v1/send", req).sent(t, http.StatusOK)
			b.want(t, true, "sent")
			if d := e.emailData(t, s.key, b.ID); d["open_tracking_mode"] != tc.mode {
				t.Errorf("open_tracking_mode = %v, want %s", d["open_tracking_mode"], tc.mode)
			}
			sends := e.ses.sendsTo(req["to"].(string))
			if len(sends) != 1 || sends[0].ConfigurationSet != tc.set {
				t.Fatalf("SES sends %+v, want one with configuration set %s", sends, tc.set)
			}
			if sends[0].Tags["email_id"] != b.ID || sends[0].Tags["workspace_id"] != s.id {
				t.Errorf("tags = %v", sends[0].Tags)
			}
		})
	}
}

// The allowance is used up the way it is in production: live sends go to
// SES, whose Send events the status consumer counts; test sends and held
// emails never reach SES and count nothing.
func TestSendMonthlyAllowance(t *testing.T) {
	t.Parallel()
	p := startPipeline(t)
	e := p.env
	s := newSendWS(t, e, defaultSender())
	two := 2
	s.update(t, e, workspace.Settings{MonthlyAllowance: &two})
	p.send(t, s.testKey, msg("quota-test0", nil))
	e.post(s.key, "/api/v1/send", msg("quota-held", map[string]any{"html": "<figure>new layout</figure>"})).sent(t, http.StatusAccepted)
	p.send(t, s.key, msg("quota1", nil))
	p.send(t, s.key, msg("quota2", nil))
	p.drain(t, 4) // Send and Delivery of each live email
	before := e.emailIDs(t, s.key)
	req := msg("quota", nil)
	r := e.post(s.key, "/api/v1/send", req)
	var eb errorBody
	if err := json.Unmarshal(r.body, &eb); err != nil {
		t.Fatalf("body %s: %v", r.body, err)
	}
	if eb.Error.Code != "monthly_quota_exceeded" {
		t.Errorf("code = %q, want monthly_quota_exceeded; body %s", eb.Error.Code, r.body)
	}
	if secs, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || secs <= 0 {
		t.Errorf("Retry-After = %q, want a positive number of seconds", r.header.Get("Retry-After"))
	}
	if got := e.emailIDs(t, s.key); len(got) != len(before) || len(e.ses.sendsTo(req["to"].(string))) != 0 {
		t.Errorf("over the allowance: %d emails stored (was %d), %d SES sends", len(got), len(before), len(e.ses.sendsTo(req["to"].(string))))
	}
	// Test mode is not counted and not capped.
	e.post(s.testKey, "/api/v1/send", msg("quota-test", nil)).sent(t, http.StatusOK).want(t, true, "sent")
	if r.status != http.StatusTooManyRequests {
		t.Errorf("monthly_quota_exceeded answers HTTP %d, want 429", r.status)
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

func TestSendIdempotency(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	other := newSendWS(t, e, defaultSender())

	t.Run("replay", func(t *testing.T) {
		key := uuid.NewString()
		req := msg("idem", nil)
		first := e.postTo(t, e.url, s.key, "/api/v1/send", req, "Idempotency-Key", key).sent(t, http.StatusOK)
		again := e.postTo(t, e.url, s.key, "/api/v1/send", req, "Idempotency-Key", key).sent(t, http.StatusOK)
		if again.ID != first.ID || again.Status != "sent" {
			t.Errorf("replay = %+v, want id %s sent", again, first.ID)
		}
		if n := len(e.ses.sendsTo(req["to"].(string))); n != 1 {
			t.Errorf("%d SES sends, want 1", n)
		}
		changed := msg("idem", map[string]any{"to": req["to"], "subject": req["subject"], "html": "<p>Another text</p>"})
		e.postTo(t, e.url, s.key, "/api/v1/send", changed, "Idempotency-Key", key).
			wantError(t, http.StatusConflict, "idempotency_conflict", "Idempotency-Key")
	})
	t.Run("replay of a held answer", func(t *testing.T) {
		key := uuid.NewString()
		req := msg("idemheld", map[string]any{"html": "<article>new layout</article>"})
		first := e.postTo(t, e.url, s.key, "/api/v1/send", req, "Idempotency-Key", key).sent(t, http.StatusAccepted)
		again := e.postTo(t, e.url, s.key, "/api/v1/send", req, "Idempotency-Key", key).sent(t, http.StatusAccepted)
		if again.ID != first.ID || again.Status != "held" {
			t.Errorf("replay = %+v, want id %s held", again, first.ID)
		}
	})
	t.Run("concurrent requests with one key", func(t *testing.T) {
		key := uuid.NewString()
		req := msg("idemrace", nil)
		const n = 10
		answers := make([]response, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				answers[i], errs[i] = e.do(e.url, s.key, http.MethodPost, "/api/v1/send", req, "Idempotency-Key", key)
			})
		}
		wg.Wait()
		// Each twin gets the one answer, or is told to retry while the
		// first request is still running; a retry then replays it.
		var id string
		for i, r := range answers {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			if r.status == http.StatusConflict {
				r.wantError(t, http.StatusConflict, "idempotency_in_progress", "Idempotency-Key")
				if r.header.Get("Retry-After") == "" {
					t.Error("in-progress answer without Retry-After")
				}
				continue
			}
			b := r.sent(t, http.StatusOK)
			if id == "" {
				id = b.ID
			}
			if b.ID != id || b.Status != "sent" {
				t.Errorf("answer %d = %+v, want id %s sent", i, b, id)
			}
		}
		if id == "" {
			t.Fatal("no request was answered with the send")
		}
		if got := len(e.ses.sendsTo(req["to"].(string))); got != 1 {
			t.Errorf("%d SES sends for %d concurrent requests with one key, want 1", got, n)
		}
		again := e.postTo(t, e.url, s.key, "/api/v1/send", req, "Idempotency-Key", key).sent(t, http.StatusOK)
		if again.ID != id {
			t.Errorf("retry after the race = %s, want the one send %s", again.ID, id)
		}
	})
	t.Run("a refused request does not use up the key", func(t *testing.T) {
		key := strings.Repeat("r", 255) // the longest key allowed
		req := msg("idemrefused", nil)
		bad := msg("idemrefused", map[string]any{"to": req["to"], "subject": nil})
		e.bad().postTo(t, e.url, s.key, "/api/v1/send", bad, "Idempotency-Key", key).
			wantError(t, http.StatusBadRequest, "missing_field", "subject")
		e.postTo(t, e.url, s.key, "/api/v1/send", req, "Idempotency-Key", key).sent(t, http.StatusOK).want(t, true, "sent")
		if n := len(e.ses.sendsTo(req["to"].(string))); n != 1 {
			t.Errorf("%d SES sends, want 1", n)
		}
	})
	t.Run("keys are scoped to the workspace", func(t *testing.T) {
		key := uuid.NewString()
		req := msg("idemws", nil)
		mine := e.postTo(t, e.url, s.key, "/api/v1/send", req, "Idempotency-Key", key).sent(t, http.StatusOK)
		theirs := e.postTo(t, e.url, other.key, "/api/v1/send", req, "Idempotency-Key", key).sent(t, http.StatusOK)
		theirs.want(t, true, "sent")
		if theirs.ID == mine.ID {
			t.Error("another workspace's request with the same key replayed this workspace's answer")
		}
		if got := len(e.ses.sendsTo(req["to"].(string))); got != 2 {
			t.Errorf("%d SES sends, want one per workspace", got)
		}
		e.emailData(t, other.key, theirs.ID)
	})
}

// An Idempotency-Key replays for 24 hours; after that the same key sends
// again.
func TestSendIdempotencyExpires(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	clock := dynamotest.NewClock(start)
	e := startDevAt(t, clock)
	s := newSendWS(t, e, defaultSender())
	key := uuid.NewString()
	req := msg("idemttl", nil)
	first := e.post(s.key, "/api/v1/send", req, "Idempotency-Key", key).sent(t, http.StatusOK)

	clock.Set(start.Add(24*time.Hour - time.Second))
	if again := e.post(s.key, "/api/v1/send", req, "Idempotency-Key", key).sent(t, http.StatusOK); again.ID != first.ID {
		t.Errorf("replay within 24 hours = %s, want %s", again.ID, first.ID)
	}
	clock.Set(start.Add(24*time.Hour + time.Second))
	later := e.post(s.key, "/api/v1/send", req, "Idempotency-Key", key).sent(t, http.StatusOK)
	if later.ID == first.ID || later.Status != "sent" {
		t.Errorf("same key after 24 hours = %+v, want a new email sent", later)
	}
	if n := len(e.ses.sendsTo(req["to"].(string))); n != 2 {
		t.Errorf("%d SES sends, want 2 (one per 24-hour window)", n)
	}
}

// A twin is told to retry while the first request runs, for up to 60 s;
// past that (the first request's function is gone) it gets the answer the
// first request recorded with the email.
func TestSendIdempotencyInFlightWindow(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	clock := dynamotest.NewClock(start)
	e := startDevAt(t, clock)
	s := newSendWS(t, e, defaultSender())
	key := uuid.NewString()
	req := msg("idemslow", nil)
	release := make(chan struct{})
	var released sync.Once
	unblock := func() { released.Do(func() { close(release) }) }
	t.Cleanup(unblock) // before the server stops, even if the test fails early
	e.ses.setFail(func(in sending.SendInput) error {
		if in.To == req["to"] {
			<-release // SES is slow for the first request
		}
		return nil
	})
	first := make(chan response, 1)
	go func() {
		r, err := e.do(e.url, s.key, http.MethodPost, "/api/v1/send", req, "Idempotency-Key", key)
		if err != nil {
			t.Error(err)
		}
		first <- r
	}()
	// The claim is written with the email, before SES is called.
	for i := 0; len(e.ses.sendsTo(req["to"].(string))) == 0; i++ {
		if i == 1000 {
			t.Fatal("the first request never reached SES")
		}
		time.Sleep(10 * time.Millisecond)
	}

	clock.Set(start.Add(59 * time.Second))
	e.post(s.key, "/api/v1/send", req, "Idempotency-Key", key).
		wantError(t, http.StatusConflict, "idempotency_in_progress", "Idempotency-Key")
	clock.Set(start.Add(61 * time.Second))
	late := e.post(s.key, "/api/v1/send", req, "Idempotency-Key", key).sent(t, http.StatusOK)
	unblock()
	done := (<-first).sent(t, http.StatusOK)
	if late.ID != done.ID || late.Status != "sent" {
		t.Errorf("twin after 60 s = %+v, want the first request's answer %s", late, done.ID)
	}
	if n := len(e.ses.sendsTo(req["to"].(string))); n != 1 {
		t.Errorf("%d SES sends, want 1", n)
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

func TestSendSender(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	ctx := context.Background()
	s := newSendWS(t, e, defaultSender())
	billing, err := e.store.Senders.AddSender(ctx, s.id, identity.Sender{Name: "Acme Billing", Email: "billing@" + sendDomain}, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Domains.AddDomain(ctx, s.id, "pending.test", nil); err != nil {
		t.Fatal(err)
	}
	unverified, err := e.store.Senders.AddSender(ctx, s.id, identity.Sender{Name: "Pending", Email: "news@pending.test"}, false)
	if err != nil {
		t.Fatal(err)
	}
	other := newSendWS(t, e, identity.Sender{Name: "Other", Email: "hi@other.test"})
	if _, err := e.store.Domains.AddDomain(ctx, other.id, "other.test", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Domains.SetDomainStatus(ctx, other.id, "other.test", identity.DomainVerified, nil); err != nil {
		t.Fatal(err)
	}
	noDefault := newSendWS(t, e, identity.Sender{})

	cases := map[string]struct {
		key      string
		extra    map[string]any
		wantFrom string // on success
		status   int
		code     string
		param    string
	}{
		"default sender":                     {s.key, nil, "hello@acme.test", 200, "", ""},
		"sender_id":                          {s.key, map[string]any{"sender_id": billing.ID}, "billing@acme.test", 200, "", ""},
		"from on a verified domain":          {s.key, map[string]any{"from": "Ops <ops@acme.test>"}, "ops@acme.test", 200, "", ""},
		"from, domain in capitals":           {s.key, map[string]any{"from": "ops@ACME.TEST"}, "ops@ACME.TEST", 200, "", ""},
		"sender_id wins over from":           {s.key, map[string]any{"sender_id": billing.ID, "from": "x@pending.test"}, "billing@acme.test", 200, "", ""},
		"sender_id on unverified domain":     {s.key, map[string]any{"sender_id": unverified.ID}, "", 403, "sender_not_verified", "sender_id"},
		"from on unverified domain":          {s.key, map[string]any{"from": "news@pending.test"}, "", 403, "sender_not_verified", "from"},
		"from on another workspace's domain": {s.key, map[string]any{"from": "hi@other.test"}, "", 403, "sender_not_verified", "from"},
		"from on an unknown domain":          {s.key, map[string]any{"from": "a@nowhere.test"}, "", 403, "sender_not_verified", "from"},
		"sender_id of another workspace":     {s.key, map[string]any{"sender_id": other.sender.ID}, "", 404, "sender_not_found", "sender_id"},
		"unknown sender_id":                  {s.key, map[string]any{"sender_id": uuid.NewString()}, "", 404, "sender_not_found", "sender_id"},
		"no sender at all":                   {noDefault.key, nil, "", 400, "missing_field", "from"},
		"from, not an address":               {s.key, map[string]any{"from": "not an address"}, "", 400, "invalid_field", "from"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			req := msg("sender", tc.extra)
			r := e.postTo(t, e.url, tc.key, "/api/v1/send", req)
			sends := e.ses.sendsTo(req["to"].(string))
			if tc.code != "" {
				r.wantError(t, tc.status, tc.code, tc.param)
				if len(sends) != 0 {
					t.Error("refused send reached SES")
				}
				return
			}
			r.sent(t, http.StatusOK).want(t, true, "sent")
			if len(sends) != 1 {
				t.Fatalf("%d SES sends, want 1", len(sends))
			}
			m := parseRaw(t, sends[0].Raw)
			if got := addresses(t, m.Header, "From"); len(got) != 1 || !strings.EqualFold(got[0], tc.wantFrom) {
				t.Errorf("From = %v, want %s", got, tc.wantFrom)
			}
			if !strings.EqualFold(sends[0].From, tc.wantFrom) {
				t.Errorf("envelope from = %s, want %s", sends[0].From, tc.wantFrom)
			}
		})
	}
	if n := len(e.emailIDs(t, noDefault.key)); n != 0 {
		t.Errorf("workspace without a sender stored %d emails", n)
	}
}

func TestSendReplyTo(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	ctx := context.Background()
	s := newSendWS(t, e, identity.Sender{Name: "Acme", Email: "hello@acme.test", ReplyTo: []string{"support@acme.test"}})
	billing, err := e.store.Senders.AddSender(ctx, s.id, identity.Sender{Name: "Billing", Email: "billing@acme.test", ReplyTo: []string{"billing-replies@acme.test", "ar@acme.test"}}, false)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := e.store.Senders.AddSender(ctx, s.id, identity.Sender{Name: "News", Email: "news@acme.test"}, false)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		extra map[string]any
		want  []string
	}{
		"default sender's reply_to":     {nil, []string{"support@acme.test"}},
		"request reply_to, a string":    {map[string]any{"reply_to": "r1@example.com"}, []string{"r1@example.com"}},
		"request reply_to, an array":    {map[string]any{"reply_to": []string{"r1@example.com", "R Two <r2@example.com>"}}, []string{"r1@example.com", "r2@example.com"}},
		"sender_id's reply_to":          {map[string]any{"sender_id": billing.ID}, []string{"billing-replies@acme.test", "ar@acme.test"}},
		"request overrides sender_id's": {map[string]any{"sender_id": billing.ID, "reply_to": "r1@example.com"}, []string{"r1@example.com"}},
		"sender without reply_to: none": {map[string]any{"sender_id": plain.ID}, nil},
		"from address: none":            {map[string]any{"from": "ops@acme.test"}, nil},
		"from address with request's":   {map[string]any{"from": "ops@acme.test", "reply_to": []string{"r1@example.com"}}, []string{"r1@example.com"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			req := msg("reply", tc.extra)
			e.postTo(t, e.url, s.key, "/api/v1/send", req).sent(t, http.StatusOK).want(t, true, "sent")
			sends := e.ses.sendsTo(req["to"].(string))
			if len(sends) != 1 {
				t.Fatalf("%d SES sends, want 1", len(sends))
			}
			m := parseRaw(t, sends[0].Raw)
			got := addresses(t, m.Header, "Reply-To")
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("Reply-To = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSendBadInput(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	other := newSendWS(t, e, defaultSender())
	if _, err := e.store.Domains.AddDomain(context.Background(), s.id, "pending.test", nil); err != nil {
		t.Fatal(err)
	}
	readOnly := s.scopedKey(t, e, apikey.EmailsRead)
	files := fileServer(t, e.url+"/api/v1/emails")
	// Production's fetcher is the env's own; these two also reach 127.0.0.2.
	local := e.withFileServerFetcher(t, 10*time.Second)
	impatient := e.withFileServerFetcher(t, 300*time.Millisecond)

	usedKey := uuid.NewString()
	used := msg("used", nil)
	e.post(s.key, "/api/v1/send", used, "Idempotency-Key", usedKey).sent(t, http.StatusOK)

	inline := func(name, content string) map[string]any { return map[string]any{"filename": name, "content": content} }
	byURL := func(u string) []any { return []any{map[string]any{"filename": "file.pdf", "url": u}} }
	var many []any
	for i := range 21 {
		many = append(many, inline(fmt.Sprintf("f%d.txt", i), "aGk="))
	}
	with := func(extra map[string]any) map[string]any { return msg("bad", extra) }

	cases := map[string]struct {
		server  string // "" for the dev server (production fetcher)
		key     string // "" for the workspace's full-access live key
		body    any
		hdr     []string
		status  int
		code    string
		param   string
		message string // part of the error message, when it matters
	}{
		"missing to":                          {body: with(map[string]any{"to": nil}), status: 400, code: "missing_field", param: "to"},
		"missing subject":                     {body: with(map[string]any{"subject": nil}), status: 400, code: "missing_field", param: "subject"},
		"missing html":                        {body: with(map[string]any{"html": nil}), status: 400, code: "missing_field", param: "html"},
		"blank html":                          {body: with(map[string]any{"html": "  \n"}), status: 400, code: "missing_field", param: "html"},
		"to not an address":                   {body: with(map[string]any{"to": "not-an-address"}), status: 400, code: "invalid_field", param: "to"},
		"to with two addresses":               {body: with(map[string]any{"to": "a@x.com, b@y.com"}), status: 400, code: "invalid_field", param: "to"},
		"to as an array":                      {body: with(map[string]any{"to": []string{"a@x.com"}}), status: 400, code: "invalid_field", param: "to"},
		"to with CRLF in the name":            {body: with(map[string]any{"to": "Ann\r\nBcc: x@y.com <ann@example.com>"}), status: 400, code: "invalid_field", param: "to"},
		"subject with CRLF":                   {body: with(map[string]any{"subject": "Hi\r\nBcc: x@y.com"}), status: 400, code: "invalid_field", param: "subject"},
		"subject with LF":                     {body: with(map[string]any{"subject": "Hi\nthere"}), status: 400, code: "invalid_field", param: "subject"},
		"reply_to, one bad of three":          {body: with(map[string]any{"reply_to": []string{"a@x.com", "nope", "c@y.com"}}), status: 400, code: "invalid_field", param: "reply_to"},
		"reply_to a number":                   {body: with(map[string]any{"reply_to": 5}), status: 400, code: "invalid_field", param: "reply_to"},
		"21 attachments":                      {body: with(map[string]any{"attachments": many}), status: 400, code: "invalid_field", param: "attachments"},
		"content and url":                     {body: with(map[string]any{"attachments": []any{map[string]any{"filename": "a.pdf", "content": "aGk=", "url": "https://example.com/a.pdf"}}}), status: 400, code: "invalid_field", param: "attachments"},
		"neither content nor url":             {body: with(map[string]any{"attachments": []any{map[string]any{"filename": "a.pdf"}}}), status: 400, code: "invalid_field", param: "attachments"},
		"bad base64":                          {body: with(map[string]any{"attachments": []any{inline("a.pdf", "!!!not base64!!!")}}), status: 400, code: "invalid_field", param: "attachments"},
		"inline attachment over 3 MB":         {body: with(map[string]any{"attachments": []any{inline("big.pdf", strings.Repeat("A", 4<<20+8))}}), status: 400, code: "invalid_field", param: "attachments", message: "3 MB"},
		"request body over 5 MB":              {body: with(map[string]any{"html": "<p>" + strings.Repeat("x", 5<<20) + "</p>"}), status: 413, code: "message_too_large", param: "", message: "5 MB"},
		"subject over 998 characters":         {body: with(map[string]any{"subject": strings.Repeat("s", 999)}), status: 400, code: "invalid_field", param: "subject"},
		"filename with a path":                {body: with(map[string]any{"attachments": []any{inline("../etc/passwd.txt", "aGk=")}}), status: 400, code: "invalid_field", param: "attachments"},
		".exe attachment":                     {body: with(map[string]any{"attachments": []any{inline("setup.exe", "aGk=")}}), status: 400, code: "invalid_field", param: "attachments", message: ".exe"},
		"url to 127.0.0.1":                    {body: with(map[string]any{"attachments": byURL("http://127.0.0.1:1/a.pdf")}), status: 400, code: "invalid_field", param: "attachments", message: "not publicly reachable"},
		"url to the metadata service":         {body: with(map[string]any{"attachments": byURL("http://169.254.169.254/latest/meta-data/")}), status: 400, code: "invalid_field", param: "attachments", message: "not publicly reachable"},
		"url to 10.0.0.1":                     {body: with(map[string]any{"attachments": byURL("http://10.0.0.1/a.pdf")}), status: 400, code: "invalid_field", param: "attachments", message: "not publicly reachable"},
		"url to IPv4-mapped loopback":         {body: with(map[string]any{"attachments": byURL("http://[::ffff:127.0.0.1]/a.pdf")}), status: 400, code: "invalid_field", param: "attachments", message: "not publicly reachable"},
		"url host resolving to loopback":      {body: with(map[string]any{"attachments": byURL("http://localhost:1/x")}), status: 400, code: "invalid_field", param: "attachments", message: "not publicly reachable"},
		"allowed server, guard of production": {body: with(map[string]any{"attachments": byURL(files + "/big.pdf")}), status: 400, code: "invalid_field", param: "attachments", message: "not publicly reachable"},
		"url answering 404":                   {server: local, body: with(map[string]any{"attachments": byURL(files + "/missing.pdf")}), status: 400, code: "invalid_field", param: "attachments", message: "404"},
		"url too slow":                        {server: impatient, body: with(map[string]any{"attachments": byURL(files + "/slow.pdf")}), status: 400, code: "invalid_field", param: "attachments", message: "timed out"},
		"redirect to 127.0.0.1":               {server: local, body: with(map[string]any{"attachments": byURL(files + "/redirect.pdf")}), status: 400, code: "invalid_field", param: "attachments", message: "not publicly reachable"},
		"message over 20 MB encoded": {server: local, body: with(map[string]any{"attachments": []any{
			map[string]any{"filename": "a.pdf", "url": files + "/big.pdf"},
			map[string]any{"filename": "b.pdf", "url": files + "/big.pdf?2"},
		}}), status: 413, code: "message_too_large", param: "", message: "20 MB"},
		"malformed JSON":                 {body: `{"to": "a@x.com", "subject": `, status: 400, code: "invalid_field", param: "body"},
		"two JSON objects":               {body: `{"to":"a@x.com","subject":"s","html":"<p>x</p>"}{}`, status: 400, code: "invalid_field", param: "body"},
		"wrong Content-Type":             {body: with(nil), hdr: []string{"Content-Type", "text/plain"}, status: 400, code: "invalid_field", param: "Content-Type"},
		"unknown field":                  {body: with(map[string]any{"bcc": "x@y.com"}), status: 400, code: "invalid_field", param: "bcc"},
		"tracking sometimes":             {body: with(map[string]any{"tracking": "sometimes"}), status: 400, code: "invalid_field", param: "tracking"},
		"tracking off, not provisioned":  {body: with(map[string]any{"tracking": "off"}), status: 503, code: "service_unavailable", param: "tracking"},
		"sender_id of another workspace": {body: with(map[string]any{"sender_id": other.sender.ID}), status: 404, code: "sender_not_found", param: "sender_id"},
		"from on an unverified domain":   {body: with(map[string]any{"from": "a@pending.test"}), status: 403, code: "sender_not_verified", param: "from"},
		"Idempotency-Key, changed body":  {body: map[string]any{"to": used["to"], "subject": used["subject"], "html": "<p>changed</p>"}, hdr: []string{"Idempotency-Key", usedKey}, status: 409, code: "idempotency_conflict", param: "Idempotency-Key"},
		"Idempotency-Key with a space":   {body: with(nil), hdr: []string{"Idempotency-Key", "a b"}, status: 400, code: "invalid_field", param: "Idempotency-Key"},
		"Idempotency-Key of 256 chars":   {body: with(nil), hdr: []string{"Idempotency-Key", strings.Repeat("k", 256)}, status: 400, code: "invalid_field", param: "Idempotency-Key", message: "255"},
		"key with only emails:read":      {key: readOnly, body: with(nil), status: 403, code: "insufficient_scope", param: "", message: "email:send"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			base, key := tc.server, tc.key
			if base == "" {
				base = e.url
			}
			if key == "" {
				key = s.key
			}
			before, sends := len(e.emailIDs(t, s.key)), len(e.ses.Sends())
			r := e.bad().postTo(t, base, key, "/api/v1/send", tc.body, tc.hdr...)
			r.wantError(t, tc.status, tc.code, tc.param)
			if tc.message != "" && !strings.Contains(string(r.body), tc.message) {
				t.Errorf("message should mention %q: %s", tc.message, r.body)
			}
			if after := len(e.emailIDs(t, s.key)); after != before {
				t.Errorf("%d emails stored by a refused send", after-before)
			}
			if got := len(e.ses.Sends()) - sends; got != 0 {
				t.Errorf("%d SES sends by a refused send", got)
			}
		})
	}
}

func TestSendLargeButSendable(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	files := fileServer(t, e.url)
	local := e.withFileServerFetcher(t, 10*time.Second)
	data := bytes.Repeat([]byte("0123456789abcdef"), (3<<20)/32) // 1.5 MB
	cases := map[string]struct {
		server     string
		attachment map[string]any
		minSize    int
		code       string
	}{
		"inline attachment over 1 MB": {
			server:     e.url,
			attachment: map[string]any{"filename": "report.pdf", "content": base64.StdEncoding.EncodeToString(data), "content_type": "application/pdf"},
			minSize:    len(data), code: "large_attachment",
		},
		"encoded message over 10 MB": {
			server:     local,
			attachment: map[string]any{"filename": "scan.pdf", "url": files + "/big.pdf"}, // 8 MB, ~10.9 MB in base64
			minSize:    10 << 20, code: "large_message",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			req := msg("large", map[string]any{"attachments": []any{tc.attachment}})
			b := e.postTo(t, tc.server, s.key, "/api/v1/send", req).sent(t, http.StatusOK)
			b.want(t, true, "sent")
			if len(b.Warnings) != 1 || b.Warnings[0].Code != tc.code || !strings.Contains(strings.ToLower(b.Warnings[0].Message), "host") {
				t.Errorf("warnings = %+v, want one %s with advice to host the file", b.Warnings, tc.code)
			}
			sends := e.ses.sendsTo(req["to"].(string))
			if len(sends) != 1 || len(sends[0].Raw) < tc.minSize {
				t.Fatalf("SES sends %d, want one carrying the attachment", len(sends))
			}
		})
	}
}

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
	}
	wantErr := map[int][2]string{
		1: {"missing_field", "emails[1].to"},
		2: {"invalid_field", "emails[2].reply_to"},
		3: {"invalid_field", "emails[3]"},
		4: {"invalid_field", "emails[4].bogus"},
		6: {"invalid_field", "emails[6].attachments"},
		7: {"invalid_field", "emails[7].to"},
	}
	// Items 1 to 7 but 5 are refused on purpose.
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

type domainList struct {
	Data []struct {
		ID         string            `json:"id"`
		Name       string            `json:"name"`
		Status     string            `json:"status"`
		Records    []json.RawMessage `json:"records"`
		CreatedAt  string            `json:"created_at"`
		VerifiedAt *string           `json:"verified_at"`
	} `json:"data"`
	HasMore    bool    `json:"has_more"`
	NextCursor *string `json:"next_cursor"`
}

func TestListDomains(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	ctx := context.Background()
	wsID, key := e.workspace(apikey.Live, apikey.DomainsRead)
	otherWS, otherKey := e.workspace(apikey.Live, apikey.DomainsRead)
	_, sendOnly := e.workspace(apikey.Live, apikey.EmailSend)
	for _, name := range []string{"a.test", "b.test", "c.test"} {
		if _, err := e.store.Domains.AddDomain(ctx, wsID, name, []identity.DNSRecord{{Type: "CNAME", Name: "x._domainkey." + name, Value: "x.dkim.amazonses.com"}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.store.Domains.SetDomainStatus(ctx, wsID, "b.test", identity.DomainVerified, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Domains.AddDomain(ctx, otherWS, "theirs.test", nil); err != nil {
		t.Fatal(err)
	}
	list := func(t *testing.T, key, query string) domainList {
		t.Helper()
		r := e.get(bearer(key), "/api/v1/domains"+query)
		if r.status != http.StatusOK {
			t.Fatalf("list domains%s: %d %s", query, r.status, r.body)
		}
		var b domainList
		if err := json.Unmarshal(r.body, &b); err != nil {
			t.Fatal(err)
		}
		return b
	}

	all := list(t, key, "")
	var got []string
	for _, d := range all.Data {
		got = append(got, d.Name+":"+d.Status)
		if _, err := uuid.Parse(d.ID); err != nil || d.CreatedAt == "" || len(d.Records) != 1 {
			t.Errorf("domain %+v", d)
		}
		if (d.Status == "verified") != (d.VerifiedAt != nil) {
			t.Errorf("domain %s: status %s, verified_at %v", d.Name, d.Status, deref(d.VerifiedAt))
		}
	}
	if strings.Join(got, ",") != "c.test:pending,b.test:verified,a.test:pending" || all.HasMore || all.NextCursor != nil {
		t.Errorf("domains = %v has_more %v, want newest first, one page", got, all.HasMore)
	}

	var paged []string
	query := "?limit=1"
	for page := 0; ; page++ {
		b := list(t, key, query)
		if len(b.Data) != 1 {
			t.Fatalf("page %d has %d domains", page, len(b.Data))
		}
		paged = append(paged, b.Data[0].Name)
		if !b.HasMore {
			if b.NextCursor != nil {
				t.Error("last page has a next_cursor")
			}
			break
		}
		if b.NextCursor == nil || page > 3 {
			t.Fatalf("page %d: has_more without a cursor", page)
		}
		query = "?limit=1&cursor=" + *b.NextCursor
	}
	if strings.Join(paged, ",") != "c.test,b.test,a.test" {
		t.Errorf("paged = %v", paged)
	}

	if b := list(t, otherKey, ""); len(b.Data) != 1 || b.Data[0].Name != "theirs.test" {
		t.Errorf("other workspace sees %+v, want only its own domain", b.Data)
	}
	r := e.get(bearer(sendOnly), "/api/v1/domains")
	r.wantError(t, http.StatusForbidden, "insufficient_scope", "")
	if !strings.Contains(string(r.body), "domains:read") {
		t.Errorf("message should name domains:read: %s", r.body)
	}
	cursor := *list(t, key, "?limit=1").NextCursor
	e.get(bearer(otherKey), "/api/v1/domains?cursor="+cursor).wantError(t, http.StatusBadRequest, "invalid_field", "cursor")
	e.get(bearer(key), "/api/v1/domains?cursor=garbage").wantError(t, http.StatusBadRequest, "invalid_field", "cursor")
	e.bad().get(bearer(key), "/api/v1/domains?limit=0").wantError(t, http.StatusBadRequest, "invalid_field", "limit")
}
