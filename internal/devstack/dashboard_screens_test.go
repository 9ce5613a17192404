package devstack_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
)

// ownedBulk is a bulk workspace with vip contacts, two drafts to them and
// an owner signed in over HTTP.
type ownedBulk struct {
	*bulkWS
	owner          string
	c              *http.Client
	csrf           string
	first, second  string
	recipientCount int
}

func newOwnedBulk(t *testing.T, e *env, contacts int) *ownedBulk {
	t.Helper()
	b := newBulkWS(t, e)
	address := "owner-" + uuid.NewString()[:8] + "@example.com"
	if _, err := (&account.Owners{Store: e.store.Owners}).Add(t.Context(), b.id, address); err != nil {
		t.Fatal(err)
	}
	b.vipContacts(t, e, contacts)
	seg := b.segment(t, e, nil)
	o := &ownedBulk{bulkWS: b, owner: address}
	o.first, o.second = b.draft(t, e, seg).ApprovalID, b.draft(t, e, seg).ApprovalID
	o.recipientCount = contacts
	o.c, o.csrf = e.signIn(t, address)
	return o
}

// The approvals screen lists both drafts; one's page shows its recipient
// count, a sample, the verdict and the sandboxed preview; approving it
// sends it (the sends queue drained) and the campaign page shows the
// progress; discarding the other leaves it unsent; an edit voids nothing
// but returns the draft to approval; each action is in the audit log.
func TestDashboardApprovalsOverHTTP(t *testing.T) {
	e := startDev(t)
	o := newOwnedBulk(t, e, 3)
	list := e.dashDo(t, o.c, "/dashboard/approvals", nil)
	if list.status != http.StatusOK || !strings.Contains(list.body, o.first) || !strings.Contains(list.body, o.second) {
		t.Fatalf("approvals: %d %s", list.status, list.body)
	}
	page := e.dashDo(t, o.c, "/dashboard/approvals/"+o.first, nil)
	for _, want := range []string{`id="recipients">3 `, `id="verdict"`, `<iframe class="preview" sandbox="" title="Email preview" src="/dashboard/preview/approvals/` + o.first, "@example.com</li>"} {
		if !strings.Contains(page.body, want) {
			t.Errorf("approval page lacks %q", want)
		}
	}
	if strings.Contains(page.body, "<p>What changed this month.</p>") {
		t.Error("the email HTML is inlined into the page")
	}
	edited := e.dashDo(t, o.c, "/dashboard/approvals/"+o.first+"/edit", url.Values{"csrf": {o.csrf}, "subject": {""}, "html": {"<p>x</p>"}})
	if edited.status != http.StatusBadRequest || !strings.Contains(edited.body, `role="alert"`) {
		t.Errorf("an edit with no subject: %d", edited.status)
	}
	edited = e.dashDo(t, o.c, "/dashboard/approvals/"+o.first+"/edit", url.Values{"csrf": {o.csrf}, "subject": {"December news"}, "html": {"<p>What changed this month.</p>"}})
	if edited.status != http.StatusSeeOther {
		t.Fatalf("edit: %d %s", edited.status, edited.body)
	}
	approved := e.dashDo(t, o.c, "/dashboard/approvals/"+o.first+"/approve", url.Values{"csrf": {o.csrf}, "at": {""}})
	if approved.status != http.StatusSeeOther || approved.header.Get("Location") != "/dashboard/campaigns/"+o.first {
		t.Fatalf("approve: %d %s", approved.status, approved.body)
	}
	drainSends(t, e.queues.Poller(t, queue.Sends.Name, api.Consumers(e.deps)[routes.CampaignSender]))
	c, err := e.store.Campaigns.GetCampaign(t.Context(), o.id, o.first)
	if err != nil || c.Status != campaign.StatusSent || c.SentCount != 3 || c.ApprovedBy != "dashboard:"+o.owner || c.Subject != "December news" {
		t.Fatalf("approved campaign: %+v %v", c, err)
	}
	if n := len(emulatedTo(e, "December news")); n != 3 {
		t.Errorf("%d campaign emails went out, want 3", n)
	}
	progress := e.dashDo(t, o.c, "/dashboard/campaigns/"+o.first, nil)
	for _, want := range []string{`id="sent">3<`, `id="remaining">0<`, `id="status">sent`} {
		if !strings.Contains(progress.body, want) {
			t.Errorf("campaign page lacks %q", want)
		}
	}
	if p := e.dashDo(t, o.c, "/dashboard/campaigns/"+o.first+"/cancel", url.Values{"csrf": {o.csrf}}); p.status != http.StatusBadRequest {
		t.Errorf("cancel a sent campaign: %d, want 400", p.status)
	}
	if p := e.dashDo(t, o.c, "/dashboard/approvals/"+o.second+"/discard", url.Values{"csrf": {o.csrf}}); p.status != http.StatusSeeOther {
		t.Fatalf("discard: %d %s", p.status, p.body)
	}
	if c, _ := e.store.Campaigns.GetCampaign(t.Context(), o.id, o.second); c.Status != campaign.StatusDiscarded || c.SentCount != 0 {
		t.Errorf("discarded campaign: %+v", c)
	}
	if p := e.dashDo(t, o.c, "/dashboard/approvals", nil); !strings.Contains(p.body, "No campaign waits for approval.") {
		t.Errorf("approvals after both: %s", p.body)
	}
	all := e.dashDo(t, o.c, "/dashboard/campaigns", nil)
	if !strings.Contains(all.body, o.first) || !strings.Contains(all.body, o.second) {
		t.Error("the campaigns list lacks a campaign")
	}
	wantAudit(t, e, o.id, account.ActionDiscarded, account.ActionApproved, account.ActionEdited, account.ActionSignIn)
}

