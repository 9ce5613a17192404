package dashboard

import (
	"net/http"
	"strconv"

	"github.com/sesame-mail/sesame/internal/emailtemplate"
	"github.com/sesame-mail/sesame/internal/fail"
)

// storedTemplateList is how many templates the list page shows.
const storedTemplateList = 100

func (a *App) templateRoutes() []route {
	return []route{
		{pattern: "GET /templates", handler: a.storedTemplates},
		{pattern: "GET /templates/{id}", handler: a.storedTemplate},
		{pattern: "GET /preview/templates/{id}", handler: a.previewTemplate},
	}
}

func (a *App) storedTemplates(w http.ResponseWriter, r *http.Request, s *session) error {
	list, _, more, err := a.svc.Templates.List(r.Context(), s.WorkspaceID, "", storedTemplateList)
	if err != nil {
		return err
	}
	return a.render(w, s, http.StatusOK, "stored-templates.html", "Templates", "/templates", struct {
		Templates []emailtemplate.Template
		More      bool
	}{list, more})
}

// templateVersion reads the version the request names (?version=N; the
// latest without it).
func (a *App) templateVersion(r *http.Request, s *session) (emailtemplate.Version, error) {
	version := 0
	if q := r.URL.Query().Get("version"); q != "" {
		n, err := strconv.Atoi(q)
		if err != nil || n < 1 {
			return emailtemplate.Version{}, fail.NotFound("template version")
		}
		version = n
	}
	return a.svc.Templates.Get(r.Context(), s.WorkspaceID, r.PathValue("id"), version)
}

// storedTemplate shows one version rendered with sample values, its
// review, and links to every version.
func (a *App) storedTemplate(w http.ResponseWriter, r *http.Request, s *session) error {
	v, err := a.templateVersion(r, s)
	if err != nil {
		return err
	}
	latest := v.Version
	if r.URL.Query().Has("version") {
		head, err := a.svc.Templates.Get(r.Context(), s.WorkspaceID, v.ID, 0)
		if err != nil {
			return err
		}
		latest = head.Version
	}
	subject, _ := v.Sample()
	versions := make([]int, 0, latest)
	for n := latest; n >= 1; n-- {
		versions = append(versions, n)
	}
	return a.render(w, s, http.StatusOK, "stored-template.html", v.Name, "/templates", struct {
		emailtemplate.Version
		SampleSubject string
		Latest        int
		Versions      []int
	}{v, subject, latest, versions})
}

func (a *App) previewTemplate(w http.ResponseWriter, r *http.Request, s *session) error {
	v, err := a.templateVersion(r, s)
	if err != nil {
		return err
	}
	_, html := v.Sample()
	return servePreview(w, r, html)
}
