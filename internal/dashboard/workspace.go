package dashboard

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/workspace"
)

func (a *App) workspaceRoutes() []route {
	return []route{
		{pattern: "GET /settings", handler: func(w http.ResponseWriter, _ *http.Request, s *session) error {
			return a.render(w, s, http.StatusOK, "settings.html", "Settings", "/settings", nil)
		}},
		{pattern: "GET /settings/workspace", handler: a.workspaceSettings},
		{pattern: "POST /settings/workspace", handler: a.changeWorkspace},
	}
}

type workspaceData struct {
	Workspace     workspace.Workspace
	Notice, Error string
	// Form is the settings form: the workspace's settings, or what was
	// posted when it was refused.
	Form workspaceForm
}

// workspaceForm is the settings form's values as text.
type workspaceForm struct {
	PostalAddress, Brands, Allowance, Tracking string
	TrackingOff, Bulk                          bool
}

// workspaceFormOf is ws's settings as the form shows them.
func workspaceFormOf(ws workspace.Workspace) workspaceForm {
	return workspaceForm{PostalAddress: ws.PostalAddress, Brands: strings.Join(ws.Brands, ", "),
		Allowance: strconv.Itoa(ws.MonthlyAllowance), Tracking: ws.DefaultTracking,
		TrackingOff: ws.TrackingOffProvisioned, Bulk: ws.BulkApproved}
}

// workspacePage shows the workspace; d.Form, when set (a refused post), is
// shown as posted.
func (a *App) workspacePage(w http.ResponseWriter, r *http.Request, s *session, status int, d workspaceData) error {
	ws, err := a.svc.Owner.Workspaces.Get(r.Context(), s.WorkspaceID)
	if err != nil {
		return err
	}
	d.Workspace = ws
	if d.Error == "" {
		d.Form = workspaceFormOf(ws)
	}
	return a.render(w, s, status, "workspace.html", "Workspace settings", "/settings", d)
}

func (a *App) workspaceSettings(w http.ResponseWriter, r *http.Request, s *session) error {
	return a.workspacePage(w, r, s, http.StatusOK, workspaceData{})
}

// changeWorkspace sends every setting of the form as a change, as `sesame
// workspace set` does with each flag; the owner service refuses what is
// out of range.
func (a *App) changeWorkspace(w http.ResponseWriter, r *http.Request, s *session) error {
	posted := workspaceForm{PostalAddress: r.PostFormValue("postal-address"), Brands: r.PostFormValue("brands"),
		Allowance: r.PostFormValue("monthly-allowance"), Tracking: r.PostFormValue("default-tracking"),
		TrackingOff: r.PostFormValue("tracking-off-provisioned") == "yes", Bulk: r.PostFormValue("bulk-approved") == "yes"}
	refuse := func(msg string) error {
		return a.workspacePage(w, r, s, http.StatusBadRequest, workspaceData{Error: msg, Form: posted})
	}
	allowance, err := strconv.Atoi(strings.TrimSpace(posted.Allowance))
	if err != nil {
		return refuse("monthly-allowance must be a whole number (0: no cap)")
	}
	brands := commaList(posted.Brands)
	postal := strings.TrimSpace(posted.PostalAddress)
	change := workspace.Settings{
		MonthlyAllowance: &allowance, Brands: &brands, PostalAddress: &postal,
		TrackingOffProvisioned: &posted.TrackingOff, BulkApproved: &posted.Bulk,
	}
	if posted.Tracking != "" { // unset stays unset: full
		change.DefaultTracking = &posted.Tracking
	}
	if _, err := a.svc.Owner.Workspaces.Update(r.Context(), s.WorkspaceID, change); err != nil {
		if msg, ok := refusal(err); ok {
			return refuse(msg)
		}
		return err
	}
	if err := a.audit(r.Context(), s, account.ActionWorkspaceChanged, s.WorkspaceID); err != nil {
		return err
	}
	return a.workspacePage(w, r, s, http.StatusOK, workspaceData{Notice: "The settings are saved."})
}

// commaList is the trimmed, non-empty items of a comma-separated field.
func commaList(field string) []string {
	var out []string
	for _, item := range strings.Split(field, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
