package devstack_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/identity"
)

func TestSendSender(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	ctx := t.Context()
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
		"from, name on its own domain":       {s.key, map[string]any{"from": `"help@acme.test" <ops@acme.test>`}, "ops@acme.test", 200, "", ""},
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
	ctx := t.Context()
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

// The sender refusals name the fix: no sender at all says how to set a
// default, and a sender off the verified domains lists them.
func TestSendSenderErrorsNameTheFix(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	noDefault := newSendWS(t, e, identity.Sender{})
	_, none := e.workspace(apikey.Live) // no verified domain at all
	cases := map[string]struct {
		key         string
		extra       map[string]any
		status      int
		code, param string
		message     string
	}{
		"no sender at all": {noDefault.key, nil, 400, "missing_field", "from",
			"from is required: this workspace has no default sender; give from or sender_id, or set a default with `sesame senders add --default`"},
		"from off the verified domains": {s.key, map[string]any{"from": "news@pending.test"}, 403, "sender_not_verified", "from",
			"news@pending.test is not on a verified domain of this workspace (its verified domains: " + sendDomain + ")"},
		"a workspace without domains": {none, map[string]any{"from": "a@nowhere.test"}, 403, "sender_not_verified", "from",
			"a@nowhere.test is not on a verified domain of this workspace (it has none yet: add one with `sesame domains add`)"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := e.post(tc.key, "/api/v1/send", msg("fix", tc.extra))
			r.wantError(t, tc.status, tc.code, tc.param)
			var b errorBody
			r.decode(t, tc.status, &b)
			if b.Error.Message != tc.message {
				t.Errorf("message = %q\nwant      %q", b.Error.Message, tc.message)
			}
		})
	}
}
