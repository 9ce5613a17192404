package dashboard

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/deliverability"
	"github.com/sesame-mail/sesame/internal/fail"
)

func (a *App) approvalRoutes() []route {
	return []route{
		{pattern: "GET /approvals", handler: a.approvals},
		{pattern: "GET /approvals/{id}", handler: a.approval},
		{pattern: "POST /approvals/{id}/approve", handler: a.approve},
		{pattern: "POST /approvals/{id}/edit", handler: a.editApproval},
		{pattern: "POST /approvals/{id}/discard", handler: a.discard},
		// Under /preview/: framed in <iframe sandbox>, sent with the
		// sandbox CSP (previewRoutes).
		{pattern: "GET /preview/approvals/{id}", handler: a.previewApproval},
	}
}

// previewApproval is the campaign's email as its first frozen recipient
// gets it (campaign.Approvals.Preview).
func (a *App) previewApproval(w http.ResponseWriter, r *http.Request, s *session) error {
	p, err := a.svc.Owner.Approvals.Preview(r.Context(), s.WorkspaceID, r.PathValue("id"))
	if err != nil {
		return err
	}
	return servePreview(w, r, p.HTML)
}

func (a *App) approvals(w http.ResponseWriter, r *http.Request, s *session) error {
	list, err := a.svc.Owner.Approvals.List(r.Context(), s.WorkspaceID)
	if err != nil {
		return err
	}
	return a.render(w, s, http.StatusOK, "approvals.html", "Approvals", "/approvals", list)
}

// approvalSample is how many frozen recipients the approver sees.
const approvalSample = 10

type approvalData struct {
	campaign.Shown
	// Preview is the email as its first frozen recipient gets it, and
	// ShownAs names them ("" when none is left).
	Preview campaign.Preview
	ShownAs string
	// Report is the deliverability verdict, nil when unavailable.
	Report *deliverability.Report
	// Editable: pending approval or scheduled (approve, edit, discard).
	Editable bool
	Error    string
}

func (a *App) approvalPage(w http.ResponseWriter, r *http.Request, s *session, status int, msg string) error {
	shown, err := a.svc.Owner.Approvals.Show(r.Context(), s.WorkspaceID, r.PathValue("id"), approvalSample)
	if err != nil {
		return err
	}
	preview, err := a.svc.Owner.Approvals.Preview(r.Context(), s.WorkspaceID, shown.ID)
	if err != nil {
		return err
	}
	d := approvalData{Shown: shown, Preview: preview, ShownAs: shownAs(preview.Recipient), Error: msg}
	if shown.Verdict != nil {
		d.Report = new(deliverability.Report)
		if json.Unmarshal(shown.Verdict, d.Report) != nil {
			d.Report = nil // shown as unavailable
		}
	}
	for _, st := range campaign.Editable {
		d.Editable = d.Editable || shown.Status == st
	}
	return a.render(w, s, status, "approval.html", "Approve a campaign", "/approvals", d)
}

// shownAs names a recipient as a mail client does: "Ann Lee <ann@…>",
// or the address alone.
func shownAs(c contact.Contact) string {
	if c.Email == "" {
		return ""
	}
	var name []string
	for _, n := range []*string{c.FirstName, c.LastName} {
		if n != nil && strings.TrimSpace(*n) != "" {
			name = append(name, strings.TrimSpace(*n))
		}
	}
	if len(name) == 0 {
		return "<" + c.Email + ">"
	}
	return strings.Join(name, " ") + " <" + c.Email + ">"
}

func (a *App) approval(w http.ResponseWriter, r *http.Request, s *session) error {
	return a.approvalPage(w, r, s, http.StatusOK, "")
}

// refused answers a refused owner action on the page of the thing acted
// on, with the owner's reason; another error is the error page's.
func refused(err error, page func(status int, msg string) error) error {
	msg, ok := refusal(err)
	if !ok {
		return err
	}
	return page(http.StatusBadRequest, msg)
}

// startAt is the approve form's time: a datetime-local value read as UTC;
// empty starts now.
func startAt(v string) (*time.Time, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil, nil
	}
	t, err := time.Parse("2006-01-02T15:04", v)
	if err != nil {
		return nil, fail.Invalid("at", "at must be a date and time such as 2026-11-24T09:00 (UTC)")
	}
	return &t, nil
}

func (a *App) approve(w http.ResponseWriter, r *http.Request, s *session) error {
	id := r.PathValue("id")
	page := func(status int, msg string) error { return a.approvalPage(w, r, s, status, msg) }
	at, err := startAt(r.PostFormValue("at"))
	if err != nil {
		return refused(err, page)
	}
	ctx := r.Context()
	approved, err := a.svc.Owner.Approvals.Approve(ctx, s.WorkspaceID, id, at)
	if err != nil {
		return refused(err, page)
	}
	if !approved.Already {
		if err := a.audit(ctx, s, account.ActionApproved, approved.ID); err != nil {
			return err
		}
	}
	http.Redirect(w, r, a.base+"/campaigns/"+approved.ID, http.StatusSeeOther)
	return nil
}

func (a *App) editApproval(w http.ResponseWriter, r *http.Request, s *session) error {
	page := func(status int, msg string) error { return a.approvalPage(w, r, s, status, msg) }
	subject, html := r.PostFormValue("subject"), r.PostFormValue("html")
	c, err := a.svc.Owner.Approvals.Edit(r.Context(), s.WorkspaceID, r.PathValue("id"), campaign.Edit{Subject: &subject, HTML: &html})
	if err != nil {
		return refused(err, page)
	}
	if err := a.audit(r.Context(), s, account.ActionEdited, c.ID); err != nil {
		return err
	}
	http.Redirect(w, r, a.base+"/approvals/"+c.ID, http.StatusSeeOther)
	return nil
}

func (a *App) discard(w http.ResponseWriter, r *http.Request, s *session) error {
	page := func(status int, msg string) error { return a.approvalPage(w, r, s, status, msg) }
	c, err := a.svc.Owner.Approvals.Discard(r.Context(), s.WorkspaceID, r.PathValue("id"))
	if err != nil {
		return refused(err, page)
	}
	if err := a.audit(r.Context(), s, account.ActionDiscarded, c.ID); err != nil {
		return err
	}
	http.Redirect(w, r, a.base+"/approvals", http.StatusSeeOther)
	return nil
}
