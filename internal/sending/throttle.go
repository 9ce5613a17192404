package sending

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"
)

// ErrThrottled is a provider's refusal for rate (SES's throttling: the
// ses adapter's errors wrap it): the same message may go a moment later.
var ErrThrottled = errors.New("throttled by the email provider")

// The default bounds of ThrottleRetry.
const (
	// DefaultThrottleWindow is how long after the first try a throttled
	// send may start a new one: SES's rate is per second, so a throttle
	// that outlasts this is no brief one.
	DefaultThrottleWindow = 2 * time.Second
	// DefaultThrottleWait is the first wait; each next one doubles.
	DefaultThrottleWait = 50 * time.Millisecond
)

// ThrottleRetry tries a throttled send again within the request, after
// short, doubling, jittered waits, so a brief throttle never reaches the
// caller. A try starts only within Window of the first, so the retries
// add at most Window plus one call to the answer time (with the SES call
// bound of 12 s: 14 s, well under API Gateway's 29 s).
type ThrottleRetry struct {
	Window time.Duration // DefaultThrottleWindow when zero
	Wait   time.Duration // DefaultThrottleWait when zero
	Now    func() time.Time
	// Sleep waits d; time-based when nil.
	Sleep func(ctx context.Context, d time.Duration) error
	// Jitter draws the wait actually waited from d; uniform in [d/2, d]
	// when nil, so callers throttled together do not come back together.
	Jitter func(d time.Duration) time.Duration
}

// Send sends in through t, again while SES throttles it within the window.
func (r ThrottleRetry) Send(ctx context.Context, t Transport, in SendInput) (string, error) {
	window, wait := r.Window, r.Wait
	if window <= 0 {
		window = DefaultThrottleWindow
	}
	if wait <= 0 {
		wait = DefaultThrottleWait
	}
	now := r.Now
	if now == nil {
		now = time.Now
	}
	first := now()
	for {
		id, err := t.Send(ctx, in)
		if err == nil || !errors.Is(err, ErrThrottled) {
			return id, err
		}
		d := r.jitter(wait)
		if now().Add(d).Sub(first) > window {
			return "", err
		}
		if serr := r.sleep(ctx, d); serr != nil {
			return "", err
		}
		wait *= 2
	}
}

func (r ThrottleRetry) jitter(d time.Duration) time.Duration {
	if r.Jitter != nil {
		return r.Jitter(d)
	}
	return d/2 + rand.N(d/2+1)
}

func (r ThrottleRetry) sleep(ctx context.Context, d time.Duration) error {
	if r.Sleep != nil {
		return r.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
