package suppression_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/suppression"
)

// storeFunc is a suppression.Store whose writes are put.
type storeFunc struct {
	put func(s suppression.Suppression) (suppression.Suppression, bool, error)
	del func(key string) (suppression.Suppression, error)
}

func (f storeFunc) PutSuppression(_ context.Context, _ string, s suppression.Suppression) (suppression.Suppression, bool, error) {
	return f.put(s)
}

func (f storeFunc) DeleteSuppression(_ context.Context, _, key string) (suppression.Suppression, error) {
	return f.del(key)
}

func (storeFunc) ListSuppressions(context.Context, string, suppression.Filter, string, int) ([]suppression.Suppression, string, bool, error) {
	return nil, "", false, nil
}

// A batch adds each address on its own: a bad one is its outcome alone,
// an address listed already keeps its entry, and the outcomes keep the
// order of the addresses.
func TestPutManyAddsEachAddress(t *testing.T) {
	var mu sync.Mutex
	listed := map[string]suppression.Suppression{"old@example.org": {Email: "old@example.org", Reason: suppression.Bounced}}
	s := &suppression.Service{Store: storeFunc{put: func(sup suppression.Suppression) (suppression.Suppression, bool, error) {
		mu.Lock()
		defer mu.Unlock()
		if had, ok := listed[sup.Email]; ok {
			return had, false, nil
		}
		listed[sup.Email] = sup
		return sup, true, nil
	}}}
	out, err := s.PutMany(t.Context(), "ws", []string{"Ann <Ann@Example.org>", "not an address", "old@example.org"}, suppression.Manual)
	if err != nil || len(out) != 3 {
		t.Fatalf("PutMany = %+v, %v", out, err)
	}
	if out[0].Err != nil || !out[0].Created || out[0].Suppression.Email != "ann@example.org" || out[0].Suppression.Reason != suppression.Manual {
		t.Errorf("new address: %+v", out[0])
	}
	if out[1].Err == nil || out[1].Created {
		t.Errorf("bad address: %+v, want refused alone", out[1])
	}
	if out[2].Err != nil || out[2].Created || out[2].Suppression.Reason != suppression.Bounced {
		t.Errorf("listed address: %+v, want its first entry kept", out[2])
	}
	if len(listed) != 2 {
		t.Errorf("list holds %v", listed)
	}
}

// A store fault fails the batch (the client sends it again: adding is
// idempotent); a batch of none or over MaxBatch is refused on emails
// before any write.
func TestPutManyRefusals(t *testing.T) {
	fault := errors.New("throttled")
	writes := 0
	s := &suppression.Service{Store: storeFunc{put: func(sup suppression.Suppression) (suppression.Suppression, bool, error) {
		writes++
		return suppression.Suppression{}, false, fault
	}}}
	if _, err := s.PutMany(t.Context(), "ws", []string{"a@example.org"}, suppression.Manual); !errors.Is(err, fault) {
		t.Errorf("store fault: %v, want it returned", err)
	}
	writes = 0
	for _, n := range []int{0, suppression.MaxBatch + 1} {
		_, err := s.PutMany(t.Context(), "ws", make([]string, n), suppression.Manual)
		if e, ok := fail.As(err); !ok || e.Kind != fail.KindInvalid || e.Param != "emails" {
			t.Errorf("%d addresses: %v, want invalid emails", n, err)
		}
	}
	if writes != 0 {
		t.Errorf("%d writes for refused batches", writes)
	}
}

// Removing an address the list does not hold is not_found.
func TestDeleteUnlisted(t *testing.T) {
	s := &suppression.Service{Store: storeFunc{del: func(string) (suppression.Suppression, error) {
		return suppression.Suppression{}, suppression.ErrNotFound
	}}}
	_, err := s.Delete(t.Context(), "ws", "nobody@example.org")
	if e, ok := fail.As(err); !ok || e.Kind != fail.KindNotFound {
		t.Errorf("Delete = %v, want not_found", err)
	}
}
