package sending

import (
	"context"
	"log/slog"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/email"
)

// A connection's emails are marked on each Email (its source) and tallied
// in the workspace's audit log: one entry per connection and hour, which
// each request adds its emails to. An entry per email would put every
// send's write on the one audit partition of the workspace.

// ConnectionTally adds n emails of connection c to its audit entry of the
// hour starting at hour.
type ConnectionTally interface {
	CountConnectionSends(ctx context.Context, workspaceID string, c email.Connection, hour time.Time, n int) error
}

// NoteSends records that one request of p made n emails, when p is an
// OAuth connection. The emails carry their source whatever happens here,
// so a failed tally is logged, not the request's failure.
func (s *Service) NoteSends(ctx context.Context, p apikey.Principal, n int) {
	c := connectionOf(p)
	if c == nil || n <= 0 || s.Connections == nil {
		return
	}
	hour := s.now().UTC().Truncate(time.Hour)
	if err := s.Connections.CountConnectionSends(ctx, p.WorkspaceID, *c, hour, n); err != nil {
		s.logger().WarnContext(ctx, "connection sends not tallied in the audit log",
			slog.String("workspace_id", p.WorkspaceID), slog.String("grant_id", c.GrantID), slog.Int("emails", n), slog.Any("err", err))
	}
}

// Made is how many emails out made: none for a replayed answer.
func (out Outcome) Made() int {
	if out.Replayed {
		return 0
	}
	return 1
}
