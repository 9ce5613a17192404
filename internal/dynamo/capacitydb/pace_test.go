package capacitydb_test

import (
	"github.com/sesame-mail/sesame/internal/dynamo/capacitydb"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/sending/capacity"
	"sync"
	"testing"
)

// Concurrent claims of one second's slots never grant more than the
// second's total or a claimant's limit (a refused claim writes nothing),
// and the ledger reads back every grant and ask, an ask alone included.
func TestPaceClaims(t *testing.T) {
	store, ws := dynamotest.StoreWithWorkspace(t)
	pace := &capacitydb.Pace{Table: store.Table}
	const second = 1_800_000_000
	big, small := capacity.Claimant{Class: capacity.Campaign, Workspace: ws}, capacity.Claimant{Class: capacity.Automation, Workspace: ws}
	var mu sync.Mutex
	granted := map[capacity.Claimant]int{}
	dynamotest.Each(t, 0, 12, func(i int) error {
		who, limit := big, 14
		if i%3 == 0 {
			who, limit = small, 4
		}
		ok, err := pace.Claim(t.Context(), second, who, 5, 2, limit, 14)
		if ok {
			mu.Lock()
			granted[who] += 2
			mu.Unlock()
		}
		return err
	})
	if granted[small] > 4 || granted[big]+granted[small] > 14 || granted[big]+granted[small] < 12 {
		t.Fatalf("granted %v: want at most 4 to the automations, 12 to 14 in all", granted)
	}
	// An ask without a grant (none left) is recorded.
	if ok, err := pace.Claim(t.Context(), second, big, 7, 0, 14, 14); err != nil || !ok {
		t.Fatalf("an ask alone: %v %v", ok, err)
	}
	l, err := pace.Ledger(t.Context(), second)
	if err != nil {
		t.Fatal(err)
	}
	if l.Granted[big] != granted[big] || l.Granted[small] != granted[small] || l.Asked[big] != granted[big]/2*5+7 || l.Asked[small] != granted[small]/2*5 {
		t.Errorf("ledger %+v, granted %v", l, granted)
	}
	if l.Total() != granted[big]+granted[small] {
		t.Errorf("ledger total %d, granted %v", l.Total(), granted)
	}
	if empty, err := pace.Ledger(t.Context(), second+1); err != nil || len(empty.Granted)+len(empty.Asked) != 0 {
		t.Errorf("a second without claims: %+v %v", empty, err)
	}
}
