package sesame

import (
	"context"
	"io"
	"net/http"
	"time"

	"github.com/sesame-mail/sesame/clients/go/api"
)

// retrier sends a request again when the API answers 429 or 503 with a
// Retry-After, after that delay, with the same headers (Idempotency-Key
// included) and body. It gives up after max retries, or at once when the
// delay is over maxWait (a monthly quota's Retry-After runs for weeks).
type retrier struct {
	next    api.HttpRequestDoer
	max     int
	maxWait time.Duration
	sleep   func(context.Context, time.Duration) error
}

func (r *retrier) Do(req *http.Request) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		res, err := r.next.Do(req)
		if err != nil || attempt >= r.max || !retryable(res.StatusCode) {
			return res, err
		}
		wait, ok := retryAfter(res.Header)
		if !ok || wait > r.maxWait || (req.Body != nil && req.GetBody == nil) {
			return res, nil
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, maxErrorBody))
		res.Body.Close()
		if err := r.sleep(req.Context(), wait); err != nil {
			return nil, err
		}
		next := req.Clone(req.Context())
		if req.GetBody != nil {
			if next.Body, err = req.GetBody(); err != nil {
				return nil, err
			}
		}
		req = next
	}
}

func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
