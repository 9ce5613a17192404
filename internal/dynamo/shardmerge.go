package dynamo

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"golang.org/x/sync/errgroup"

	"github.com/sesame-mail/sesame/internal/dynamo/schema"
)

// shardReader is the reverse Query of one shard, read a page at a time.
type shardReader struct {
	in   *dynamodb.QueryInput
	buf  []contactItem // read, not yet taken, newest first
	more bool          // DynamoDB has more after lastKey
	// lastKey is the sort key the Query stopped at: every item of the
	// shard above it has been examined.
	lastKey string
	reads   int
}

// shardMerge pages through shards newest first by sort key: it takes the
// newest head among them, reading a shard's next page only when its
// buffer runs dry, and stops at limit items or when listReadBudget items
// have been examined.
type shardMerge struct {
	s        *Contacts
	shards   []*shardReader
	limit    int
	examined int
}

// run returns up to limit items, the position to continue after and
// whether more may follow.
func (m *shardMerge) run(ctx context.Context) ([]contactItem, string, bool, error) {
	var found []contactItem
	for {
		var dry []*shardReader
		for _, r := range m.shards {
			if len(r.buf) == 0 && r.more {
				dry = append(dry, r)
			}
		}
		if len(dry) > 0 {
			if m.examined >= listReadBudget {
				return m.outOfBudget(found)
			}
			if err := m.read(ctx, dry, len(found)); err != nil {
				return nil, "", false, err
			}
			continue
		}
		head := m.newest()
		switch {
		case head == nil:
			return found, "", false, nil
		case len(found) == m.limit:
			return found, found[len(found)-1].SK, true, nil
		}
		found = append(found, head.buf[0])
		head.buf = head.buf[1:]
	}
}

// newest is the shard whose next item is the newest; nil when every
// buffer is empty.
func (m *shardMerge) newest() *shardReader {
	var best *shardReader
	for _, r := range m.shards {
		if len(r.buf) > 0 && (best == nil || r.buf[0].SK > best.buf[0].SK) {
			best = r
		}
	}
	return best
}

// outOfBudget ends a page whose reads ran out of budget: the buffered
// items above every unexamined one are still in order and are taken; the
// next page continues below the highest point a shard stopped at.
func (m *shardMerge) outOfBudget(found []contactItem) ([]contactItem, string, bool, error) {
	stop := ""
	for _, r := range m.shards {
		if r.more {
			stop = max(stop, r.lastKey)
		}
	}
	for len(found) < m.limit {
		head := m.newest()
		if head == nil || head.buf[0].SK <= stop {
			return found, stop, true, nil
		}
		found = append(found, head.buf[0])
		head.buf = head.buf[1:]
	}
	return found, found[len(found)-1].SK, true, nil
}

// read reads the next page of each shard in parallel. A first read asks
// for about twice a shard's share of the page, later ones for a whole
// page, so a page costs little more than it returns. The reads share
// what is left of the read budget, so together they stay within it; when
// fewer items are left than shards, only the first shards are read now.
func (m *shardMerge) read(ctx context.Context, shards []*shardReader, have int) error {
	want := m.limit + 1 - have
	left := listReadBudget - m.examined
	g, gctx := errgroup.WithContext(ctx)
	scanned := make([]int, len(shards))
	for i, r := range shards {
		share := left / len(shards)
		if i < left%len(shards) {
			share++
		}
		if share == 0 {
			break
		}
		n := want
		if r.reads == 0 {
			n = min(want, max(4, 2*(want+len(m.shards)-1)/len(m.shards)))
		}
		r.in.Limit = aws.Int32(int32(min(n, share)))
		g.Go(func() error {
			out, err := m.s.DB.Query(gctx, r.in)
			if err != nil {
				return err
			}
			var items []contactItem
			if err := attributevalue.UnmarshalListOfMaps(out.Items, &items); err != nil {
				return err
			}
			r.reads++
			r.buf = append(r.buf, items...)
			r.more = len(out.LastEvaluatedKey) > 0
			if r.more {
				r.lastKey = aws.ToString(stringAttr(out.LastEvaluatedKey, schema.AttrSK))
				r.in.ExclusiveStartKey = out.LastEvaluatedKey
			}
			scanned[i] = int(out.ScannedCount)
			return nil
		})
	}
	err := g.Wait()
	for _, n := range scanned {
		m.examined += n
	}
	return err
}
