package audience

import (
	"context"

	"github.com/sesame-mail/sesame/internal/api/sdk"
	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/segment"
	"github.com/sesame-mail/sesame/internal/segment/segmenthttp"
)

// CreateSegment is the function of POST /api/v1/segments: it reads every
// contact of the workspace and its do-not-send list, and writes the
// segment.
var CreateSegment = wire.Function[config.Read]{Name: routes.CreateSegment.Function, AWS: sdk.Load,
	Build: func(_ context.Context, cfg config.Read, env wire.Env) (any, error) {
		t := dynamo.Open(env.AWS, cfg.Table)
		return wire.Route(env.Logger, &dynamo.Keys{Table: t}, routes.CreateSegment, SegmentHandlers(t).Routes())
	}}

// SegmentHandlers serves the segment route over t.
func SegmentHandlers(t *dynamo.Table) segmenthttp.Handlers {
	return segmenthttp.Handlers{Service: &segment.Service{Store: &dynamo.Segments{Table: t}, Resolver: Resolver(t)}}
}

// Resolver finds a filter's recipients in t: the contacts and the
// do-not-send list.
func Resolver(t *dynamo.Table) *segment.Resolver {
	return &segment.Resolver{Contacts: &dynamo.Contacts{Table: t}, Suppressions: &dynamo.Suppressions{Table: t}}
}
