package devstack_test

import (
	"html"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/emulatortest/inbox"
	"github.com/sesame-mail/sesame/internal/identity"
)

// A draft whose subject or html has a merge tag the language cannot read
// is refused on that field, naming where, and nothing is drafted.
func TestSendBulkRefusesMergeTagsItCannotRead(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	b := newBulkWS(t, e)
	b.vipContacts(t, e, 1)
	seg := b.segment(t, e, nil)
	for name, tc := range map[string]struct {
		subject, html, param, says string
	}{
		"unknown in the subject":    {`Hi {{ contact.nickname }}`, `<p>x</p>`, "subject", `line 1, column 4: unknown variable "contact.nickname"`},
		"an event in a campaign":    {`Hi`, `<p>{{ event.total | "0" }}</p>`, "html", `line 1, column 4: unknown variable "event.total"`},
		"unclosed in the html":      {`Hi`, "<p>\n  Dear {{ contact.first_name</p>", "html", "line 2, column 8"},
		"fallback without quotes":   {`Hi`, `<p>{{ contact.first_name | there }}</p>`, "html", "a fallback is text in double quotes"},
		"property key with a space": {`{{ contact.properties.first name | "x" }}`, `<p>x</p>`, "subject", "unknown variable"},
	} {
		t.Run(name, func(t *testing.T) {
			r := e.bad().post(b.bulkKey, "/api/v1/send/bulk", map[string]any{"segment_id": seg, "subject": tc.subject, "html": tc.html})
			r.wantError(t, http.StatusBadRequest, "invalid_field", tc.param)
			var body errorBody
			r.decode(t, http.StatusBadRequest, &body)
			if !strings.Contains(body.Error.Message, tc.says) {
				t.Errorf("message %q does not say %q", body.Error.Message, tc.says)
			}
		})
	}
	if l, _, _, err := e.store.Campaigns.ListCampaigns(t.Context(), b.id, "", "", 10); err != nil || len(l) != 0 {
		t.Errorf("refused drafts stored: %v, %v", l, err)
	}
}

// Each recipient of a campaign with merge tags gets the subject and html
// rendered for them (their name or the fallback, a property, their
// address), values escaped as text; the email's record shows the
// subject they got.
func TestCampaignMergeTagsReachEachRecipient(t *testing.T) {
	t.Parallel()
	e, sends := startCampaigns(t)
	b := newBulkWS(t, e)
	ann := e.createContact(t, b.bulkKey, map[string]any{"email": rcpt("ann"), "tags": []string{"vip"},
		"first_name": "Ann", "last_name": "<Lee>", "properties": map[string]any{"plan": "pro"}})
	anon := e.createContact(t, b.bulkKey, map[string]any{"email": rcpt("anon"), "tags": []string{"vip"}})
	var d draftBody
	e.post(b.bulkKey, "/api/v1/send/bulk", map[string]any{"segment_id": b.segment(t, e, nil),
		"subject": `Hi {{ contact.first_name | "there" }}`,
		"html":    `<p>Dear {{ contact.first_name | "there" }} {{ contact.last_name }}, plan {{ contact.properties.plan | "free" }}, {{ contact.email }}</p>`,
	}).decode(t, http.StatusOK, &d)
	if _, err := e.approvals(e.deps.CampaignStarter).Approve(t.Context(), b.id, d.ApprovalID, nil); err != nil {
		t.Fatal(err)
	}
	drainSends(t, sends)
	for _, want := range []struct {
		to, subject, html string
	}{
		{ann.Email, "Hi Ann", "<p>Dear Ann &lt;Lee&gt;, plan pro, " + ann.Email + "</p>"},
		{anon.Email, "Hi there", "<p>Dear there , plan free, " + anon.Email + "</p>"},
	} {
		got := e.ses.sendsTo(want.to)
		if len(got) != 1 {
			t.Fatalf("%s: %d messages, want 1", want.to, len(got))
		}
		m := inbox.ParseStrict(t, got[0].Raw)
		subject, html := m.Subject, m.HTML
		if subject != want.subject || !strings.Contains(html, want.html) || strings.Contains(html, "{{") {
			t.Errorf("%s got subject %q and html %q; want %q and %q", want.to, subject, html, want.subject, want.html)
		}
		if !strings.Contains(html, "Springfield") {
			t.Errorf("%s: no footer", want.to)
		}
	}
	var list struct {
		Data []struct {
			Subject string `json:"subject"`
		} `json:"data"`
	}
	e.get(bearer(b.key), "/api/v1/emails?type=campaign").decode(t, http.StatusOK, &list)
	subjects := map[string]bool{}
	for _, em := range list.Data {
		subjects[em.Subject] = true
	}
	if len(list.Data) != 2 || !subjects["Hi Ann"] || !subjects["Hi there"] {
		t.Errorf("GET /emails lists subjects %v, want the rendered ones", subjects)
	}
}

