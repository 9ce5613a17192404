package dynamo_test

import (
	"testing"

	"golang.org/x/sync/errgroup"
)

// each runs do(i) for every i in from..to-1, several at a time, and fails
// t with the first error: bulk setup through the store's own methods.
func each(t *testing.T, from, to int, do func(i int) error) {
	t.Helper()
	var g errgroup.Group
	g.SetLimit(16)
	for i := from; i < to; i++ {
		g.Go(func() error { return do(i) })
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
}
