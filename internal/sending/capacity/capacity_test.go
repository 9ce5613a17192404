package capacity

import "testing"

func TestBudget(t *testing.T) {
	for name, tc := range map[string]struct {
		shares Shares
		rate   int
		want   Budget
	}{
		"defaults":          {DefaultShares, 1000, Budget{Bulk: 800, Automation: 200}},
		"sandbox":           {DefaultShares, 1, Budget{Bulk: 1, Automation: 0}},
		"starting rate":     {DefaultShares, 14, Budget{Bulk: 11, Automation: 2}},
		"all bulk":          {Shares{Bulk: 1, Automation: 0.5}, 10, Budget{Bulk: 10, Automation: 5}},
		"automation capped": {Shares{Bulk: 0.5, Automation: 0.9}, 10, Budget{Bulk: 5, Automation: 5}},
	} {
		if got := tc.shares.Budget(tc.rate); got != tc.want {
			t.Errorf("%s: %+v, want %+v", name, got, tc.want)
		}
	}
}

func TestLimit(t *testing.T) {
	a, b, c := Claimant{Campaign, "a"}, Claimant{Campaign, "b"}, Claimant{Campaign, "c"}
	auto := Claimant{Automation, "a"}
	budget := Budget{Bulk: 800, Automation: 200}
	asked := func(m map[Claimant]int) Ledger { return Ledger{Asked: m} }
	for name, tc := range map[string]struct {
		prev, cur Ledger
		who       Claimant
		second    int64
		want      int
	}{
		"alone takes every bulk slot":           {Ledger{}, Ledger{}, a, 0, 800},
		"alone, seen asking":                    {asked(map[Claimant]int{a: 5000}), Ledger{}, a, 0, 800},
		"two campaigns split evenly":            {asked(map[Claimant]int{a: 5000, b: 5000}), Ledger{}, b, 0, 400},
		"a newcomer counts as wanting all":      {asked(map[Claimant]int{a: 5000}), Ledger{}, b, 0, 400},
		"a newcomer seen this second":           {asked(map[Claimant]int{a: 5000}), asked(map[Claimant]int{c: 50}), a, 0, 400},
		"what one leaves goes to another":       {asked(map[Claimant]int{a: 5000, b: 100}), Ledger{}, a, 0, 700},
		"the small one gets all it wants":       {asked(map[Claimant]int{a: 5000, b: 100}), Ledger{}, b, 0, 100},
		"three, remainder turns (0)":            {asked(map[Claimant]int{a: 5000, b: 5000, c: 5000}), Ledger{}, a, 0, 267},
		"three, remainder turns (1)":            {asked(map[Claimant]int{a: 5000, b: 5000, c: 5000}), Ledger{}, a, 1, 266},
		"automations keep their share":          {asked(map[Claimant]int{a: 5000, auto: 5000}), Ledger{}, auto, 0, 200},
		"campaigns take the rest":               {asked(map[Claimant]int{a: 5000, auto: 5000}), Ledger{}, a, 0, 600},
		"campaigns take what autos leave":       {asked(map[Claimant]int{a: 5000, auto: 50}), Ledger{}, a, 0, 750},
		"automations take what campaigns leave": {asked(map[Claimant]int{a: 100, auto: 5000}), Ledger{}, auto, 0, 700},
		"automation alone takes all bulk":       {Ledger{}, Ledger{}, auto, 0, 800},
	} {
		if got := Limit(budget, tc.second, tc.prev, tc.cur, tc.who); got != tc.want {
			t.Errorf("%s: %d, want %d", name, got, tc.want)
		}
	}
}

func TestRecent(t *testing.T) {
	a, b, c := Claimant{Campaign, "a"}, Claimant{Campaign, "b"}, Claimant{Automation, "c"}
	older := Ledger{Granted: map[Claimant]int{a: 10, b: 5}, Asked: map[Claimant]int{a: 10, b: 50}}
	newer := Ledger{Granted: map[Claimant]int{a: 3, c: 1}, Asked: map[Claimant]int{a: 3, c: 1}}
	got := Recent(older, newer).Asked
	want := map[Claimant]int{
		a: 10,        // served in full both seconds: the more it asked
		b: unbounded, // refused some: wants more than any share
		c: 1,
	}
	for who, n := range want {
		if got[who] != n {
			t.Errorf("%v: demand %d, want %d", who, got[who], n)
		}
	}
	if len(got) != len(want) {
		t.Errorf("demand %v, want %v", got, want)
	}
}

// However demand falls, the shares never add up past the bulk budget.
func TestLimitNeverAboveBulk(t *testing.T) {
	budget := Budget{Bulk: 97, Automation: 23}
	for seed := range 200 {
		prev := Ledger{Asked: map[Claimant]int{}}
		n := 1 + seed%7
		for i := range n {
			class := Campaign
			if i%3 == 2 {
				class = Automation
			}
			prev.Asked[Claimant{class, string(rune('a' + i))}] = 1 + (seed*31+i*17)%150
		}
		sum := 0
		for who := range prev.Asked {
			sum += Limit(budget, int64(seed), prev, Ledger{}, who)
		}
		if sum > budget.Bulk {
			t.Fatalf("seed %d: shares add up to %d over %d (%v)", seed, sum, budget.Bulk, prev.Asked)
		}
	}
}
