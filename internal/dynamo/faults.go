package dynamo

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"

	"github.com/sesame-mail/sesame/internal/fail"
)

// FaultRetryAfter is what a client is told to wait after a store fault.
const FaultRetryAfter = 2 * time.Second

// NewTable is the table name over db as every process uses it: a fault of
// DynamoDB (a throttle, a timeout, an unreachable endpoint) reaches the
// domain as a transient fail error, which a route answers 503 with
// Retry-After and a queue consumer retries. A failed condition is not a
// fault: the repositories read it as the answer it is.
func NewTable(db DB, name string) *Table {
	return &Table{DB: faultsUnavailable{db}, Name: name}
}

// faultsUnavailable is db with its faults made transient fail errors that
// still unwrap to the SDK's error.
type faultsUnavailable struct{ db DB }

// StoreFault is err made transient unless it is an answer: a failed
// condition, or a transaction cancelled by one (isTransactionConditionFailed),
// or a refusal of the request (isRequestRefused).
// A transaction cancelled only by throttling or a concurrent transaction is
// a fault; it still unwraps to the cancellation, so a caller can read its
// reasons.
func StoreFault(err error) error {
	if err == nil || IsConditionFailed(err) || IsTransactionConditionFailed(err) || isRequestRefused(err) {
		return err
	}
	e := fail.Unavailable(FaultRetryAfter, "the data store did not answer; retry shortly (with the same Idempotency-Key if you sent one)")
	e.Err = err
	return e
}

// isRequestRefused reports whether DynamoDB refused the request itself
// (ValidationException: a number it cannot store, an item too large): a
// defect to log, which a retry would only repeat.
func isRequestRefused(err error) bool {
	var ae smithy.APIError
	return errors.As(err, &ae) && ae.ErrorCode() == "ValidationException"
}

// call runs one DynamoDB call and makes its fault transient.
func call[I, O any](do func(context.Context, I, ...func(*dynamodb.Options)) (O, error), ctx context.Context, in I, opts []func(*dynamodb.Options)) (O, error) {
	out, err := do(ctx, in, opts...)
	return out, StoreFault(err)
}

func (f faultsUnavailable) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return call(f.db.GetItem, ctx, in, opts)
}

func (f faultsUnavailable) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return call(f.db.PutItem, ctx, in, opts)
}

func (f faultsUnavailable) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return call(f.db.UpdateItem, ctx, in, opts)
}

func (f faultsUnavailable) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return call(f.db.DeleteItem, ctx, in, opts)
}

func (f faultsUnavailable) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return call(f.db.Query, ctx, in, opts)
}

func (f faultsUnavailable) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	return call(f.db.TransactWriteItems, ctx, in, opts)
}

func (f faultsUnavailable) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	return call(f.db.BatchGetItem, ctx, in, opts)
}

func (f faultsUnavailable) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	return call(f.db.BatchWriteItem, ctx, in, opts)
}