// A name that cannot go in a header (a line break, NUL, tab) is refused
// where it enters, on its field, and nothing is written.
func TestContactNameWithControlCharactersRefused(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	b := newBulkWS(t, e)
	for name, tc := range map[string]struct {
		field, value string
	}{
		"CRLF in a first name": {"first_name", "Ann\r\nBcc: all@example.com"},
		"NUL in a last name":   {"last_name", "Lee\x00"},
		"tab in a first name":  {"first_name", "Ann\tLee"},
	} {
		t.Run(name, func(t *testing.T) {
			address := rcpt("ctl")
			e.bad().post(b.bulkKey, "/api/v1/contacts", map[string]any{"email": address, tc.field: tc.value}).
				wantError(t, http.StatusBadRequest, "invalid_field", tc.field)
			if _, err := e.store.Contacts.GetContactByEmail(t.Context(), b.id, address); err == nil {
				t.Errorf("the refused contact was stored")
			}
			c := e.createContact(t, b.bulkKey, map[string]any{"email": address, "first_name": "Ann"})
			r := e.bad().call(b.bulkKey, http.MethodPatch, "/api/v1/contacts/"+c.ID, map[string]any{tc.field: tc.value})
			r.wantError(t, http.StatusBadRequest, "invalid_field", tc.field)
			if got, _ := e.store.Contacts.GetContact(t.Context(), b.id, c.ID); got.FirstName == nil || *got.FirstName != "Ann" || got.LastName != nil {
				t.Errorf("the refused PATCH changed the contact: %+v", got)
			}
		})
	}
}

// A send step whose email cannot go (its sender's domain is no longer
// verified) ends the run as failed, with the reason, as the owner's
// service reads it: never completed, and the later step never runs.
func TestAutomationSendStepFailureFailsTheRun(t *testing.T) {
	t.Parallel()
	p := startAutomationPipeline(t, pipelineStart)
	b := newBulkWS(t, p.env)
	c := p.createContact(t, b.bulkKey, map[string]any{"email": rcpt("fail")})
	m := startRun(t, p.env, b, c.ID, apikey.Live, nil,
		automation.Step{Type: automation.StepSend, Subject: "Hello", HTML: "<p>Hello</p>"},
		automation.Step{Type: automation.StepTag, Add: []string{"greeted"}})
	domain := b.sender.Email[strings.Index(b.sender.Email, "@")+1:]
	if _, err := p.store.Domains.SetDomainStatus(t.Context(), b.id, domain, identity.DomainFailed, nil); err != nil {
		t.Fatal(err)
	}
	drainAutomations(t, p.runner)
	r, err := (&automation.Runs{Store: p.store.AutomationRuns}).Run(t.Context(), b.id, m.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != automation.RunFailed || !strings.Contains(r.Reason, "not on a verified domain") || r.EndedAt == nil || r.Step != 0 {
		t.Errorf("run %+v, want failed at step 0 with the reason", r)
	}
	if len(r.Log) != 1 || r.Log[0].Outcome != "failed" || r.Log[0].Detail != r.Reason {
		t.Errorf("log %+v", r.Log)
	}
	if got := p.ses.sendsTo(c.Email); len(got) != 0 {
		t.Errorf("%d sends, want none", len(got))
	}
	if ct, _ := p.store.Contacts.GetContact(t.Context(), b.id, c.ID); len(ct.Tags) != 0 {
		t.Errorf("the step after the failure ran: tags %v", ct.Tags)
	}
	// The dashboard's run page says it too.
	address := "owner-" + uuid.NewString()[:8] + "@example.com"
	if _, err := (&account.Owners{Store: p.store.Owners}).Add(t.Context(), b.id, address); err != nil {
		t.Fatal(err)
	}
	client, _ := p.signIn(t, address)
	page := p.dashDo(t, client, "/dashboard/automations/"+m.AutomationID+"/runs/"+m.RunID, nil)
	if want := `id="run-status">failed (` + html.EscapeString(r.Reason) + `)`; page.status != http.StatusOK || !strings.Contains(page.body, want) {
		t.Errorf("run page: %d, lacks %q:\n%s", page.status, want, page.body)
	}
}
