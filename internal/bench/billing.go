package bench

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sesame-mail/sesame/internal/cost"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/schema"
)

// billedDB wraps a DynamoDB client and bills each call by AWS's rules
// (internal/cost), not by what the emulator reports: reads on the full
// size of every item read (the items the call returns; read again,
// uncounted, when it projects; a BatchGetItem key not found still costs
// its minimum), writes on the larger of the item's size before (read
// before the call, uncounted) and after (a put's item, an update's read
// after the call), transactions twice, one more write
// per global secondary index entry put or deleted (two when its key
// changes). It also keeps the size and expiry of every item written, for
// storage.
type billedDB struct {
	DB dynamo.DB

	mu    sync.Mutex
	calls int // API calls: a batch or a transaction is one
	read  float64
	write float64
	items map[string]storedItem // by table key
	// heat is the units billed per partition key (an index's entries
	// under "<index> <key>"), for the hot-key model.
	heat map[string]units
	// aside is the CPU time of the wrapper's own reads, not the caller's.
	aside time.Duration
}

// asideCPU is the CPU time the wrapper's own reads took so far.
func (b *billedDB) asideCPU() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.aside
}

type storedItem struct {
	size    int
	expires time.Time // zero: no TTL
}

// dbUsage is what the wrapped calls cost since the last take.
type dbUsage struct {
	Calls       int
	Read, Write float64
	Heat        map[string]units // by partition key
}

// units are read and write capacity units, and reads the read calls
// (a key of a batch is one) that billed them.
type units struct{ read, write, reads float64 }

func (b *billedDB) take() dbUsage {
	b.mu.Lock()
	defer b.mu.Unlock()
	u := dbUsage{Calls: b.calls, Read: b.read, Write: b.write, Heat: b.heat}
	b.calls, b.read, b.write, b.heat = 0, 0, 0, nil
	return u
}

// heats adds units to partition key pk's heat.
func (b *billedDB) heats(pk string, read, write float64) {
	if pk == "" || read+write == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.heat == nil {
		b.heat = map[string]units{}
	}
	h := b.heat[pk]
	h.read += read
	h.write += write
	if read > 0 {
		h.reads++
	}
	b.heat[pk] = h
}

// pkOf is the partition key of a key or an item.
func pkOf(item map[string]ddbtypes.AttributeValue) string {
	if v, ok := item[schema.AttrPK].(*ddbtypes.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

// storedByteMonths is the storage of the items written since the last
// call, each for a month or until its TTL if sooner (and its index entry
// too); it forgets them.
func (b *billedDB) storedByteMonths(now time.Time) float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	month := 30 * 24 * time.Hour
	total := 0.0
	for _, it := range b.items {
		kept := 1.0
		if !it.expires.IsZero() {
			kept = min(1, max(0, float64(it.expires.Sub(now))/float64(month)))
		}
		total += float64(it.size) * kept
	}
	b.items = nil
	return total
}

func (b *billedDB) bill(read, write float64) {
	b.mu.Lock()
	b.calls++
	b.read += read
	b.write += write
	b.mu.Unlock()
}

func keyString(k map[string]ddbtypes.AttributeValue) string {
	s := ""
	for _, a := range []string{schema.AttrPK, schema.AttrSK} {
		if v, ok := k[a].(*ddbtypes.AttributeValueMemberS); ok {
			s += v.Value + "\x00"
		}
	}
	return s
}

func keyOf(item map[string]ddbtypes.AttributeValue) map[string]ddbtypes.AttributeValue {
	return map[string]ddbtypes.AttributeValue{schema.AttrPK: item[schema.AttrPK], schema.AttrSK: item[schema.AttrSK]}
}

// current is the item at key as it is now, nil if none; not billed.
func (b *billedDB) current(ctx context.Context, table *string, key map[string]ddbtypes.AttributeValue) map[string]ddbtypes.AttributeValue {
	start := cpuTime()
	defer func() {
		b.mu.Lock()
		b.aside += cpuTime() - start
		b.mu.Unlock()
	}()
	out, err := b.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: table, Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil || out == nil {
		return nil
	}
	return out.Item
}

// currentAll is the items at keys as they are now (nil where none), read
// 100 keys a call; not billed.
func (b *billedDB) currentAll(ctx context.Context, table *string, keys []map[string]ddbtypes.AttributeValue) []map[string]ddbtypes.AttributeValue {
	start := cpuTime()
	defer func() {
		b.mu.Lock()
		b.aside += cpuTime() - start
		b.mu.Unlock()
	}()
	found := map[string]map[string]ddbtypes.AttributeValue{}
	for i := 0; i < len(keys); i += 100 {
		pending := map[string]ddbtypes.KeysAndAttributes{aws.ToString(table): {Keys: keys[i:min(i+100, len(keys))], ConsistentRead: aws.Bool(true)}}
		for len(pending) > 0 {
			out, err := b.DB.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: pending})
			if err != nil {
				break
			}
			for _, it := range out.Responses[aws.ToString(table)] {
				found[keyString(keyOf(it))] = it
			}
			pending = out.UnprocessedKeys
		}
	}
	items := make([]map[string]ddbtypes.AttributeValue, len(keys))
	for i, k := range keys {
		items[i] = found[keyString(k)]
	}
	return items
}

