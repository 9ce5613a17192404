package engine

import (
	"context"
	"math"
	"sync"
	"time"
)

// SlotStore hands out the send slots of one second, shared by every
// sender invocation (dynamo.ListSends: a conditional counter per
// second).
type SlotStore interface {
	// ClaimSlots takes up to want of the rate slots of the second starting
	// at second (unix seconds) and returns how many it got: 0 when the
	// second's slots are all taken.
	ClaimSlots(ctx context.Context, second int64, want, rate int) (int, error)
}

// RateSource is the SES account's maximum send rate, emails per second
// (ses.Client.MaxSendRate reads it with GetAccount).
type RateSource interface {
	MaxSendRate(ctx context.Context) (float64, error)
}

// FixedRate is a configured maximum send rate (SESAME_MAX_SEND_RATE),
// which wins over the account's when set.
type FixedRate float64

// MaxSendRate returns r.
func (r FixedRate) MaxSendRate(context.Context) (float64, error) { return float64(r), nil }

// rateTTL is how long a sender trusts the rate it read: SES raises an
// account's rate rarely, and a lower rate is seen within this long.
const rateTTL = 5 * time.Minute

// Pacer keeps every sender under the SES maximum send rate: a send starts
// only in the second whose slot it holds, and a second has rate slots
// across all invocations, so no calendar second starts more than rate
// sends.
type Pacer struct {
	Slots SlotStore
	Rate  RateSource
	Now   func() time.Time
	// Sleep waits d (until the next second); time-based when nil.
	Sleep func(ctx context.Context, d time.Duration) error

	mu     sync.Mutex
	rate   int
	readAt time.Time
}

func (p *Pacer) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

func (p *Pacer) sleep(ctx context.Context, d time.Duration) error {
	if p.Sleep != nil {
		return p.Sleep(ctx, d)
	}
	return sleepCtx(ctx, d)
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// perSecond is the rate in whole sends per second, at least one.
func (p *Pacer) perSecond(ctx context.Context) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.rate > 0 && p.now().Sub(p.readAt) < rateTTL {
		return p.rate, nil
	}
	r, err := p.Rate.MaxSendRate(ctx)
	if err != nil {
		return 0, err
	}
	p.rate, p.readAt = max(1, int(math.Floor(r))), p.now()
	return p.rate, nil
}

// Take waits until it holds at least one slot and returns how many it
// holds (at most want) and when they lapse: a send starts before then or
// not at all.
func (p *Pacer) Take(ctx context.Context, want int) (int, time.Time, error) {
	rate, err := p.perSecond(ctx)
	if err != nil {
		return 0, time.Time{}, err
	}
	for {
		now := p.now()
		second := now.Unix()
		got, err := p.Slots.ClaimSlots(ctx, second, min(want, rate), rate)
		if err != nil {
			return 0, time.Time{}, err
		}
		end := time.Unix(second+1, 0)
		if got > 0 {
			return got, end, nil
		}
		if err := p.sleep(ctx, end.Sub(now)); err != nil {
			return 0, time.Time{}, err
		}
	}
}

// slotPool spends the slots of one group of sends across its workers,
// taking more from the Pacer when they run out or lapse.
type slotPool struct {
	pacer *Pacer
	mu    sync.Mutex
	left  int
	until time.Time
	want  int
}

// acquire returns once the caller holds a slot it may start a send in.
func (s *slotPool) acquire(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.left > 0 && s.pacer.now().Before(s.until) {
		s.left--
		return nil
	}
	n, until, err := s.pacer.Take(ctx, max(1, s.want))
	if err != nil {
		return err
	}
	s.left, s.until = n-1, until
	return nil
}
