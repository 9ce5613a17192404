package dynamotest

import (
	"context"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/repositories"
	"golang.org/x/sync/errgroup"
)

// Each runs do(i) for every i in from..to-1, several at a time, and fails
// t with the first error: bulk setup through the store's own methods.
func Each(t *testing.T, from, to int, do func(i int) error) {
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

// ScanCounter sums the items DynamoDB examined (ScannedCount) in Queries.
type ScanCounter struct {
	dynamo.DB
	mu      sync.Mutex
	scanned int
}

// Query counts what DynamoDB examined for the page it reads.
func (c *ScanCounter) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	out, err := c.DB.Query(ctx, in, opts...)
	if err == nil {
		c.mu.Lock()
		c.scanned += int(out.ScannedCount)
		c.mu.Unlock()
	}
	return out, err
}

// Take is the items examined since the last Take.
func (c *ScanCounter) Take() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.scanned
	c.scanned = 0
	return n
}

// StoreWithWorkspace is a fresh store with one workspace, its id, and a
// check of the key layout when the test ends.
func StoreWithWorkspace(t *testing.T) (repositories.Set, string) {
	t.Helper()
	store, _ := NewStore(t)
	t.Cleanup(func() { CheckKeyLayout(t, store.Table.Name) })
	ws, err := store.Workspaces.CreateWorkspace(t.Context(), "ws")
	if err != nil {
		t.Fatal(err)
	}
	return store, ws.ID
}
