package devstack_test

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/segment"
	"github.com/sesame-mail/sesame/internal/webhook"
)

// deletion is a thing the dashboard deletes after asking.
type deletion struct {
	// store stores one of the workspace and returns its id.
	store func(t *testing.T, d *dash, ws string) string
	// path is the delete form's, list where the owner lands after it.
	path       func(id string) string
	list       string
	asked      string // the question's words naming the thing
	exists     func(t *testing.T, d *dash, ws, id string) bool
	action     string
	pageButton string // the button on the thing's page
	page       func(id string) string
}

var deletions = map[string]deletion{
	"webhook endpoint": {
		store: func(t *testing.T, d *dash, ws string) string {
			ep, err := webhook.NewEndpoint(ws, "https://example.com/hooks", nil, false)
			if err != nil {
				t.Fatal(err)
			}
			if err := d.store.Webhooks.CreateEndpoint(t.Context(), ep); err != nil {
				t.Fatal(err)
			}
			return ep.ID
		},
		path:  func(id string) string { return "/dashboard/settings/webhooks/" + id + "/remove" },
		page:  func(id string) string { return "/dashboard/settings/webhooks/" + id },
		list:  "/dashboard/settings/webhooks",
		asked: "Remove the endpoint <strong>https://example.com/hooks</strong>? Its pending deliveries are dropped",
		exists: func(t *testing.T, d *dash, ws, id string) bool {
			_, err := d.store.Webhooks.GetEndpoint(t.Context(), ws, id)
			return !errors.Is(err, webhook.ErrEndpointNotFound)
		},
		action: account.ActionWebhookRemoved, pageButton: `id="remove-endpoint">Remove the endpoint<`,
	},
	"contact": {
		store: func(t *testing.T, d *dash, ws string) string {
			ct := contact.Contact{ID: uuid.Must(uuid.NewV7()).String(), WorkspaceID: ws, Email: "gone@example.com", Subscribed: true, CreatedAt: time.Now(), UpdatedAt: time.Now()}
			if err := d.store.Contacts.CreateContact(t.Context(), ct); err != nil {
				t.Fatal(err)
			}
			return ct.ID
		},
		path:  func(id string) string { return "/dashboard/contacts/" + id + "/delete" },
		page:  func(id string) string { return "/dashboard/contacts/" + id },
		list:  "/dashboard/contacts",
		asked: "Delete the contact <strong>gone@example.com</strong>? Its personal data",
		exists: func(t *testing.T, d *dash, ws, id string) bool {
			_, err := d.store.Contacts.GetContact(t.Context(), ws, id)
			return !errors.Is(err, contact.ErrNotFound)
		},
		action: account.ActionContactDeleted, pageButton: `id="delete-contact">Delete the contact<`,
	},
	"segment": {
		store: func(t *testing.T, d *dash, ws string) string { return storeSegment(t, d.env, ws) },
		path:  func(id string) string { return "/dashboard/segments/" + id + "/delete" },
		page:  func(id string) string { return "/dashboard/segments/" + id },
		list:  "/dashboard/segments",
		asked: "Delete the segment <strong>VIPs</strong> (contacts matching it now: 0)? A campaign can no longer be drafted to it. Its contacts are untouched.",
		exists: func(t *testing.T, d *dash, ws, id string) bool {
			_, err := d.store.Segments.GetSegment(t.Context(), ws, id)
			return !errors.Is(err, segment.ErrNotFound)
		},
		action: account.ActionSegmentDeleted, pageButton: `id="delete-segment">Delete the segment<`,
	},
}