// writeUnits bills writing key from before to after (nil: absent), on the
// table and on each index; failed is a write whose condition failed.
func writeUnits(before, after map[string]ddbtypes.AttributeValue, failed bool) float64 {
	if failed {
		return cost.WriteUnits(cost.ItemSize(before), 0)
	}
	u := cost.WriteUnits(cost.ItemSize(before), cost.ItemSize(after))
	for _, ix := range schema.Table.Indexes {
		old, now := indexKey(before, ix), indexKey(after, ix)
		switch {
		case old == "" && now == "":
		case old != "" && now != "" && old != now: // delete and put
			u += cost.WriteUnits(cost.ItemSize(before), 0) + cost.WriteUnits(0, cost.ItemSize(after))
		default:
			u += cost.WriteUnits(cost.ItemSize(before), cost.ItemSize(after))
		}
	}
	return u
}

// heatWrite adds a write's units to the partitions it wrote: the table's
// and each index entry's.
func (b *billedDB) heatWrite(key, before, after map[string]ddbtypes.AttributeValue, failed, transaction bool) {
	scale := 1.0
	if transaction {
		scale = cost.Transactional(1)
	}
	if failed {
		b.heats(pkOf(key), 0, scale*cost.WriteUnits(cost.ItemSize(before), 0))
		return
	}
	b.heats(pkOf(key), 0, scale*cost.WriteUnits(cost.ItemSize(before), cost.ItemSize(after)))
	for _, ix := range schema.Table.Indexes {
		pk := func(it map[string]ddbtypes.AttributeValue) string {
			if v, ok := it[ix.PartitionKey].(*ddbtypes.AttributeValueMemberS); ok {
				return ix.Name + " " + v.Value
			}
			return ""
		}
		old, now, prev := pk(before), pk(after), before
		if old != now { // the old entry's delete
			b.heats(old, 0, scale*cost.WriteUnits(cost.ItemSize(before), 0))
			prev = nil
		}
		b.heats(now, 0, scale*cost.WriteUnits(cost.ItemSize(prev), cost.ItemSize(after)))
	}
}

func indexKey(item map[string]ddbtypes.AttributeValue, ix schema.Index) string {
	if item == nil {
		return ""
	}
	pk, ok := item[ix.PartitionKey].(*ddbtypes.AttributeValueMemberS)
	if !ok {
		return ""
	}
	s := pk.Value
	if ix.SortKey != "" {
		sk, ok := item[ix.SortKey].(*ddbtypes.AttributeValueMemberS)
		if !ok {
			return ""
		}
		s += "\x00" + sk.Value
	}
	return s
}

// stored records the item at key as after (nil: deleted).
func (b *billedDB) stored(key map[string]ddbtypes.AttributeValue, after map[string]ddbtypes.AttributeValue) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.items == nil {
		b.items = map[string]storedItem{}
	}
	k := keyString(key)
	if after == nil {
		delete(b.items, k)
		return
	}
	it := storedItem{size: cost.ItemSize(after)}
	for _, ix := range schema.Table.Indexes {
		if indexKey(after, ix) != "" {
			it.size += cost.ItemSize(after) + 100 // an index entry's overhead
		}
	}
	if n, ok := after[schema.AttrExpiresAt].(*ddbtypes.AttributeValueMemberN); ok {
		if sec, err := strconv.ParseInt(n.Value, 10, 64); err == nil {
			it.expires = time.Unix(sec, 0)
		}
	}
	b.items[k] = it
}

