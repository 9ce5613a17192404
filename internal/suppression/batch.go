package suppression

import (
	"context"
	"errors"

	"golang.org/x/sync/errgroup"

	"github.com/sesame-mail/sesame/internal/fail"
)

// addConcurrency bounds the writes of one batch in flight at once: 1,000
// addresses take about 1,000/16 round trips.
const addConcurrency = 16

// Page is up to limit entries passing f (its Email a Key already), newest
// first, after position after ("" for the first page), with the position
// to continue after and whether more follow.
func (s *Service) Page(ctx context.Context, workspaceID string, f Filter, after string, limit int) ([]Suppression, string, bool, error) {
	return s.Store.ListSuppressions(ctx, workspaceID, f, after, limit)
}

// Put adds sup (its Email a Key already) unless its address is listed: the
// entry as stored, and whether this call added it.
func (s *Service) Put(ctx context.Context, workspaceID string, sup Suppression) (Suppression, bool, error) {
	return s.Store.PutSuppression(ctx, workspaceID, sup)
}

// CheckBatch refuses a batch add of n addresses: none, or over MaxBatch.
func CheckBatch(n int) error {
	switch {
	case n == 0:
		return fail.Invalid("emails", "emails must hold at least one address")
	case n > MaxBatch:
		return fail.Invalid("emails", "emails takes at most %d addresses per request", MaxBatch)
	}
	return nil
}

// Added is the outcome of one address of a batch add.
type Added struct {
	Suppression Suppression
	Created     bool
	// Err says why the address alone was refused (it does not parse); the
	// others are added all the same.
	Err error
}

// PutMany adds every address that parses, each on its own and a bounded
// number at once, with reason; the outcomes are in the order of
// addresses. A store fault fails the whole batch: adding is idempotent,
// so the caller sends it again.
func (s *Service) PutMany(ctx context.Context, workspaceID string, addresses []string, reason Reason) ([]Added, error) {
	if err := CheckBatch(len(addresses)); err != nil {
		return nil, err
	}
	out := make([]Added, len(addresses))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(addConcurrency)
	for i, address := range addresses {
		addr, err := ParseEmail(address)
		if err != nil {
			out[i].Err = err
			continue
		}
		g.Go(func() error {
			var err error
			out[i].Suppression, out[i].Created, err = s.Store.PutSuppression(ctx, workspaceID, Suppression{Email: addr, Reason: reason})
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// Delete takes the entry keyed key off the list and returns it; not_found
// when the list holds no such entry.
func (s *Service) Delete(ctx context.Context, workspaceID, key string) (Suppression, error) {
	sup, err := s.Store.DeleteSuppression(ctx, workspaceID, key)
	if errors.Is(err, ErrNotFound) {
		return Suppression{}, fail.NotFound("address on the do-not-send list")
	}
	return sup, err
}
