// Package capacitytest is an in-memory slot store, with the conditions
// of the table's (capacitydb.Pace), for the tests of whatever paces sends.
package capacitytest

import (
	"context"
	"maps"
	"slices"
	"sync"

	"github.com/sesame-mail/sesame/internal/sending/capacity"
)

// Slots is an in-memory capacity.SlotStore.
type Slots struct {
	mu      sync.Mutex
	seconds map[int64]capacity.Ledger
}

// Ledger returns a copy of the second's ledger.
func (s *Slots) Ledger(_ context.Context, second int64) (capacity.Ledger, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.seconds[second]
	return capacity.Ledger{Granted: maps.Clone(l.Granted), Asked: maps.Clone(l.Asked)}, nil
}

// Claim records the ask and grants n under the store's conditions.
func (s *Slots) Claim(_ context.Context, second int64, who capacity.Claimant, want, n, limit, total int) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seconds == nil {
		s.seconds = map[int64]capacity.Ledger{}
	}
	l, ok := s.seconds[second]
	if !ok {
		l = capacity.Ledger{Granted: map[capacity.Claimant]int{}, Asked: map[capacity.Claimant]int{}}
		s.seconds[second] = l
	}
	if n > 0 && (l.Granted[who]+n > limit || l.Total()+n > total) {
		return false, nil
	}
	l.Asked[who] += want
	if n > 0 {
		l.Granted[who] += n
	}
	return true, nil
}

// Granted is every slot granted in second, by claimant.
func (s *Slots) Granted(second int64) map[capacity.Claimant]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.seconds[second].Granted)
}

// Seconds lists the seconds with a ledger.
func (s *Slots) Seconds() []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Collect(maps.Keys(s.seconds))
}