// queriedKey is the partition a Query read, item one of its items: the
// table's, or an index's as "<index> <key>".
func queriedKey(in *dynamodb.QueryInput, item map[string]ddbtypes.AttributeValue) string {
	if in.IndexName == nil {
		return pkOf(item)
	}
	for _, ix := range schema.Table.Indexes {
		if ix.Name == aws.ToString(in.IndexName) {
			if v, ok := item[ix.PartitionKey].(*ddbtypes.AttributeValueMemberS); ok {
				return ix.Name + " " + v.Value
			}
		}
	}
	return ""
}

// projected reports a read that returns only some attributes: its items
// are not what AWS bills, the whole item is, read around the call.
func projected(projection *string, attributes []string) bool {
	return projection != nil || len(attributes) > 0
}

func (b *billedDB) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	out, err := b.DB.GetItem(ctx, in, opts...)
	if err == nil {
		full := out.Item // billed on the whole item, whatever the projection
		if projected(in.ProjectionExpression, in.AttributesToGet) {
			full = b.current(ctx, in.TableName, in.Key)
		}
		trace("get %s %d B strong %v", keyString(in.Key), cost.ItemSize(full), aws.ToBool(in.ConsistentRead))
		u := cost.ReadUnits(cost.ItemSize(full), aws.ToBool(in.ConsistentRead))
		b.heats(pkOf(in.Key), u, 0)
		b.bill(u, 0)
	}
	return out, err
}

func (b *billedDB) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	out, err := b.DB.BatchGetItem(ctx, in, opts...)
	if err == nil {
		units := 0.0
		for table, ka := range in.RequestItems {
			found := map[string]map[string]ddbtypes.AttributeValue{}
			for _, it := range out.Responses[table] {
				found[keyString(keyOf(it))] = it
			}
			for _, k := range ka.Keys {
				if unprocessed(out.UnprocessedKeys[table].Keys, k) {
					continue // billed when the caller asks again
				}
				full := found[keyString(k)] // nil: not found, still billed its minimum
				if projected(ka.ProjectionExpression, ka.AttributesToGet) {
					full = b.current(ctx, aws.String(table), k)
				}
				trace("batchget %s %d B strong %v", keyString(k), cost.ItemSize(full), aws.ToBool(ka.ConsistentRead))
				u := cost.ReadUnits(cost.ItemSize(full), aws.ToBool(ka.ConsistentRead))
				b.heats(pkOf(k), u, 0)
				units += u
			}
		}
		b.bill(units, 0)
	}
	return out, err
}

// unprocessed reports whether key is among keys a batch call left.
func unprocessed(keys []map[string]ddbtypes.AttributeValue, key map[string]ddbtypes.AttributeValue) bool {
	for _, k := range keys {
		if keyString(k) == keyString(key) {
			return true
		}
	}
	return false
}

func (b *billedDB) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	out, err := b.DB.Query(ctx, in, opts...)
	if err == nil {
		items := out.Items
		if projected(in.ProjectionExpression, in.AttributesToGet) {
			keys := make([]map[string]ddbtypes.AttributeValue, len(items))
			for i, it := range items {
				keys[i] = keyOf(it)
			}
			items = b.currentAll(ctx, in.TableName, keys)
		}
		total := 0
		for _, it := range items {
			total += cost.ItemSize(it)
		}
		// Items a filter dropped were read too: at the returned items'
		// mean size.
		if out.Count > 0 && out.ScannedCount > out.Count {
			total = total * int(out.ScannedCount) / int(out.Count)
		}
		trace("query %s %d items %d B", aws.ToString(in.KeyConditionExpression), len(out.Items), total)
		u := cost.QueryUnits(total, aws.ToBool(in.ConsistentRead))
		if len(out.Items) > 0 { // an empty read's minimum heats no key it names
			b.heats(queriedKey(in, out.Items[0]), u, 0)
		}
		b.bill(u, 0)
	}
	return out, err
}

func (b *billedDB) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	key := keyOf(in.Item)
	before := b.current(ctx, in.TableName, key)
	out, err := b.DB.PutItem(ctx, in, opts...)
	b.bill(0, b.writeCost(key, before, in.Item, err, false))
	return out, err
}

func (b *billedDB) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	before := b.current(ctx, in.TableName, in.Key)
	out, err := b.DB.UpdateItem(ctx, in, opts...)
	b.bill(0, b.writeCost(in.Key, before, b.after(ctx, in.TableName, in.Key, err), err, false))
	return out, err
}

