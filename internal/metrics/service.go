package metrics

import (
	"context"
	"time"
)

// DefaultDays is the range of a query that names no date: the last 30
// UTC days through today.
const DefaultDays = 30

// Service reports a workspace's metrics from the store's daily counters.
type Service struct {
	Store Store
	// Now is the clock the default range is read from; nil is time.Now.
	Now func() time.Time
}

// DefaultQuery covers the default range (DefaultDays through today, UTC)
// of every type and environment: what a query starts from before its
// dates and filters are read.
func (s *Service) DefaultQuery() Query {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	today := now().UTC().Truncate(24 * time.Hour)
	return Query{From: today.AddDate(0, 0, -(DefaultDays - 1)), To: today}
}

// Report reports q for workspaceID.
func (s *Service) Report(ctx context.Context, workspaceID string, q Query) (Report, error) {
	return Compute(ctx, s.Store, workspaceID, q)
}
