package capacity_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/campaign/engine"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/queue/batch"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// sesModel is SES as the simulation sees it: a token bucket filled at the
// account's maximum send rate, holding at most one second of it (the
// short burst SES tolerates); a send finding it empty is throttled, and
// a throttled call uses no token. Each accepted message is counted by
// recipient and by virtual second and kind of send.
type sesModel struct {
	mu       sync.Mutex
	rate     float64
	tokens   float64
	last     time.Time
	accepted map[string]int           // recipient → messages taken
	bySecond map[int64]map[string]int // second → kind → messages taken
}

func newSESModel(rate int, now time.Time) *sesModel {
	return &sesModel{rate: float64(rate), tokens: float64(rate), last: now, accepted: map[string]int{}, bySecond: map[int64]map[string]int{}}
}

// kindOf is a send's kind, read from its envelope: "tx" for
// transactional, else the campaign's workspace.
func kindOf(in sending.SendInput) string {
	if strings.HasPrefix(in.To, "tx-") {
		return "tx"
	}
	return in.Tags["workspace_id"]
}

func (m *sesModel) Send(_ context.Context, in sending.SendInput) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	m.tokens = min(m.rate, m.tokens+m.rate*now.Sub(m.last).Seconds())
	m.last = now
	if m.tokens < 1 {
		return "", fmt.Errorf("%w: maximum sending rate exceeded", sending.ErrThrottled)
	}
	m.tokens--
	m.accepted[in.To]++
	sec := now.Unix()
	if m.bySecond[sec] == nil {
		m.bySecond[sec] = map[string]int{}
	}
	m.bySecond[sec][kindOf(in)]++
	return strconv.Itoa(len(m.accepted)), nil
}

// simCampaign is one sending campaign of the simulation: its frozen
// recipients are r<i>@<workspace>, contact ids c<i>, synthesised.
type simCampaign struct {
	c        campaign.Campaign
	n        int
	progress map[int]campaign.Progress
}

// simStore is every store the campaign sender reads and writes, in
// memory, for several workspaces' campaigns.
type simStore struct {
	mu        sync.Mutex
	campaigns map[string]*simCampaign // by campaign id
	claimed   map[string]bool         // email ids claimed
	released  int
}

func (s *simStore) campaign(id string) (*simCampaign, error) {
	c, ok := s.campaigns[id]
	if !ok {
		return nil, campaign.ErrNotFound
	}
	return c, nil
}

func (s *simStore) GetCampaign(_ context.Context, _, id string) (campaign.Campaign, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.campaign(id)
	if err != nil {
		return campaign.Campaign{}, err
	}
	return c.c, nil
}

func (s *simStore) GetCampaignRecord(ctx context.Context, ws, id string) (campaign.Campaign, error) {
	return s.GetCampaign(ctx, ws, id)
}

func (s *simStore) ReadChunk(_ context.Context, _, id string, n int) ([]string, error) {
	s.mu.Lock()
	c, err := s.campaign(id)
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	var ids []string
	for i := n * campaign.ChunkSize; i < min(c.n, (n+1)*campaign.ChunkSize); i++ {
		ids = append(ids, contactID(i))
	}
	return ids, nil
}

// contactID is the id of a campaign's i-th recipient.
func contactID(i int) string { return fmt.Sprintf("00000000-0000-7000-8000-%012d", i) }

// recipient is the address of a campaign's i-th recipient in ws.
func recipient(ws string, i int) string { return "r" + strconv.Itoa(i) + "@" + ws + ".example" }

// simWorkspace is the id of the simulation's workspace called name.
func simWorkspace(name string) string {
	return map[string]string{"big": "0190c000-0000-7000-8000-0000000000b1", "small": "0190c000-0000-7000-8000-0000000000b2",
		"quiet": "0190c000-0000-7000-8000-0000000000b3"}[name]
}

func (s *simStore) TransitionCampaign(_ context.Context, _, id string, from []campaign.Status, to campaign.Status, at time.Time, _ string) (campaign.Campaign, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.campaign(id)
	if err != nil {
		return campaign.Campaign{}, err
	}
	for _, f := range from {
		if c.c.Status == f {
			c.c.Status = to
			if to == campaign.StatusSent {
				c.c.CompletedAt = &at
			}
			return c.c, nil
		}
	}
	return campaign.Campaign{}, campaign.ErrConflict
}

func (s *simStore) Recipients(_ context.Context, ws string, ids []string) ([]campaign.Recipient, error) {
	out := make([]campaign.Recipient, len(ids))
	for k, id := range ids {
		i, err := strconv.Atoi(id[len(id)-12:])
		if err != nil {
			return nil, err
		}
		out[k] = campaign.Recipient{ContactID: id, Email: recipient(ws, i), Subscribed: true}
	}
	return out, nil
}

func (s *simStore) ClaimEmail(_ context.Context, e email.Email) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.claimed[e.ID] {
		return false, nil
	}
	s.claimed[e.ID] = true
	return true, nil
}

func (s *simStore) ReleaseEmail(_ context.Context, _, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.claimed, id)
	s.released++
	return nil
}

// FailEmail is never called: every simulated recipient's message builds
// and SES refuses none for good.
func (s *simStore) FailEmail(_ context.Context, _, _, reason string) error {
	return fmt.Errorf("the simulation refuses no email, yet: %s", reason)
}

func (s *simStore) Progress(_ context.Context, _, id string, chunk int) (campaign.Progress, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.campaign(id)
	if err != nil {
		return campaign.Progress{}, err
	}
	return c.progress[chunk], nil
}

func (s *simStore) CommitProgress(_ context.Context, _, id string, chunk int, prev, next campaign.Progress, sent, skipped int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.campaign(id)
	if err != nil {
		return err
	}
	if c.progress[chunk].Version != prev.Version {
		return campaign.ErrProgressMoved
	}
	c.progress[chunk] = next
	c.c.SentCount += sent
	c.c.SkippedCount += skipped
	return nil
}

func (s *simStore) MonthlyUsage(context.Context, string, string) (int, error) { return 0, nil }

func (s *simStore) GetWorkspace(_ context.Context, id string) (workspace.Workspace, error) {
	return workspace.Workspace{ID: id, Name: id, PostalAddress: "1 Main St, Springfield"}, nil
}

func (s *simStore) CountSent(context.Context, string, time.Time, int) error { return nil }

func (s *simStore) Tally(context.Context, string, time.Time, time.Time) (campaign.Tally, error) {
	return campaign.Tally{}, nil
}

// simQueue is the sends queue with the campaign sender as its consumer:
// like Lambda's SQS poller, every message is delivered at once to an
// invocation of its own; one the sender reports for retry comes back a
// second later.
type simQueue struct {
	sender *engine.Sender
	wg     sync.WaitGroup
	mu     sync.Mutex
	seq    int
}

func (q *simQueue) EnqueueAll(_ context.Context, bodies [][]byte) error {
	for _, b := range bodies {
		q.mu.Lock()
		q.seq++
		id := strconv.Itoa(q.seq)
		q.mu.Unlock()
		q.deliver(id, string(b), 0)
	}
	return nil
}

func (q *simQueue) deliver(id, body string, after time.Duration) {
	q.wg.Add(1)
	go func() {
		defer q.wg.Done()
		time.Sleep(after)
		ctx := context.Background()
		q.mu.Lock()
		q.seq++
		q.mu.Unlock()
		if retry := q.sender.Handle(ctx, []batch.Message{{ID: id, Body: body}}); len(retry) > 0 {
			q.deliver(id, body, time.Second)
		}
	}()
}