func (b *billedDB) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	before := b.current(ctx, in.TableName, in.Key)
	out, err := b.DB.DeleteItem(ctx, in, opts...)
	b.bill(0, b.writeCost(in.Key, before, nil, err, false))
	return out, err
}

// after is the item at key after an update, read unless the update failed.
func (b *billedDB) after(ctx context.Context, table *string, key map[string]ddbtypes.AttributeValue, err error) map[string]ddbtypes.AttributeValue {
	if err != nil {
		return nil
	}
	return b.current(ctx, table, key)
}

// writeCost is the write units of one write of key from before to after
// (nil: deleted), which it records for storage; a write that failed its
// condition is billed on the item as it is. The caller bills them, once
// per API call.
func (b *billedDB) writeCost(key, before, after map[string]ddbtypes.AttributeValue, err error, transaction bool) float64 {
	if err != nil {
		after = nil
	} else {
		b.stored(key, after)
	}
	u := writeUnits(before, after, err != nil)
	if transaction {
		u = cost.Transactional(u)
	}
	b.heatWrite(key, before, after, err != nil, transaction)
	trace("write %s before %d after %d tx %v failed %v: %.1f WRU", keyString(key), cost.ItemSize(before), cost.ItemSize(after), transaction, err != nil, u)
	return u
}

func (b *billedDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	type write struct {
		table         *string
		key           map[string]ddbtypes.AttributeValue
		before, after map[string]ddbtypes.AttributeValue
		update, check bool
	}
	var writes []write
	for _, it := range in.TransactItems {
		var w write
		switch {
		case it.Put != nil:
			w = write{table: it.Put.TableName, key: keyOf(it.Put.Item), after: it.Put.Item}
		case it.Update != nil:
			w = write{table: it.Update.TableName, key: it.Update.Key, update: true}
		case it.Delete != nil:
			w = write{table: it.Delete.TableName, key: it.Delete.Key}
		case it.ConditionCheck != nil:
			w = write{table: it.ConditionCheck.TableName, key: it.ConditionCheck.Key, check: true}
		}
		w.before = b.current(ctx, w.table, w.key)
		writes = append(writes, w)
	}
	out, err := b.DB.TransactWriteItems(ctx, in, opts...)
	units := 0.0
	for _, w := range writes {
		if w.check { // a condition check is billed as a write of the item
			units += cost.Transactional(cost.WriteUnits(cost.ItemSize(w.before), 0))
			continue
		}
		if w.update {
			w.after = b.after(ctx, w.table, w.key, err)
		}
		units += b.writeCost(w.key, w.before, w.after, err, true)
	}
	b.bill(0, units)
	return out, err
}

func (b *billedDB) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	type write struct {
		table         string
		key           map[string]ddbtypes.AttributeValue
		before, after map[string]ddbtypes.AttributeValue
	}
	var writes []write
	for table, reqs := range in.RequestItems {
		for _, r := range reqs {
			w := write{table: table}
			if r.PutRequest != nil {
				w.key, w.after = keyOf(r.PutRequest.Item), r.PutRequest.Item
			} else if r.DeleteRequest != nil {
				w.key = r.DeleteRequest.Key
			}
			w.before = b.current(ctx, aws.String(table), w.key)
			writes = append(writes, w)
		}
	}
	out, err := b.DB.BatchWriteItem(ctx, in, opts...)
	units := 0.0
	for _, w := range writes {
		if err == nil && unprocessedWrite(out.UnprocessedItems[w.table], w.key) {
			continue // billed when the caller writes it again
		}
		units += b.writeCost(w.key, w.before, w.after, err, false)
	}
	b.bill(0, units)
	return out, err
}

// unprocessedWrite reports whether the write of key is among reqs, the
// writes a batch left.
func unprocessedWrite(reqs []ddbtypes.WriteRequest, key map[string]ddbtypes.AttributeValue) bool {
	var keys []map[string]ddbtypes.AttributeValue
	for _, r := range reqs {
		switch {
		case r.PutRequest != nil:
			keys = append(keys, keyOf(r.PutRequest.Item))
		case r.DeleteRequest != nil:
			keys = append(keys, r.DeleteRequest.Key)
		}
	}
	return unprocessed(keys, key)
}

// trace writes what one call was billed for, with BENCH_TRACE set.
func trace(format string, args ...any) {
	if os.Getenv("BENCH_TRACE") != "" {
		fmt.Fprintf(os.Stderr, "billed: "+format+"\n", args...)
	}
}
