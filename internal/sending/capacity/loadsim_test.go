package capacity_test

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/campaign/engine"
	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/sending/capacity"
	"github.com/sesame-mail/sesame/internal/sending/capacity/capacitytest"
	"github.com/sesame-mail/sesame/internal/unsubscribe"
)

// loadScale divides the model (1,000,000 and 10,000 recipients
// at an SES rate of 1,000 a second) in recipients and rate alike, so each
// campaign runs as long in virtual time and every share is the same.
// make test runs it at 50 (a few seconds; several times that under the
// race detector); -loadscale=1 is the full model.
var loadScale = flag.Int("loadscale", 50, "divide the load model's recipients and SES rate by this")

// scaledModel is the model divided by k.
func scaledModel(k int) loadModel {
	return loadModel{rate: 1000 / k, big: 1_000_000 / k, small: 10_000 / k, smallAt: 20 * time.Second, txShare: 0.2, seed: 23}
}

// loadModel is one run of the load simulation.
type loadModel struct {
	rate       int           // SES's maximum send rate, emails per second
	big, small int           // the two campaigns' recipients
	smallAt    time.Duration // when the small campaign starts
	txShare    float64       // transactional traffic, a share of the rate
	seed       uint64
}

// loadReport is what a run measured, all in virtual time.
type loadReport struct {
	seconds     int     // from the start until the last campaign ended
	used        float64 // SES's rate used over those seconds
	smallShare  float64 // the small campaign's part of campaign sends while it ran
	smallFor    int     // seconds the small campaign ran
	txSent      int
	tx503       int           // transactional sends refused after the retries
	txP99       time.Duration // added delay of transactional sends, 99th percentile
	txMax       time.Duration
	twice, lost int // campaign recipients sent more than once, or never
	released    int // claims released after SES throttled a campaign send
	deliveries  int
}

func (r loadReport) String() string {
	return fmt.Sprintf("%d s virtual; SES rate used %.1f %%; small campaign %.1f %% of campaign sends over its %d s (fair 50 %%); "+
		"%d transactional sends, %d refused, added delay p99 %v, max %v; campaign recipients sent twice %d, lost %d; throttled claims released %d, deliveries %d",
		r.seconds, 100*r.used, 100*r.smallShare, r.smallFor, r.txSent, r.tx503, r.txP99, r.txMax, r.twice, r.lost, r.released, r.deliveries)
}

// Three workspaces share SES: one sends a big campaign, one a small
// campaign started later, and all three transactional email at a Poisson
// 20 % of SES's rate. Transactional sends never fail for throttling and
// wait little, the small campaign gets its fair half of the campaign
// share from its start, SES's rate is used, and every campaign recipient
// gets exactly one email. The real Pacer, slot ledger rules, campaign
// sender and /send's throttle retry run over in-memory stores on
// synctest's virtual clock; SES is a token bucket (sesModel). Arrivals
// and jitter are seeded; the order of goroutines woken at one instant is
// the scheduler's, so a figure may move in its last digit between runs.
func TestLoadModel(t *testing.T) {
	m := scaledModel(*loadScale)
	var r loadReport
	synctest.Test(t, func(t *testing.T) { r = m.run(t) })
	t.Log(r)
	if r.tx503 > 0 {
		t.Errorf("%d transactional sends answered 503 for throttling", r.tx503)
	}
	if r.txP99 >= time.Second {
		t.Errorf("transactional added delay p99 %v, want under 1 s", r.txP99)
	}
	if math.Abs(r.smallShare-0.5) > 0.05 {
		t.Errorf("small campaign's share %.3f, want within 10 %% of the fair 0.5", r.smallShare)
	}
	if r.used < 0.95 {
		t.Errorf("SES rate used %.3f while there was work, want at least 0.95", r.used)
	}
	if r.twice+r.lost > 0 {
		t.Errorf("%d recipients sent twice, %d never", r.twice, r.lost)
	}
}

