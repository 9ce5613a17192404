package batch

import (
	"context"
	"math/rand/v2"
	"time"
)

// Postponer delays the next delivery of a received message: how a retry
// is scheduled on the queue's clock (queue.Visibility in production).
type Postponer interface {
	Postpone(ctx context.Context, receipt string, delay time.Duration) error
}

// FirstBackoff is the wait before the second delivery of a message that
// met a transient fault; each later delivery waits twice as long.
const FirstBackoff = 2 * time.Second

// Backoff brings a message that met a transient fault (a store pause, SES
// throttling) back after a short wait that grows with each delivery, not
// after the queue's whole visibility timeout: a pause of seconds costs
// seconds, a long outage is not hammered.
type Backoff struct {
	// Later postpones the message; nil leaves the visibility timeout.
	Later Postponer
	// Ceiling bounds one wait (the queue's visibility timeout, say).
	Ceiling time.Duration
}

// Delay is the wait after the receiveCount-th delivery (1 for the
// first): FirstBackoff doubled at each, at most Ceiling, jittered into
// its upper half so that messages failed together come back apart.
func (b Backoff) Delay(receiveCount int) time.Duration {
	d := b.Ceiling
	if n := max(receiveCount, 1) - 1; n < 30 {
		d = min(FirstBackoff<<n, b.Ceiling)
	}
	return d/2 + rand.N(d/2+1)
}

// Retry postpones m's next delivery by Delay; the caller still reports m
// as a failure of its batch so that it stays on the queue.
func (b Backoff) Retry(ctx context.Context, m Message) error {
	if b.Later == nil || m.Receipt == "" {
		return nil
	}
	return b.Later.Postpone(ctx, m.Receipt, b.Delay(m.ReceiveCount))
}
