package dashboard

import (
	"encoding/json"
	"net/http"

	"github.com/sesame-mail/sesame/internal/owner"
)

// segmentSample is how many of a segment's recipients its page shows.
const segmentSample = 10

func (a *App) segmentRoutes() []route {
	return []route{
		{pattern: "GET /segments", handler: a.segments},
		{pattern: "GET /segments/{id}", handler: a.segmentPage},
	}
}

func (a *App) segments(w http.ResponseWriter, r *http.Request, s *session) error {
	list, err := a.svc.Owner.Segments.List(r.Context(), s.WorkspaceID)
	if err != nil {
		return err
	}
	return a.render(w, s, http.StatusOK, "segments.html", "Segments", "/segments", list)
}

type segmentData struct {
	owner.SegmentShown
	// Filter is the segment's filter as the API takes it, indented.
	Filter string
}

// segmentPage evaluates the segment now: its live count and a sample.
func (a *App) segmentPage(w http.ResponseWriter, r *http.Request, s *session) error {
	shown, err := a.svc.Owner.Segments.Show(r.Context(), s.WorkspaceID, r.PathValue("id"), segmentSample)
	if err != nil {
		return notFoundIfNamed(err, "segment")
	}
	filter, err := json.MarshalIndent(shown.Segment.Filter, "", "  ")
	if err != nil {
		return err
	}
	return a.render(w, s, http.StatusOK, "segment.html", shown.Name, "/segments", segmentData{SegmentShown: shown, Filter: string(filter)})
}