// run drives the model to the end of both campaigns.
func (m loadModel) run(t *testing.T) loadReport {
	ctx := context.Background()
	t0 := time.Now()
	ses := newSESModel(m.rate, t0)
	store := &simStore{campaigns: map[string]*simCampaign{}, claimed: map[string]bool{}}
	pacer := &capacity.Pacer{Slots: &capacitytest.Slots{}, Rate: capacity.FixedRate(m.rate), Shares: capacity.DefaultShares}
	q := &simQueue{}
	q.sender = &engine.Sender{
		Campaigns: store, Store: store, Workspaces: store, Reputation: store, Pacer: pacer, Transport: ses, Queue: q,
		Links: unsubscribe.Links{BaseURL: "https://mail.example", Signer: unsubscribe.Signer{Secret: []byte("k")}},
		// The MIME writer is left out: SES's model reads the envelope only.
		Build:   func(compose.Message) ([]byte, error) { return []byte("raw"), nil },
		Breaker: engine.DefaultThresholds, Logger: slog.New(slog.DiscardHandler),
	}
	starter := &engine.Starter{Campaigns: store, Queue: q}
	workspaces := []string{"big", "small", "quiet"}
	start := func(name string, n int) *simCampaign {
		now := time.Now()
		ws := simWorkspace(name)
		c := &simCampaign{n: n, progress: map[int]campaign.Progress{}, c: campaign.Campaign{
			ID: strings.Replace(ws, "00b", "00c", 1), WorkspaceID: ws, Subject: "News for {{ contact.first_name | \"you\" }}", HTML: "<p>Hello</p>",
			Sender: identity.Sender{Name: "Shop", Email: "news@" + ws + ".example"}, Status: campaign.StatusSending,
			RecipientCount: n, Chunks: campaign.Chunks(n), StartedAt: &now,
		}}
		store.mu.Lock()
		store.campaigns[c.c.ID] = c
		store.mu.Unlock()
		if err := starter.Start(ctx, c.c); err != nil {
			t.Error(err)
		}
		return c
	}
	done := func(c *simCampaign) (time.Time, bool) {
		store.mu.Lock()
		defer store.mu.Unlock()
		if c.c.CompletedAt == nil {
			return time.Time{}, false
		}
		return *c.c.CompletedAt, true
	}

	// Transactional traffic: Poisson arrivals, each a /send whose SES
	// call goes through the send path's throttle retry.
	var (
		txMu     sync.Mutex
		delays   []time.Duration
		refused  int
		txWG     sync.WaitGroup
		stop     = make(chan struct{})
		jitterMu sync.Mutex
		jitter   = rand.New(rand.NewPCG(m.seed, 1))
	)
	retry := sending.ThrottleRetry{Jitter: func(d time.Duration) time.Duration {
		jitterMu.Lock()
		defer jitterMu.Unlock()
		return d/2 + time.Duration(jitter.Int64N(int64(d/2)+1))
	}}
	perWS := m.txShare * float64(m.rate) / float64(len(workspaces))
	for k, ws := range workspaces {
		rng := rand.New(rand.NewPCG(m.seed, uint64(k)+2))
		txWG.Add(1)
		go func() {
			defer txWG.Done()
			for n := 0; ; n++ {
				wait := time.Duration(rng.ExpFloat64() / perWS * float64(time.Second))
				select {
				case <-stop:
					return
				case <-time.After(wait):
				}
				txWG.Add(1)
				go func() {
					defer txWG.Done()
					arrived := time.Now()
					in := sending.SendInput{Raw: []byte("raw"), From: "app@" + ws + ".example", To: "tx-" + ws + "-" + strconv.Itoa(n) + "@example.com",
						Tags: map[string]string{"workspace_id": simWorkspace(ws)}}
					_, err := retry.Send(ctx, ses, in)
					txMu.Lock()
					defer txMu.Unlock()
					if err != nil {
						refused++
						return
					}
					delays = append(delays, time.Since(arrived))
				}()
			}
		}()
	}

	big := start("big", m.big)
	time.Sleep(m.smallAt)
	small := start("small", m.small)
	smallFrom := time.Now()
	var end time.Time
	for {
		time.Sleep(time.Second)
		_, smallDone := done(small)
		if at, ok := done(big); ok && smallDone {
			end = at
			break
		}
	}
	close(stop)
	q.wg.Wait()
	txWG.Wait()

	var r loadReport
	r.deliveries = q.seq
	smallTo, _ := done(small)
	// Whole seconds: the rate is per second, and the ledger too.
	first, last := t0.Unix(), end.Unix()
	r.seconds = int(last - first + 1)
	var total, smallSends, campaignSends int
	for sec, kinds := range ses.bySecond {
		if sec < first || sec > last {
			continue
		}
		for kind, n := range kinds {
			total += n
			if sec >= smallFrom.Unix() && sec <= smallTo.Unix() && kind != "tx" {
				campaignSends += n
				if kind == simWorkspace("small") {
					smallSends += n
				}
			}
		}
	}
	r.used = float64(total) / float64(m.rate*r.seconds)
	r.smallShare = float64(smallSends) / float64(max(1, campaignSends))
	r.smallFor = int(smallTo.Unix() - smallFrom.Unix() + 1)
	slices.Sort(delays)
	r.txSent, r.tx503 = len(delays), refused
	if len(delays) > 0 {
		r.txP99, r.txMax = delays[len(delays)*99/100], delays[len(delays)-1]
	}
	for _, c := range []*simCampaign{big, small} {
		for i := range c.n {
			switch ses.accepted[recipient(c.c.WorkspaceID, i)] {
			case 1:
			case 0:
				r.lost++
			default:
				r.twice++
			}
		}
		if c.c.SentCount != c.n {
			t.Errorf("campaign %s counted %d sent of %d", c.c.ID, c.c.SentCount, c.n)
		}
	}
	r.released = store.released
	return r
}
