package sending

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/fail"
)

// fakeClock is a clock whose Sleep moves it on.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time { return c.now }

func (c *fakeClock) Sleep(_ context.Context, d time.Duration) error {
	c.now = c.now.Add(d)
	return nil
}

// transportFunc is a Transport of one function.
type transportFunc func(ctx context.Context, in SendInput) (string, error)

func (f transportFunc) Send(ctx context.Context, in SendInput) (string, error) { return f(ctx, in) }

func TestThrottleRetry(t *testing.T) {
	throttled := fmt.Errorf("ses: %w: rate exceeded", ErrThrottled)
	for name, tc := range map[string]struct {
		answers   []error // the try's answer, the last one repeating
		wantTries int
		wantErr   error
		wantWaits time.Duration
	}{
		"taken at once":          {[]error{nil}, 1, nil, 0},
		"a brief throttle":       {[]error{throttled, throttled, nil}, 3, nil, 150 * time.Millisecond},
		"throttled past window":  {[]error{throttled}, 6, ErrThrottled, 1550 * time.Millisecond},
		"a fault is not retried": {[]error{errors.New("connection reset")}, 1, nil, 0},
		"a refusal is final":     {[]error{fail.Errorf(fail.KindInvalid, "", "", "address rejected")}, 1, nil, 0},
	} {
		clk := &fakeClock{now: time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)}
		start := clk.now
		tries := 0
		tr := transportFunc(func(context.Context, SendInput) (string, error) {
			err := tc.answers[min(tries, len(tc.answers)-1)]
			tries++
			if err != nil {
				return "", err
			}
			return "msg-1", nil
		})
		r := ThrottleRetry{Now: clk.Now, Sleep: clk.Sleep, Jitter: func(d time.Duration) time.Duration { return d }}
		id, err := r.Send(t.Context(), tr, SendInput{})
		if tries != tc.wantTries {
			t.Errorf("%s: %d tries, want %d", name, tries, tc.wantTries)
		}
		if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
			t.Errorf("%s: err %v, want %v", name, err, tc.wantErr)
		}
		if err == nil && id != "msg-1" {
			t.Errorf("%s: id %q", name, id)
		}
		if waited := clk.now.Sub(start); waited != tc.wantWaits || waited > DefaultThrottleWindow {
			t.Errorf("%s: waited %v, want %v (within %v)", name, waited, tc.wantWaits, DefaultThrottleWindow)
		}
	}
}

// The jitter draws each wait within [d/2, d].
func TestThrottleRetryJitter(t *testing.T) {
	var r ThrottleRetry
	for range 1000 {
		if d := r.jitter(100 * time.Millisecond); d < 50*time.Millisecond || d > 100*time.Millisecond {
			t.Fatalf("wait %v outside [50ms, 100ms]", d)
		}
	}
}
