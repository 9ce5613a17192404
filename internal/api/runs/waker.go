package runs

import (
	"context"
	"time"

	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/queue"
)

// Waker puts one wake-up on the automations queue after a delay.
type Waker struct{ Queue *queue.Publisher }

func (w Waker) Wake(ctx context.Context, m automation.WakeMessage, delay time.Duration) error {
	return w.Queue.EnqueueAfter(ctx, m, delay)
}
