package audience

import (
	"log/slog"

	"github.com/sesame-mail/sesame/internal/api/tableroutes"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/contactdb"
	"github.com/sesame-mail/sesame/internal/dynamo/segmentdb"
	"github.com/sesame-mail/sesame/internal/dynamo/suppressiondb"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/segment"
	"github.com/sesame-mail/sesame/internal/segment/segmenthttp"
)

// CreateSegment is the function of POST /api/v1/segments: it reads every
// contact of the workspace and its do-not-send list, and writes the
// segment.
var CreateSegment = tableroutes.Read(routes.CreateSegment, segments)

func segments(t *dynamo.Table, _ httpapi.Cursors, _ *slog.Logger) []httpapi.Route {
	return SegmentHandlers(t).Routes()
}

// SegmentHandlers serves the segment route over t.
func SegmentHandlers(t *dynamo.Table) segmenthttp.Handlers {
	return segmenthttp.Handlers{Service: &segment.Service{Store: &segmentdb.Segments{Table: t}, Resolver: Resolver(t)}}
}

// Resolver finds a filter's recipients in t: the contacts and the
// do-not-send list.
func Resolver(t *dynamo.Table) *segment.Resolver {
	return &segment.Resolver{Contacts: &contactdb.Contacts{Table: t}, Suppressions: &suppressiondb.Suppressions{Table: t}}
}
