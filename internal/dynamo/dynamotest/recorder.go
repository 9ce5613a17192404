package dynamotest

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/sesame-mail/sesame/internal/dynamo"
)

// Recorder wraps a DB: it counts calls per operation and, when Fail is set,
// returns its error instead of calling through.
type Recorder struct {
	DB dynamo.DB
	// Fail, when it returns an error for an operation, makes that call fail.
	Fail func(op string) error

	mu     sync.Mutex
	calls  map[string]int
	writes int
}

// Writes returns the number of items written since the last Reset: one per
// PutItem, UpdateItem or DeleteItem, one per item of a transaction or batch.
func (r *Recorder) Writes() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.writes
}

func (r *Recorder) addWrites(n int) {
	r.mu.Lock()
	r.writes += n
	r.mu.Unlock()
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

// Reset forgets the counted calls.
func (r *Recorder) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = nil
	r.writes = 0
}

func (r *Recorder) record(op string) error {
	r.mu.Lock()
	if r.calls == nil {
		r.calls = map[string]int{}
	}
	r.calls[op]++
	fail := r.Fail
	r.mu.Unlock()
	if fail != nil {
		return fail(op)
	}
	return nil
}

func (r *Recorder) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	if err := r.record("GetItem"); err != nil {
		return nil, err
	}
	return r.DB.GetItem(ctx, in, opts...)
}

func (r *Recorder) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if err := r.record("PutItem"); err != nil {
		return nil, err
	}
	r.addWrites(1)
	return r.DB.PutItem(ctx, in, opts...)
}

func (r *Recorder) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if err := r.record("UpdateItem"); err != nil {
		return nil, err
	}
	r.addWrites(1)
	return r.DB.UpdateItem(ctx, in, opts...)
}

func (r *Recorder) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	if err := r.record("DeleteItem"); err != nil {
		return nil, err
	}
	r.addWrites(1)
	return r.DB.DeleteItem(ctx, in, opts...)
}

func (r *Recorder) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	if err := r.record("Query"); err != nil {
		return nil, err
	}
	return r.DB.Query(ctx, in, opts...)
}

func (r *Recorder) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	if err := r.record("TransactWriteItems"); err != nil {
		return nil, err
	}
	r.addWrites(len(in.TransactItems))
	return r.DB.TransactWriteItems(ctx, in, opts...)
}

func (r *Recorder) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	if err := r.record("BatchGetItem"); err != nil {
		return nil, err
	}
	return r.DB.BatchGetItem(ctx, in, opts...)
}

func (r *Recorder) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	if err := r.record("BatchWriteItem"); err != nil {
		return nil, err
	}
	for _, reqs := range in.RequestItems {
		r.addWrites(len(reqs))
	}
	return r.DB.BatchWriteItem(ctx, in, opts...)
}
