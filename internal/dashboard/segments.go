package dashboard

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/segment"
)

// segmentSample is how many of a segment's recipients its page shows.
const segmentSample = 10

func (a *App) segmentRoutes() []route {
	return []route{
		{pattern: "GET /segments", handler: a.segments},
		{pattern: "GET /segments/{id}", handler: a.segmentPage},
		{pattern: "POST /segments/{id}/delete", handler: a.deleteSegment},
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
	segment.SegmentShown
	// Filter is the segment's filter as the API takes it, indented.
	Filter string
}

// segmentPage evaluates the segment now: its live count and a sample.
func (a *App) segmentPage(w http.ResponseWriter, r *http.Request, s *session) error {
	shown, err := a.svc.Owner.Segments.Show(r.Context(), s.WorkspaceID, r.PathValue("id"), segmentSample)
	if err != nil {
		return err
	}
	filter, err := json.MarshalIndent(shown.Segment.Filter, "", "  ")
	if err != nil {
		return err
	}
	return a.render(w, s, http.StatusOK, "segment.html", shown.Name, "/segments", segmentData{SegmentShown: shown, Filter: string(filter)})
}

// deleteSegment deletes the segment after a page that names it and asks:
// its contacts are untouched.
func (a *App) deleteSegment(w http.ResponseWriter, r *http.Request, s *session) error {
	ask := func() (confirmation, error) {
		shown, err := a.svc.Owner.Segments.Show(r.Context(), s.WorkspaceID, r.PathValue("id"), 0)
		return confirmation{
			Title: "Delete a segment", Question: "Delete the segment", Name: shown.Name,
			Note:   "contacts matching it now: " + strconv.Itoa(shown.Count),
			Lost:   "A campaign can no longer be drafted to it. Its contacts are untouched.",
			Action: "/segments/" + shown.ID + "/delete", Button: "Delete the segment",
			Back: "/segments/" + shown.ID, Keep: "Keep the segment", nav: "/segments",
		}, err
	}
	return a.askThenDo(w, r, s, ask, account.ActionSegmentDeleted, "/segments", func(ctx context.Context) (string, error) {
		deleted, err := a.svc.Owner.Segments.Delete(ctx, s.WorkspaceID, r.PathValue("id"))
		return deleted.ID, err
	})
}
