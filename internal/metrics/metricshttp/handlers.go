// Package metricshttp serves GET /api/v1/metrics over the metrics package.
package metricshttp

import (
	"net/http"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/metrics"
	"github.com/sesame-mail/sesame/internal/routes"
)

// Handlers serves the metrics route.
type Handlers struct {
	Metrics *metrics.Service
}

// Routes returns the routes served by h.
func (h Handlers) Routes() []httpapi.Route {
	return []httpapi.Route{{Route: routes.Metrics, Handler: h.Get}}
}

// Get answers GET /api/v1/metrics?from=&to=&type=&environment=. from and
// to are UTC dates (default: the last 30 days through today); a filter
// given empty is refused, not ignored.
func (h Handlers) Get(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	query := h.Metrics.DefaultQuery()
	var err error
	if q.Has("from") {
		if query.From, err = time.Parse(time.DateOnly, q.Get("from")); err != nil {
			return fail.Invalid("from", "from must be a date as YYYY-MM-DD")
		}
	}
	if q.Has("to") {
		if query.To, err = time.Parse(time.DateOnly, q.Get("to")); err != nil {
			return fail.Invalid("to", "to must be a date as YYYY-MM-DD")
		}
	}
	if q.Has("type") {
		typ := email.Type(q.Get("type"))
		query.Type = &typ
	}
	if q.Has("environment") {
		env := apikey.Environment(q.Get("environment"))
		query.Environment = &env
	}
	rep, err := h.Metrics.Report(r.Context(), httpapi.PrincipalFrom(r.Context()).WorkspaceID, query)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.Data[metrics.Report]{Data: rep})
	return nil
}
