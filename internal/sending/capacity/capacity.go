// Package capacity shares the SES maximum send rate by rule. Transactional
// email (/send) takes no slot and is never held back; campaigns and
// automations together take at most the bulk share of each second, the
// automations part of it is theirs whenever they want it, and within a
// class every workspace gets a fair (max-min) share. The rules here are
// pure; the Pacer applies them to each second's ledger in the slot store.
package capacity

import (
	"math"
	"sort"
)

// Class is a kind of bulk sending.
type Class uint8

const (
	Campaign Class = iota + 1
	Automation
)

// Claimant is who claims slots: one class of one workspace.
type Claimant struct {
	Class     Class
	Workspace string
}

// Shares are the parts of the SES rate bulk sending may use.
type Shares struct {
	// Bulk is the most campaigns and automations together take; the rest
	// is headroom for transactional sends.
	Bulk float64
	// Automation is the part of the SES rate kept for automations within
	// Bulk whenever they want it; campaigns take what automations leave,
	// and automations what campaigns leave.
	Automation float64
}

// DefaultShares: 80 % bulk, of which 20 % of SES's rate is the automations'.
var DefaultShares = Shares{Bulk: 0.8, Automation: 0.2}

// Budget is a second's slots by class.
type Budget struct {
	// Bulk is every bulk slot of the second.
	Bulk int
	// Automation is the slots automations may always take within Bulk.
	Automation int
}

// Budget is the slots of a second at rate sends per second: at least one
// bulk slot, so a campaign moves even on the sandbox's one per second.
func (s Shares) Budget(rate int) Budget {
	bulk := max(1, int(math.Floor(float64(rate)*s.Bulk)))
	return Budget{Bulk: bulk, Automation: min(bulk, int(math.Floor(float64(rate)*s.Automation)))}
}

// Ledger is what one second's claimants were granted and asked.
type Ledger struct {
	Granted map[Claimant]int
	Asked   map[Claimant]int
}

// Total is every slot granted in the second.
func (l Ledger) Total() int {
	n := 0
	for _, g := range l.Granted {
		n += g
	}
	return n
}

// unbounded is the demand of a claimant that asked for more than it got:
// how much more is not known, so it may take whatever others leave.
const unbounded = math.MaxInt32

// Recent is the demand of the seconds in ls, as Asked: a claimant that
// got all it asked in a second wanted that much, one that asked for more
// than it got wanted more than any share (unbounded); the second it
// wanted most counts. A sender between two batches may skip a second;
// looking two back keeps its share.
func Recent(ls ...Ledger) Ledger {
	out := Ledger{Asked: map[Claimant]int{}}
	for _, l := range ls {
		for c, n := range l.Asked {
			if n > l.Granted[c] {
				n = unbounded
			}
			out.Asked[c] = max(out.Asked[c], n)
		}
	}
	return out
}

// Limit is how many slots who may hold in second (all told): its fair
// share of its class's part of the budget. Demand is recent's (Recent)
// or, when more, cur's; a claimant seen only in cur, and who itself when
// unseen, may want everything. Unused shares go to those who want more
// (max-min), so a class or workspace alone takes it all.
func Limit(b Budget, second int64, recent, cur Ledger, who Claimant) int {
	demand := map[Claimant]int{}
	for c, n := range recent.Asked {
		demand[c] = min(n, b.Bulk)
	}
	for c, n := range Recent(cur).Asked {
		if d, seen := demand[c]; !seen {
			demand[c] = b.Bulk
		} else {
			demand[c] = max(d, min(n, b.Bulk))
		}
	}
	if _, seen := demand[who]; !seen {
		demand[who] = b.Bulk
	}
	var auto, camp int
	for c, n := range demand {
		if c.Class == Automation {
			auto += n
		} else {
			camp += n
		}
	}
	autoCap := min(auto, max(b.Automation, b.Bulk-camp), b.Bulk)
	classCap := b.Bulk - autoCap
	if who.Class == Automation {
		classCap = autoCap
	}
	var mates []Claimant
	for c := range demand {
		if c.Class == who.Class {
			mates = append(mates, c)
		}
	}
	return waterfill(classCap, second, mates, demand)[who]
}

// waterfill splits capacity among claimants, none above its demand, the
// rest evenly (max-min fairness). The slots an even split leaves over go
// one each to claimants in an order that turns with the second, so no
// one keeps them.
func waterfill(capacity int, second int64, claimants []Claimant, demand map[Claimant]int) map[Claimant]int {
	sort.Slice(claimants, func(i, j int) bool { return claimants[i].Workspace < claimants[j].Workspace })
	out := make(map[Claimant]int, len(claimants))
	open := claimants
	for len(open) > 0 && capacity > 0 {
		level := capacity / len(open)
		var still []Claimant
		for _, c := range open {
			if demand[c]-out[c] <= level {
				capacity -= demand[c] - out[c]
				out[c] = demand[c]
				continue
			}
			still = append(still, c)
		}
		if len(still) == len(open) {
			// Everyone wants more than an even split: share it.
			for _, c := range still {
				out[c] += level
			}
			left := capacity - level*len(still)
			first := int(second % int64(len(still)))
			if first < 0 {
				first += len(still)
			}
			for k := range left {
				out[still[(first+k)%len(still)]]++
			}
			return out
		}
		open = still
	}
	return out
}
