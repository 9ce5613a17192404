package engine

import (
	"context"
	"fmt"
	"github.com/sesame-mail/sesame/internal/campaign"
	"time"
)

// Thresholds are when the reputation circuit breaker pauses a campaign:
// SES reviews an account at a 5 % bounce rate or a 0.1 % complaint rate,
// so Sesame stops a workspace's campaign well before, at BounceRate or
// ComplaintRate over the campaign and automation emails the workspace
// sent in the last Window, once they number MinSample.
type Thresholds struct {
	BounceRate    float64
	ComplaintRate float64
	MinSample     int
	Window        time.Duration
}

// DefaultThresholds are the documented defaults (docs/decisions.md).
var DefaultThresholds = Thresholds{BounceRate: 0.04, ComplaintRate: 0.0008, MinSample: 500, Window: 24 * time.Hour}

// OrDefaults is th with each unset (zero) threshold at its default: the
// configured thresholds as the breaker applies them.
func (th Thresholds) OrDefaults() Thresholds {
	d := DefaultThresholds
	if th.BounceRate > 0 {
		d.BounceRate = th.BounceRate
	}
	if th.ComplaintRate > 0 {
		d.ComplaintRate = th.ComplaintRate
	}
	if th.MinSample > 0 {
		d.MinSample = th.MinSample
	}
	if th.Window > 0 {
		d.Window = th.Window
	}
	return d
}

// Trip returns the pause reason when t crosses the thresholds.
func (th Thresholds) Trip(t campaign.Tally) (string, bool) {
	if t.Sent <= 0 || t.Sent < th.MinSample {
		return "", false
	}
	bounce, complaint := float64(t.Bounced)/float64(t.Sent), float64(t.Complained)/float64(t.Sent)
	switch {
	case th.BounceRate > 0 && bounce >= th.BounceRate:
		return fmt.Sprintf("reputation circuit breaker: bounce rate %.2f%% over the last %s (%d of %d emails) reached the %.2f%% threshold",
			100*bounce, th.Window, t.Bounced, t.Sent, 100*th.BounceRate), true
	case th.ComplaintRate > 0 && complaint >= th.ComplaintRate:
		return fmt.Sprintf("reputation circuit breaker: complaint rate %.3f%% over the last %s (%d of %d emails) reached the %.3f%% threshold",
			100*complaint, th.Window, t.Complained, t.Sent, 100*th.ComplaintRate), true
	}
	return "", false
}

// ReputationStore keeps each workspace's campaign and automation sends by
// hour (listmaildb.ListSends); the status pipeline adds their bounces and
// complaints to the hour each email was sent in.
type ReputationStore interface {
	CountSent(ctx context.Context, workspaceID string, at time.Time, n int) error
	Tally(ctx context.Context, workspaceID string, from, to time.Time) (campaign.Tally, error)
}
