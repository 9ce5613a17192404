package devstack_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/campaign"
	evt "github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/webhook"
)

// The owner's screens in Chromium: a bulk draft approved from its page
// goes out (the sends queue drained) and its campaign page shows the
// progress; another is discarded; a draft whose HTML holds a script is
// previewed in its sandboxed frame and the script never runs; a held email
// is cleared and the review sends it. Every screen passes axe-core and
// make screenshots writes it.
func TestDashboardScreensInBrowser(t *testing.T) {
	e := startDev(t)
	o := newOwnedBulk(t, e, 2)
	scripted := newDraft(t, e, o.id, `<p id="hi">Hello</p><script>document.title = "ran"; top.postMessage("ran", "*")</script>`)
	held := e.post(o.key, "/api/v1/send", msg("held", map[string]any{"html": "<aside><p>A new layout</p></aside>"})).sent(t, http.StatusAccepted)

	tab := o.tab(t, e)

	e.visit(t, tab, "/dashboard/approvals", "approvals")
	e.visit(t, tab, "/dashboard/approvals/"+o.first, "approval")
	run(t, tab, click(css("#approve")), chromedp.WaitVisible(css("#progress")))
	drainSends(t, e.queues.Poller(t, queue.Sends.Name, api.Consumers(e.deps)[routes.CampaignSender]))
	e.visit(t, tab, "/dashboard/campaigns/"+o.first, "campaign")
	if sent := text(t, tab, "#sent"); sent != "2" {
		t.Errorf("the campaign page shows %q sent, want 2", sent)
	}
	if n := len(emulatedTo(e, "November news")); n != 2 {
		t.Errorf("%d campaign emails went out, want 2", n)
	}

	// A tab of its own for each part: each has the harness's time limit.
	tab = o.tab(t, e)
	run(t, tab, chromedp.Navigate(e.url+"/dashboard/approvals/"+o.second), chromedp.WaitVisible(css("#discard")),
		click(css("#discard")), chromedp.WaitVisible(css("#approval-queue")))
	if c, _ := e.store.Campaigns.GetCampaign(t.Context(), o.id, o.second); c.Status != campaign.StatusDiscarded {
		t.Errorf("the discarded draft is %s", c.Status)
	}
	e.visit(t, tab, "/dashboard/campaigns", "campaigns")

	// The scripted draft's page: its frame is loaded again, with the same
	// attributes, once a listener is in place; a running script would post
	// or retitle the page.
	e.visit(t, tab, "/dashboard/approvals/"+scripted, "approval-scripted")
	loaded := eval[bool](t, tab, `window.messages = []; addEventListener("message", e => messages.push(String(e.data)));
		const f = document.querySelector("iframe.preview").cloneNode();
		new Promise(done => { f.onload = () => done(f.contentDocument === null); document.body.append(f); })`)
	time.Sleep(200 * time.Millisecond) // a script would have posted by now
	if got := eval[[]string](t, tab, `messages`); len(got) != 0 || !loaded {
		t.Errorf("the preview's script ran (%v) or its frame is same-origin (%v)", got, !loaded)
	}
	if title := eval[string](t, tab, `document.title`); title == "ran" {
		t.Error("the preview retitled the page")
	}

	tab = o.tab(t, e)
	e.visit(t, tab, "/dashboard/held", "held")
	e.visit(t, tab, "/dashboard/held/"+held.ID, "held-email")
	run(t, tab, click(css("#clear")), chromedp.WaitVisible(css("#held-list")))
	e.reviewHeld(t, 1)
	e.wantEmail(t, o.key, held.ID, "sent", "")

	e.visit(t, tab, "/dashboard/emails", "emails")
	deliveredTo(t, e, o.id, held.ID, "https://hooks.example.com/in")
	e.visit(t, tab, "/dashboard/emails/"+held.ID, "email")
	if tl := text(t, tab, "#timeline"); !strings.Contains(tl, "sent") {
		t.Errorf("timeline %q", tl)
	}
	if d := text(t, tab, "#deliveries"); !strings.Contains(d, "https://hooks.example.com/in") || !strings.Contains(d, "HTTP 204") {
		t.Errorf("webhook deliveries %q", d)
	}
}

// deliveredTo records a successful delivery of an event of the email to a
// new endpoint at url, as the dispatcher would.
func deliveredTo(t *testing.T, e *env, workspaceID, emailID, url string) {
	t.Helper()
	ep := e.endpoint(t, workspaceID, url)
	a := webhook.Attempt{WorkspaceID: workspaceID, EndpointID: ep.ID, EventID: "evt_" + emailID, EventType: evt.Delivered, EmailID: emailID,
		Number: 1, At: time.Now().UTC(), StatusCode: http.StatusNoContent, LatencyMS: 35}
	if err := e.store.Webhooks.RecordAttempt(t.Context(), a); err != nil {
		t.Fatal(err)
	}
}

// tab is a new browser tab signed in as the owner.
func (o *ownedBulk) tab(t *testing.T, e *env) context.Context {
	t.Helper()
	tab := newTab(t)
	link := e.requestLink(t, noRedirects(), o.owner)
	run(t, tab, chromedp.Navigate(link), click(css("main button[type=submit]")), chromedp.WaitVisible(css("#waiting")))
	return tab
}

// text is the text of the element sel.
func text(t *testing.T, tab context.Context, sel string) string {
	t.Helper()
	return strings.TrimSpace(do(t, tab, chromedp.Text(chromedp.CSS(sel))))
}