// A draft cancelled from its campaign page is never sent.
func TestDashboardCancelCampaign(t *testing.T) {
	e := startDev(t)
	o := newOwnedBulk(t, e, 1)
	if p := e.dashDo(t, o.c, "/dashboard/campaigns/"+o.first+"/cancel", url.Values{"csrf": {o.csrf}}); p.status != http.StatusSeeOther {
		t.Fatalf("cancel: %d %s", p.status, p.body)
	}
	if c, _ := e.store.Campaigns.GetCampaign(t.Context(), o.id, o.first); c.Status != campaign.StatusCancelled {
		t.Errorf("cancelled campaign: %s", c.Status)
	}
	if p := e.dashDo(t, o.c, "/dashboard/approvals/"+o.first+"/approve", url.Values{"csrf": {o.csrf}}); p.status != http.StatusBadRequest || !strings.Contains(p.body, "cancelled") {
		t.Errorf("approve a cancelled campaign: %d", p.status)
	}
	wantAudit(t, e, o.id, account.ActionCancelled, account.ActionSignIn)
}

// A held email is listed with why, previewed in the sandboxed frame, and
// cleared: the review sends it. Another workspace's ids are 404 on every
// screen of approvals, held and campaigns.
func TestDashboardHeldAndOtherWorkspace(t *testing.T) {
	e := startDev(t)
	o := newOwnedBulk(t, e, 1)
	held := e.post(o.key, "/api/v1/send", msg("held", map[string]any{"html": "<aside><p>A new layout</p></aside>"})).sent(t, http.StatusAccepted)
	list := e.dashDo(t, o.c, "/dashboard/held", nil)
	if !strings.Contains(list.body, held.ID) || !strings.Contains(list.body, "new template") {
		t.Fatalf("held list: %s", list.body)
	}
	page := e.dashDo(t, o.c, "/dashboard/held/"+held.ID, nil)
	if !strings.Contains(page.body, `src="/dashboard/preview/held/`+held.ID) || strings.Contains(page.body, "<aside>") {
		t.Errorf("held page: %s", page.body)
	}
	if p := e.dashDo(t, o.c, "/dashboard/preview/held/"+held.ID, nil); !strings.Contains(p.body, "<aside>") || !strings.HasPrefix(p.header.Get("Content-Security-Policy"), "sandbox;") {
		t.Errorf("held preview: %d %q", p.status, p.header.Get("Content-Security-Policy"))
	}
	if p := e.dashDo(t, o.c, "/dashboard/held/"+held.ID+"/clear", url.Values{"csrf": {o.csrf}}); p.status != http.StatusSeeOther {
		t.Fatalf("clear: %d %s", p.status, p.body)
	}
	e.reviewHeld(t, 1)
	e.wantEmail(t, o.key, held.ID, "sent", "")
	if p := e.dashDo(t, o.c, "/dashboard/held", nil); !strings.Contains(p.body, "No email is held.") {
		t.Errorf("held list after the clear: %s", p.body)
	}
	wantAudit(t, e, o.id, account.ActionHeldCleared, account.ActionSignIn)

	other := newOwnedBulk(t, e, 1)
	otherHeld := e.post(other.key, "/api/v1/send", msg("held", map[string]any{"html": "<section><p>B</p></section>"})).sent(t, http.StatusAccepted)
	for _, tc := range []struct {
		path string
		form url.Values
	}{
		{"/dashboard/approvals/" + other.first, nil},
		{"/dashboard/approvals/" + other.first + "/approve", url.Values{"csrf": {o.csrf}}},
		{"/dashboard/approvals/" + other.first + "/edit", url.Values{"csrf": {o.csrf}, "subject": {"x"}, "html": {"<p>x</p>"}}},
		{"/dashboard/approvals/" + other.first + "/discard", url.Values{"csrf": {o.csrf}}},
		{"/dashboard/campaigns/" + other.first, nil},
		{"/dashboard/campaigns/" + other.first + "/cancel", url.Values{"csrf": {o.csrf}}},
		{"/dashboard/held/" + otherHeld.ID, nil},
		{"/dashboard/held/" + otherHeld.ID + "/clear", url.Values{"csrf": {o.csrf}}},
		{"/dashboard/held/" + otherHeld.ID + "/deny", url.Values{"csrf": {o.csrf}}},
		{"/dashboard/preview/held/" + otherHeld.ID, nil},
	} {
		if p := e.dashDo(t, o.c, tc.path, tc.form); p.status != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", tc.path, p.status)
		}
	}
	if c, _ := e.store.Campaigns.GetCampaign(t.Context(), other.id, other.first); c.Status != campaign.StatusPendingApproval || c.Subject != "November news" {
		t.Errorf("workspace B's draft changed: %+v", c)
	}
	e.wantEmail(t, other.key, otherHeld.ID, "held", "")
}

