package engine

import (
	"context"
	"sync"

	"github.com/sesame-mail/sesame/internal/campaign"
)

// statusGate answers whether a campaign is still sending, from a read
// that started after the question was asked: a cancel or a pause
// answered before a send asks stops that send. Questions asked while a
// read is under way share the next read, so a job's workers cost one
// read per round trip, not one per email.
type statusGate struct {
	read func(ctx context.Context) (campaign.Status, error)

	mu sync.Mutex
	// next gathers the questions asked since the running read started.
	next *gateRound
	// reading is true while a goroutine serves rounds.
	reading bool
}

type gateRound struct {
	done   chan struct{}
	status campaign.Status
	err    error
}

// sending is true while the campaign is sending. ctx bounds the wait
// and the read it starts.
func (g *statusGate) sending(ctx context.Context) (bool, error) {
	g.mu.Lock()
	r := g.next
	if r == nil {
		r = &gateRound{done: make(chan struct{})}
		g.next = r
	}
	if !g.reading {
		g.reading = true
		go g.serve(context.WithoutCancel(ctx))
	}
	g.mu.Unlock()
	select {
	case <-r.done:
		return r.status == campaign.StatusSending, r.err
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// serve reads once for each round that gathered questions, until none
// is waiting.
func (g *statusGate) serve(ctx context.Context) {
	for {
		g.mu.Lock()
		r := g.next
		g.next = nil
		if r == nil {
			g.reading = false
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
		r.status, r.err = g.read(ctx)
		close(r.done)
	}
}
