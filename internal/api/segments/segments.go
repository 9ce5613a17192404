// Package segments declares the function of POST /api/v1/segments
// (create-segment): it reads every contact of the workspace and its
// do-not-send list, and writes the segment. The campaign draft resolves
// a segment's recipients with the same Resolver.
package segments

import (
	"log/slog"

	"github.com/sesame-mail/sesame/internal/api/wire/tablefn"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/contactdb"
	"github.com/sesame-mail/sesame/internal/dynamo/segmentdb"
	"github.com/sesame-mail/sesame/internal/dynamo/suppressiondb"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/segment"
	"github.com/sesame-mail/sesame/internal/segment/segmenthttp"
)

// CreateSegment serves POST /api/v1/segments.
var CreateSegment = tablefn.Read(routes.CreateSegment, func(t *dynamo.Table, _ httpapi.Cursors, _ *slog.Logger) []httpapi.Route {
	return Handlers(t).Routes()
})

// Handlers serves the segment route over t.
func Handlers(t *dynamo.Table) segmenthttp.Handlers {
	return segmenthttp.Handlers{Service: &segment.Service{Store: &segmentdb.Segments{Table: t}, Resolver: Resolver(t)}}
}

// Resolver finds a filter's recipients in t: the contacts and the
// do-not-send list.
func Resolver(t *dynamo.Table) *segment.Resolver {
	return &segment.Resolver{Contacts: &contactdb.Contacts{Table: t}, Suppressions: &suppressiondb.Suppressions{Table: t}}
}
