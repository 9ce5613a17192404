package devstack_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/workspace"
)

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