// Removing a webhook endpoint, deleting a contact or a segment: the
// thing's page has the button; the first POST shows a page naming it and
// what is lost, and changes nothing; the confirmed POST deletes it
// (audited) and lands on the list; another workspace's id is 404 at both
// steps, and stays.
func TestDashboardDeletionsAsk(t *testing.T) {
	d := startDashboard(t)
	c, csrf := d.signIn(t, d.owner)
	other, _ := d.workspace(apikey.Live)
	for name, del := range deletions {
		t.Run(name, func(t *testing.T) {
			id, foreign := del.store(t, d, d.ws), del.store(t, d, other)
			if p := d.dashDo(t, c, del.page(id), nil); !strings.Contains(p.body, del.pageButton) {
				t.Errorf("the page lacks its button: %d %s", p.status, p.body)
			}
			ask := d.dashDo(t, c, del.path(id), url.Values{"csrf": {csrf}})
			if ask.status != http.StatusOK || !strings.Contains(ask.body, del.asked) || !strings.Contains(ask.body, `name="confirm" value="yes"`) ||
				!strings.Contains(ask.body, `action="`+del.path(id)+`"`) {
				t.Fatalf("unconfirmed: %d %s", ask.status, ask.body)
			}
			if !del.exists(t, d, d.ws, id) {
				t.Fatal("deleted before the owner confirmed")
			}
			for _, form := range []url.Values{{"csrf": {csrf}}, {"csrf": {csrf}, "confirm": {"yes"}}} {
				if p := d.dashDo(t, c, del.path(foreign), form); p.status != http.StatusNotFound {
					t.Errorf("another workspace's, %v: %d, want 404", form, p.status)
				}
			}
			if !del.exists(t, d, other, foreign) {
				t.Error("another workspace's was deleted")
			}
			done := d.dashDo(t, c, del.path(id), url.Values{"csrf": {csrf}, "confirm": {"yes"}})
			if done.status != http.StatusSeeOther || done.header.Get("Location") != del.list {
				t.Fatalf("confirmed: %d %s %s", done.status, done.header.Get("Location"), done.body)
			}
			if del.exists(t, d, d.ws, id) {
				t.Error("still there after the confirmed delete")
			}
			wantNewestAudit(t, d, del.action)
			if p := d.dashDo(t, c, del.path(id), url.Values{"csrf": {csrf}}); p.status != http.StatusNotFound {
				t.Errorf("asking again after the delete: %d, want 404", p.status)
			}
		})
	}
}

// A paused campaign's page offers Resume: it sends to the rest (audited);
// a campaign not paused is refused on its page; another workspace's is
// 404.
func TestDashboardResumeCampaign(t *testing.T) {
	e := startDev(t)
	o := newOwnedBulk(t, e, 2)
	ctx := t.Context()
	if p := e.dashDo(t, o.c, "/dashboard/campaigns/"+o.first+"/resume", url.Values{"csrf": {o.csrf}}); p.status != http.StatusBadRequest || !strings.Contains(p.body, `role="alert"`) {
		t.Errorf("resume a draft: %d, want 400 on its page", p.status)
	}
	if p := e.dashDo(t, o.c, "/dashboard/approvals/"+o.first+"/approve", url.Values{"csrf": {o.csrf}, "at": {""}}); p.status != http.StatusSeeOther {
		t.Fatalf("approve: %d %s", p.status, p.body)
	}
	// Paused as the reputation breaker pauses it, before any chunk ran.
	if _, err := e.store.Campaigns.TransitionCampaign(ctx, o.id, o.first, []campaign.Status{campaign.StatusSending}, campaign.StatusPaused, time.Now(), "bounce rate"); err != nil {
		t.Fatal(err)
	}
	page := e.dashDo(t, o.c, "/dashboard/campaigns/"+o.first, nil)
	if !strings.Contains(page.body, `id="resume">Resume the campaign<`) {
		t.Fatalf("the paused campaign's page has no Resume: %s", page.body)
	}
	other := newOwnedBulk(t, e, 1)
	if p := e.dashDo(t, o.c, "/dashboard/campaigns/"+other.first+"/resume", url.Values{"csrf": {o.csrf}}); p.status != http.StatusNotFound {
		t.Errorf("resume another workspace's: %d, want 404", p.status)
	}
	p := e.dashDo(t, o.c, "/dashboard/campaigns/"+o.first+"/resume", url.Values{"csrf": {o.csrf}})
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/dashboard/campaigns/"+o.first {
		t.Fatalf("resume: %d %s", p.status, p.body)
	}
	if c, _ := e.store.Campaigns.GetCampaign(ctx, o.id, o.first); c.Status != campaign.StatusSending {
		t.Errorf("resumed campaign is %s, want sending", c.Status)
	}
	drainSends(t, e.queues.Poller(t, queue.Sends.Name, api.Consumers(e.deps)[routes.CampaignSender]))
	if c, _ := e.store.Campaigns.GetCampaign(ctx, o.id, o.first); c.Status != campaign.StatusSent || c.SentCount != 2 {
		t.Errorf("resumed campaign after its sends: %s, %d sent; want sent, 2", c.Status, c.SentCount)
	}
	wantAudit(t, e, o.id, account.ActionResumed, account.ActionApproved, account.ActionSignIn)
}
