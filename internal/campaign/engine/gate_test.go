package engine

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/campaign"
)

// A question is answered by a read that started after it was asked: a
// status changed before asking is always seen, even while an older read
// is under way.
func TestGateReadsAfterTheQuestion(t *testing.T) {
	var status atomic.Value
	status.Store(campaign.StatusSending)
	inRead, release := make(chan struct{}), make(chan struct{})
	var reads atomic.Int32
	g := &statusGate{read: func(context.Context) (campaign.Status, error) {
		s := status.Load().(campaign.Status) // the read's moment
		if reads.Add(1) == 1 {
			close(inRead)
			<-release
		}
		return s, nil
	}}
	first := make(chan bool)
	go func() {
		ok, _ := g.sending(t.Context())
		first <- ok
	}()
	<-inRead // the first read took its value: sending
	status.Store(campaign.StatusCancelled)
	second := make(chan bool)
	go func() {
		ok, _ := g.sending(t.Context())
		second <- ok
	}()
	close(release)
	if !<-first {
		t.Error("the question asked before the cancel read not sending")
	}
	if <-second {
		t.Error("the question asked after the cancel read sending: it shared the older read")
	}
}

// Questions asked together share reads: many workers cost a few reads,
// not one each; a read's fault reaches every question of its round.
func TestGateSharesReads(t *testing.T) {
	var reads atomic.Int32
	fault := errors.New("store down")
	g := &statusGate{read: func(context.Context) (campaign.Status, error) {
		reads.Add(1)
		time.Sleep(2 * time.Millisecond) // a round trip, during which questions gather
		return "", fault
	}}
	var wg sync.WaitGroup
	var faults atomic.Int32
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if ok, err := g.sending(t.Context()); !ok && errors.Is(err, fault) {
				faults.Add(1)
			}
		}()
	}
	wg.Wait()
	if faults.Load() != 64 {
		t.Errorf("%d of 64 questions got the fault", faults.Load())
	}
	if reads.Load() > 16 {
		t.Errorf("%d reads for 64 questions asked together", reads.Load())
	}
}

// A question whose context ends stops waiting.
func TestGateContextEnds(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	g := &statusGate{read: func(context.Context) (campaign.Status, error) {
		<-block
		return campaign.StatusSending, nil
	}}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if ok, err := g.sending(ctx); ok || !errors.Is(err, context.Canceled) {
		t.Fatalf("sending = %v, %v", ok, err)
	}
}
