package dashboard

import (
	"context"
	"net/http"

	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/campaign"
)

func (a *App) campaignRoutes() []route {
	return []route{
		{pattern: "GET /campaigns", handler: a.campaigns},
		{pattern: "GET /campaigns/{id}", handler: a.campaign},
		{pattern: "POST /campaigns/{id}/cancel", handler: a.cancelCampaign},
		{pattern: "POST /campaigns/{id}/resume", handler: a.resumeCampaign},
	}
}

// campaignsPage is how many campaigns one page of the list shows.
const campaignsPage = 50

type campaignsData struct {
	Campaigns []campaign.Campaign
	// Next is the next page's cursor, "" on the last page.
	Next string
}

func (a *App) campaigns(w http.ResponseWriter, r *http.Request, s *session) error {
	list, next, err := a.svc.Owner.Approvals.Campaigns(r.Context(), s.WorkspaceID, r.URL.Query().Get("after"), campaignsPage)
	if err != nil {
		return err
	}
	return a.render(w, s, http.StatusOK, "campaigns.html", "Campaigns", "/campaigns", campaignsData{Campaigns: list, Next: next})
}

type campaignData struct {
	campaign.Shown
	Remaining  int
	Cancelable bool
	// Resumable: paused, it can be resumed.
	Resumable bool
	Error     string
}

func (a *App) campaignPage(w http.ResponseWriter, r *http.Request, s *session, status int, msg string) error {
	shown, err := a.svc.Owner.Approvals.Show(r.Context(), s.WorkspaceID, r.PathValue("id"), 0)
	if err != nil {
		return err
	}
	d := campaignData{Shown: shown, Error: msg, Remaining: max(0, shown.RecipientCount-shown.SentCount-shown.SkippedCount)}
	d.Resumable = shown.Status == campaign.StatusPaused
	for _, st := range campaign.Cancellable {
		d.Cancelable = d.Cancelable || shown.Status == st
	}
	return a.render(w, s, status, "campaign.html", "Campaign", "/campaigns", d)
}

func (a *App) campaign(w http.ResponseWriter, r *http.Request, s *session) error {
	return a.campaignPage(w, r, s, http.StatusOK, "")
}

func (a *App) cancelCampaign(w http.ResponseWriter, r *http.Request, s *session) error {
	return a.moveCampaign(w, r, s, a.svc.Owner.Approvals.Cancel, account.ActionCancelled)
}

// resumeCampaign resumes a paused campaign: recipients already sent are
// skipped.
func (a *App) resumeCampaign(w http.ResponseWriter, r *http.Request, s *session) error {
	return a.moveCampaign(w, r, s, a.svc.Owner.Approvals.Resume, account.ActionResumed)
}

// moveCampaign does move to the campaign of the path and audits it as
// action; a refusal (the campaign's status does not allow it) is shown on
// the campaign's page.
func (a *App) moveCampaign(w http.ResponseWriter, r *http.Request, s *session,
	move func(ctx context.Context, workspaceID, id string) (campaign.Campaign, error), action string) error {
	c, err := move(r.Context(), s.WorkspaceID, r.PathValue("id"))
	if err != nil {
		return refused(err, func(status int, msg string) error { return a.campaignPage(w, r, s, status, msg) })
	}
	if err := a.audit(r.Context(), s, action, c.ID); err != nil {
		return err
	}
	http.Redirect(w, r, a.base+"/campaigns/"+c.ID, http.StatusSeeOther)
	return nil
}
