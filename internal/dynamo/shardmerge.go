package dynamo

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/sesame-mail/sesame/internal/dynamo/schema"
)

// SortKeyed is an item that knows its sort key.
type SortKeyed interface{ SortKey() string }

// shardReader is the reverse Query of one shard, read a page at a time.
type shardReader[T SortKeyed] struct {
	in   *dynamodb.QueryInput
	buf  []T  // read, not yet taken, newest first
	more bool // DynamoDB has more after lastKey
	// lastKey is the sort key the Query stopped at: every item of the
	// shard above it has been examined.
	lastKey string
	reads   int
}

// shardMerge pages through shards newest first by sort key: it takes the
// newest head among them, reading a shard's next page only when its
// buffer runs dry, and stops at limit items or when listReadBudget items
// have been examined.
type shardMerge[T SortKeyed] struct {
	db       DB
	shards   []*shardReader[T]
	limit    int
	examined int
}

// newShardMerge merges the reverse Queries ins, one a shard, into pages
// of limit.
func newShardMerge[T SortKeyed](db DB, ins []*dynamodb.QueryInput, limit int) *shardMerge[T] {
	m := &shardMerge[T]{db: db, limit: limit}
	for _, in := range ins {
		m.shards = append(m.shards, &shardReader[T]{in: in, more: true})
	}
	return m
}

// run returns up to limit items, the position to continue after and
// whether more may follow.
func (m *shardMerge[T]) run(ctx context.Context) ([]T, string, bool, error) {
	var found []T
	for {
		var dry []*shardReader[T]
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
			return found, found[len(found)-1].SortKey(), true, nil
		}
		found = append(found, head.buf[0])
		head.buf = head.buf[1:]
	}
}

// newest is the shard whose next item is the newest; nil when every
// buffer is empty.
func (m *shardMerge[T]) newest() *shardReader[T] {
	var best *shardReader[T]
	for _, r := range m.shards {
		if len(r.buf) > 0 && (best == nil || r.buf[0].SortKey() > best.buf[0].SortKey()) {
			best = r
		}
	}
	return best
}

// outOfBudget ends a page whose reads ran out of budget: the buffered
// items above every unexamined one are still in order and are taken; the
// next page continues below the highest point a shard stopped at.
func (m *shardMerge[T]) outOfBudget(found []T) ([]T, string, bool, error) {
	stop := ""
	for _, r := range m.shards {
		if r.more {
			stop = max(stop, r.lastKey)
		}
	}
	for len(found) < m.limit {
		head := m.newest()
		if head == nil || head.buf[0].SortKey() <= stop {
			return found, stop, true, nil
		}
		found = append(found, head.buf[0])
		head.buf = head.buf[1:]
	}
	return found, found[len(found)-1].SortKey(), true, nil
}

// read reads the next page of each shard in parallel. A first read asks
// for about twice a shard's share of the page, later ones for a whole
// page, so a page costs little more than it returns. The reads share
// what is left of the read budget, so together they stay within it; when
// fewer items are left than shards, only the first shards are read now.
func (m *shardMerge[T]) read(ctx context.Context, shards []*shardReader[T], have int) error {
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
			out, err := m.db.Query(gctx, r.in)
			if err != nil {
				return err
			}
			var items []T
			if err := attributevalue.UnmarshalListOfMaps(out.Items, &items); err != nil {
				return err
			}
			r.reads++
			r.buf = append(r.buf, items...)
			r.more = len(out.LastEvaluatedKey) > 0
			if r.more {
				r.lastKey = aws.ToString(StringAttr(out.LastEvaluatedKey, schema.AttrSK))
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

// reverseQuery is the Query of partition pk newest first, below the sort
// Key after ("" for the start), keeping the items filter passes (none
// set: every item).
func reverseQuery(table, pk, after string, filters ...expression.ConditionBuilder) (*dynamodb.QueryInput, error) {
	keyCond := expression.Key(schema.AttrPK).Equal(expression.Value(pk))
	if after != "" {
		keyCond = keyCond.And(expression.Key(schema.AttrSK).LessThan(expression.Value(after)))
	}
	b := expression.NewBuilder().WithKeyCondition(keyCond)
	switch len(filters) {
	case 0:
	case 1:
		b = b.WithFilter(filters[0])
	default:
		b = b.WithFilter(expression.And(filters[0], filters[1], filters[2:]...))
	}
	expr, err := b.Build()
	if err != nil {
		return nil, err
	}
	return &dynamodb.QueryInput{
		TableName: &table, ScanIndexForward: aws.Bool(false),
		KeyConditionExpression: expr.KeyCondition(), FilterExpression: expr.Filter(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}, nil
}

// MergedPage is a page of limit items newest first over the partitions
// pks (a collection's shards), below the sort key after, each kept by
// filters: the position of its last item continues it.
func MergedPage[T SortKeyed](ctx context.Context, s *Table, pks []string, after string, limit int, filters ...expression.ConditionBuilder) ([]T, string, bool, error) {
	ins := make([]*dynamodb.QueryInput, 0, len(pks))
	for _, pk := range pks {
		in, err := reverseQuery(s.Name, pk, after, filters...)
		if err != nil {
			return nil, "", false, err
		}
		ins = append(ins, in)
	}
	return newShardMerge[T](s.DB, ins, limit).run(ctx)
}

// QueryPage reads up to limit items of one partition newest first after
// the sort key after; the position of the last item continues the list.
func (s *Table) QueryPage(ctx context.Context, pk, after string, limit int) ([]map[string]ddbtypes.AttributeValue, string, bool, error) {
	expr, err := expression.NewBuilder().WithKeyCondition(expression.Key(schema.AttrPK).Equal(expression.Value(pk))).Build()
	if err != nil {
		return nil, "", false, err
	}
	in := &dynamodb.QueryInput{
		TableName: &s.Name, ScanIndexForward: aws.Bool(false),
		KeyConditionExpression: expr.KeyCondition(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}
	if after != "" {
		in.ExclusiveStartKey = Key(pk, after)
	}
	// One more than the page tells whether another exists; a Query page
	// also stops at 1 MB, so keep reading until that many or the end.
	var items []map[string]ddbtypes.AttributeValue
	for len(items) <= limit {
		in.Limit = aws.Int32(int32(limit + 1 - len(items)))
		out, err := s.DB.Query(ctx, in)
		if err != nil {
			return nil, "", false, err
		}
		items = append(items, out.Items...)
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	if len(items) > limit {
		items = items[:limit]
		return items, aws.ToString(StringAttr(items[limit-1], schema.AttrSK)), true, nil
	}
	return items, "", false, nil
}
