package batch_test

import (
	"context"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/queue/batch"
)

// The wait doubles from 2 s with each delivery up to the ceiling, always
// in the upper half of its step.
func TestBackoffDelay(t *testing.T) {
	b := batch.Backoff{Ceiling: 10 * time.Minute}
	for receives, step := range map[int]time.Duration{
		0: 2 * time.Second, 1: 2 * time.Second, 2: 4 * time.Second, 3: 8 * time.Second,
		9: 512 * time.Second, 10: 10 * time.Minute, 64: 10 * time.Minute,
	} {
		for range 50 {
			if d := b.Delay(receives); d < step/2 || d > step {
				t.Fatalf("Delay(%d) = %s, want within [%s, %s]", receives, d, step/2, step)
			}
		}
	}
}

type postponed struct {
	receipt string
	delay   time.Duration
}

type recorder []postponed

func (r *recorder) Postpone(_ context.Context, receipt string, d time.Duration) error {
	*r = append(*r, postponed{receipt, d})
	return nil
}

// Retry postpones the delivery it is given; without a Postponer (or a
// receipt) the queue's visibility timeout applies.
func TestBackoffRetry(t *testing.T) {
	var r recorder
	b := batch.Backoff{Later: &r, Ceiling: time.Minute}
	if err := b.Retry(t.Context(), batch.Message{ID: "1", Receipt: "r1", ReceiveCount: 3}); err != nil {
		t.Fatal(err)
	}
	if len(r) != 1 || r[0].receipt != "r1" || r[0].delay < 4*time.Second || r[0].delay > 8*time.Second {
		t.Fatalf("postponed %+v, want r1 by 4 to 8 s", r)
	}
	if err := (batch.Backoff{Ceiling: time.Minute}).Retry(t.Context(), batch.Message{Receipt: "r"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Retry(t.Context(), batch.Message{ID: "2"}); err != nil || len(r) != 1 {
		t.Fatalf("a message without a receipt was postponed: %+v %v", r, err)
	}
}
