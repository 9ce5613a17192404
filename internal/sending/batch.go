package sending

import (
	"context"
	"strconv"

	"golang.org/x/sync/errgroup"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/fail"
)

// MaxBatch is how many emails one batch takes.
const MaxBatch = 100

// batchConcurrency bounds the sends of one batch in flight at once.
const batchConcurrency = 5

// BatchItem is one email of a batch: its request as read, or why it
// could not be read (Err).
type BatchItem struct {
	Request Request
	Err     error
}

// BatchResult is one email's outcome: its answer, or the error it would
// have had on its own.
type BatchResult struct {
	Response *Response
	Err      error
}

// CheckBatch refuses a batch of n emails: none, or over MaxBatch.
func CheckBatch(n int) error {
	switch {
	case n == 0:
		return fail.Invalid("emails", "emails must hold at least one email")
	case n > MaxBatch:
		return fail.Invalid("emails", "emails takes at most %d emails per request", MaxBatch)
	}
	return nil
}

// SendBatch validates and sends every item as Send would, each on its own
// and a bounded number at once; the results keep the items' order. An
// item's fault is its result, not the batch's: others may have gone out
// already. With idemKey, each item claims its own key derived from it
// and its own hash for route, so a replayed or concurrent batch sends
// every item at most once.
func (s *Service) SendBatch(ctx context.Context, p apikey.Principal, items []BatchItem, idemKey, route string) ([]BatchResult, error) {
	if err := CheckBatch(len(items)); err != nil {
		return nil, err
	}
	out := make([]BatchResult, len(items))
	made := make([]int, len(items)) // emails each item made: none for a replay
	var g errgroup.Group
	g.SetLimit(batchConcurrency)
	for i, it := range items {
		if it.Err != nil {
			out[i].Err = it.Err
			continue
		}
		g.Go(func() error {
			if err := it.Request.Validate(); err != nil {
				out[i].Err = err
				return nil
			}
			key, hash := "", ""
			if idemKey != "" {
				// A space cannot occur in a client's key, so no derived key
				// collides with one.
				key, hash = idemKey+" "+strconv.Itoa(i), RequestHash(route, it.Request)
			}
			o, err := s.Send(ctx, p, it.Request, key, hash)
			if err != nil {
				out[i].Err = err
				return nil
			}
			out[i].Response, made[i] = &o.Body, o.Made()
			return nil
		})
	}
	_ = g.Wait() // items never return an error
	total := 0
	for _, n := range made {
		total += n
	}
	s.NoteSends(ctx, p, total)
	return out, nil
}
