// Package metrics declares the function of the metrics route
// (get-metrics): the key lookup and the metrics service over the daily
// counters.
package metrics

import (
	"log/slog"

	"github.com/sesame-mail/sesame/internal/api/wire/tablefn"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/metricsdb"
	"github.com/sesame-mail/sesame/internal/httpapi"
	report "github.com/sesame-mail/sesame/internal/metrics"
	"github.com/sesame-mail/sesame/internal/metrics/metricshttp"
	"github.com/sesame-mail/sesame/internal/routes"
)

// Metrics serves GET /api/v1/metrics.
var Metrics = tablefn.Read(routes.Metrics, func(t *dynamo.Table, _ httpapi.Cursors, _ *slog.Logger) []httpapi.Route {
	return Handlers(t).Routes()
})

// Handlers serves the metrics route over t.
func Handlers(t *dynamo.Table) metricshttp.Handlers {
	return metricshttp.Handlers{Metrics: &report.Service{Store: &metricsdb.Metrics{Table: t}}}
}
