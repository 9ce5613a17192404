package capacity

import (
	"context"
	"math"
	"sync"
	"time"
)

// SlotStore keeps each calendar second's ledger of bulk send slots,
// shared by every sender invocation (capacitydb.Pace: one item a second).
type SlotStore interface {
	// Ledger reads what the second's claimants were granted and asked.
	Ledger(ctx context.Context, second int64) (Ledger, error)
	// Claim records that who asked want slots of the second and, when
	// n > 0, grants it n of them if its grant stays at most limit and the
	// second's total at most total; false when either would pass (the
	// ledger moved since it was read): nothing was granted.
	Claim(ctx context.Context, second int64, who Claimant, want, n, limit, total int) (bool, error)
}

// RateSource is the SES account's maximum send rate, emails per second
// (ses.Account reads it with GetAccount).
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

// claimTries bounds the re-reads of a second's ledger that moved under a
// claim; past them the claimant waits for the next second.
const claimTries = 4

// Pacer keeps bulk sending within its share of the SES maximum send rate:
// a send starts only in the second whose slot it holds, a second has the
// budget's bulk slots across all invocations, and each claimant's slots
// are its fair share (Limit).
type Pacer struct {
	Slots  SlotStore
	Rate   RateSource
	Shares Shares
	Now    func() time.Time
	// Sleep waits d (until the next second); time-based when nil.
	Sleep func(ctx context.Context, d time.Duration) error

	mu     sync.Mutex
	rate   int
	readAt time.Time
	// back caches the ledgers of the two seconds before backOf, [0] the
	// nearer: they no longer change once over.
	back   [2]Ledger
	backOf int64
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
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// budget is the second's slots at the rate last read.
func (p *Pacer) budget(ctx context.Context) (Budget, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.rate == 0 || p.now().Sub(p.readAt) >= rateTTL {
		r, err := p.Rate.MaxSendRate(ctx)
		if err != nil {
			return Budget{}, err
		}
		p.rate, p.readAt = max(1, int(math.Floor(r))), p.now()
	}
	return p.Shares.Budget(p.rate), nil
}

// recent is the demand of the two seconds before second.
func (p *Pacer) recent(ctx context.Context, second int64) (Ledger, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.backOf == second {
		return Recent(p.back[:]...), nil
	}
	var back [2]Ledger
	for k := range back {
		if p.backOf != 0 && second-1-int64(k) == p.backOf-1 {
			back[k] = p.back[0] // read when it was the nearer one
			continue
		}
		l, err := p.Slots.Ledger(ctx, second-1-int64(k))
		if err != nil {
			return Ledger{}, err
		}
		back[k] = l
	}
	p.back, p.backOf = back, second
	return Recent(back[:]...), nil
}

// Take waits until who holds at least one slot and returns how many it
// holds (at most want) and when they lapse: a send starts before then or
// not at all.
func (p *Pacer) Take(ctx context.Context, who Claimant, want int) (int, time.Time, error) {
	b, err := p.budget(ctx)
	if err != nil {
		return 0, time.Time{}, err
	}
	for {
		now := p.now()
		second := now.Unix()
		end := time.Unix(second+1, 0)
		got, err := p.claim(ctx, b, second, who, max(1, want))
		if err != nil {
			return 0, time.Time{}, err
		}
		if got > 0 {
			return got, end, nil
		}
		if err := p.sleep(ctx, end.Sub(now)); err != nil {
			return 0, time.Time{}, err
		}
	}
}

// claim takes who's share of second's slots, up to want; 0 when none is
// left this second.
func (p *Pacer) claim(ctx context.Context, b Budget, second int64, who Claimant, want int) (int, error) {
	recent, err := p.recent(ctx, second)
	if err != nil {
		return 0, err
	}
	for range claimTries {
		cur, err := p.Slots.Ledger(ctx, second)
		if err != nil {
			return 0, err
		}
		limit := Limit(b, second, recent, cur, who)
		n := max(0, min(want, limit-cur.Granted[who], b.Bulk-cur.Total()))
		if n == 0 && cur.Asked[who] > cur.Granted[who] {
			// The ledger already shows who wanting more than it got: one
			// write a second per workspace, however many of its senders
			// wait, keeps the pace item off its partition's write limit.
			return 0, nil
		}
		ok, err := p.Slots.Claim(ctx, second, who, want, n, limit, b.Bulk)
		if err != nil || n == 0 {
			return 0, err
		}
		if ok {
			return n, nil
		}
	}
	return 0, nil
}

// Pool spends the slots of one batch of sends across its workers, taking
// more from the Pacer when they run out or lapse: as many as the batch
// still wants, so no slot is taken that no send will use.
type Pool struct {
	pacer *Pacer
	who   Claimant
	// want is how many of the batch's sends hold no slot yet.
	want int
	// turn is held by the worker taking slots: a channel, not a mutex, so
	// the workers waiting for it block as they do on a timer.
	turn  chan struct{}
	left  int
	until time.Time
}

// NewPool is a pool of who's slots for a batch of want sends.
func NewPool(p *Pacer, who Claimant, want int) *Pool {
	return &Pool{pacer: p, who: who, want: max(1, want), turn: make(chan struct{}, 1)}
}

// Acquire returns once the caller holds a slot it may start a send in.
func (s *Pool) Acquire(ctx context.Context) error {
	select {
	case s.turn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.turn }()
	if s.left > 0 && s.pacer.now().Before(s.until) {
		s.left--
		s.want--
		return nil
	}
	// A send tried again after a throttle asks for one more than wanted.
	n, until, err := s.pacer.Take(ctx, s.who, max(1, s.want))
	if err != nil {
		return err
	}
	s.left, s.until = n-1, until
	s.want--
	return nil
}

// Wait returns once who holds one slot it may start a send in now.
func (p *Pacer) Wait(ctx context.Context, who Claimant) error {
	_, _, err := p.Take(ctx, who, 1)
	return err
}
