package dynamotest

import (
	"context"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sesame-mail/sesame/internal/dynamo"
)

// Recorder wraps a DB: it counts calls per operation and written items,
// sums the time spent in DynamoDB and, with MeasureCapacity, the capacity
// units DynamoDB reports; when Fail is set, it returns Fail's error instead
// of calling through, and when Via is set, it calls the DB Via names.
type Recorder struct {
	DB dynamo.DB
	// Fail, when it returns an error for an operation, makes that call fail.
	Fail func(op string) error
	// Via, when it returns a DB for an operation, makes that call go to it
	// instead of DB (e.g. a client of an endpoint that never answers).
	Via func(op string) dynamo.DB
	// MeasureCapacity asks DynamoDB for the consumed capacity of each call.
	MeasureCapacity bool

	mu         sync.Mutex
	calls      map[string]int
	writes     int
	waited     time.Duration
	readUnits  float64
	writeUnits float64
}

// Calls returns the number of calls of op since the last Reset.
func (r *Recorder) Calls(op string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[op]
}

// Total returns the number of calls of every operation since the last Reset.
func (r *Recorder) Total() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, c := range r.calls {
		n += c
	}
	return n
}

// Writes returns the number of items written since the last Reset: one per
// PutItem, UpdateItem or DeleteItem, one per item of a transaction or batch.
func (r *Recorder) Writes() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.writes
}

// Waited returns the time spent in DynamoDB calls since the last Reset.
func (r *Recorder) Waited() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.waited
}

// Units returns the read and write capacity units consumed since the last
// Reset (with MeasureCapacity).
func (r *Recorder) Units() (read, write float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.readUnits, r.writeUnits
}

// Reset forgets what was recorded.
func (r *Recorder) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls, r.writes, r.waited, r.readUnits, r.writeUnits = nil, 0, 0, 0, 0
}

// record runs one call: it counts it, fails it when asked, and records its
// time, written items and consumed capacity.
func record[O any](r *Recorder, op string, items int, capacity *ddbtypes.ReturnConsumedCapacity, call func(db dynamo.DB) (O, []ddbtypes.ConsumedCapacity, error)) (O, error) {
	r.mu.Lock()
	if r.calls == nil {
		r.calls = map[string]int{}
	}
	r.calls[op]++
	fail, db := r.Fail, r.DB
	if r.Via != nil {
		if via := r.Via(op); via != nil {
			db = via
		}
	}
	if r.MeasureCapacity {
		*capacity = ddbtypes.ReturnConsumedCapacityTotal
	}
	r.mu.Unlock()
	if fail != nil {
		if err := fail(op); err != nil {
			var zero O
			return zero, err
		}
	}
	start := time.Now()
	out, cc, err := call(db)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.waited += time.Since(start)
	r.writes += items
	for _, c := range cc {
		if c.CapacityUnits == nil {
			continue
		}
		if items > 0 {
			r.writeUnits += *c.CapacityUnits
		} else {
			r.readUnits += *c.CapacityUnits
		}
	}
	return out, err
}

func one(c *ddbtypes.ConsumedCapacity) []ddbtypes.ConsumedCapacity {
	if c == nil {
		return nil
	}
	return []ddbtypes.ConsumedCapacity{*c}
}

func (r *Recorder) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return record(r, "GetItem", 0, &in.ReturnConsumedCapacity, func(db dynamo.DB) (*dynamodb.GetItemOutput, []ddbtypes.ConsumedCapacity, error) {
		out, err := db.GetItem(ctx, in, opts...)
		if err != nil {
			return out, nil, err
		}
		return out, one(out.ConsumedCapacity), nil
	})
}

func (r *Recorder) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return record(r, "PutItem", 1, &in.ReturnConsumedCapacity, func(db dynamo.DB) (*dynamodb.PutItemOutput, []ddbtypes.ConsumedCapacity, error) {
		out, err := db.PutItem(ctx, in, opts...)
		if err != nil {
			return out, nil, err
		}
		return out, one(out.ConsumedCapacity), nil
	})
}

func (r *Recorder) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return record(r, "UpdateItem", 1, &in.ReturnConsumedCapacity, func(db dynamo.DB) (*dynamodb.UpdateItemOutput, []ddbtypes.ConsumedCapacity, error) {
		out, err := db.UpdateItem(ctx, in, opts...)
		if err != nil {
			return out, nil, err
		}
		return out, one(out.ConsumedCapacity), nil
	})
}

func (r *Recorder) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return record(r, "DeleteItem", 1, &in.ReturnConsumedCapacity, func(db dynamo.DB) (*dynamodb.DeleteItemOutput, []ddbtypes.ConsumedCapacity, error) {
		out, err := db.DeleteItem(ctx, in, opts...)
		if err != nil {
			return out, nil, err
		}
		return out, one(out.ConsumedCapacity), nil
	})
}

func (r *Recorder) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return record(r, "Query", 0, &in.ReturnConsumedCapacity, func(db dynamo.DB) (*dynamodb.QueryOutput, []ddbtypes.ConsumedCapacity, error) {
		out, err := db.Query(ctx, in, opts...)
		if err != nil {
			return out, nil, err
		}
		return out, one(out.ConsumedCapacity), nil
	})
}

func (r *Recorder) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	return record(r, "TransactWriteItems", len(in.TransactItems), &in.ReturnConsumedCapacity, func(db dynamo.DB) (*dynamodb.TransactWriteItemsOutput, []ddbtypes.ConsumedCapacity, error) {
		out, err := db.TransactWriteItems(ctx, in, opts...)
		if err != nil {
			return out, nil, err
		}
		return out, out.ConsumedCapacity, nil
	})
}

func (r *Recorder) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	return record(r, "BatchGetItem", 0, &in.ReturnConsumedCapacity, func(db dynamo.DB) (*dynamodb.BatchGetItemOutput, []ddbtypes.ConsumedCapacity, error) {
		out, err := db.BatchGetItem(ctx, in, opts...)
		if err != nil {
			return out, nil, err
		}
		return out, out.ConsumedCapacity, nil
	})
}

func (r *Recorder) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	items := 0
	for _, reqs := range in.RequestItems {
		items += len(reqs)
	}
	return record(r, "BatchWriteItem", items, &in.ReturnConsumedCapacity, func(db dynamo.DB) (*dynamodb.BatchWriteItemOutput, []ddbtypes.ConsumedCapacity, error) {
		out, err := db.BatchWriteItem(ctx, in, opts...)
		if err != nil {
			return out, nil, err
		}
		return out, out.ConsumedCapacity, nil
	})
}