// Pages without a session go to sign-in; forms without the CSRF token are
// refused.
func TestDashboardScreensNeedSessionAndToken(t *testing.T) {
	e := startDev(t)
	o := newOwnedBulk(t, e, 1)
	for _, path := range []string{"/dashboard/approvals", "/dashboard/approvals/" + o.first, "/dashboard/held", "/dashboard/campaigns", "/dashboard/campaigns/" + o.first} {
		if p := e.dashDo(t, noRedirects(), path, nil); p.status != http.StatusSeeOther || p.header.Get("Location") != "/dashboard/sign-in" {
			t.Errorf("GET %s without a session: %d", path, p.status)
		}
	}
	for _, path := range []string{"/approve", "/discard", "/edit"} {
		if p := e.dashDo(t, o.c, "/dashboard/approvals/"+o.first+path, url.Values{}); p.status != http.StatusForbidden {
			t.Errorf("POST %s without the token: %d, want 403", path, p.status)
		}
	}
	if p := e.dashDo(t, o.c, "/dashboard/campaigns/"+o.first+"/cancel", url.Values{}); p.status != http.StatusForbidden {
		t.Errorf("cancel without the token: %d", p.status)
	}
	if c, _ := e.store.Campaigns.GetCampaign(t.Context(), o.id, o.first); c.Status != campaign.StatusPendingApproval {
		t.Errorf("refused forms changed the draft: %s", c.Status)
	}
	if p := e.dashDo(t, o.c, "/dashboard/held", nil); !strings.Contains(p.body, "No email is held.") {
		t.Error("empty held list")
	}
}

// wantAudit checks the workspace's audit log, newest first.
func wantAudit(t *testing.T, e *env, ws string, want ...string) {
	t.Helper()
	entries, err := e.store.Owners.ListAudit(t.Context(), ws, account.MaxAudit)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, en := range entries {
		got = append(got, en.Action)
	}
	if !slices.Equal(got, want) {
		t.Errorf("audit log %v, want %v", got, want)
	}
}

// emulatedTo are the emails the fake SES transport sent with subject.
func emulatedTo(e *env, subject string) []string {
	var out []string
	for _, s := range e.ses.Sends() {
		if strings.Contains(string(s.Raw), "Subject: "+subject) {
			out = append(out, s.To)
		}
	}
	return out
}
