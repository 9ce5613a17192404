// Package bench measures the accept path and the status pipeline against
// the local emulators (`make bench`): time spent outside DynamoDB and SES
// (handler overhead), DynamoDB calls and capacity units per request, and
// from those counts and public prices the infrastructure cost per 1,000
// emails; and each function's start against a binary that only builds
// its SDK clients (init_test.go). Nothing here runs in `make test`.
package bench

import (
	"context"
	"sync"
	"time"

	"github.com/sesame-mail/sesame/internal/sending"
)

// timedSES wraps the SES transport: it counts calls and sums their time.
type timedSES struct {
	Next sending.Transport

	mu     sync.Mutex
	calls  int
	waited time.Duration
}

func (t *timedSES) Send(ctx context.Context, in sending.SendInput) (string, error) {
	start := time.Now()
	id, err := t.Next.Send(ctx, in)
	t.mu.Lock()
	t.calls++
	t.waited += time.Since(start)
	t.mu.Unlock()
	return id, err
}

func (t *timedSES) reset() {
	t.mu.Lock()
	t.calls, t.waited = 0, 0
	t.mu.Unlock()
}

func (t *timedSES) snapshot() (int, time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.calls, t.waited
}
