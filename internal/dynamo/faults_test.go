package dynamo_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/fail"
)

// transactDB answers every transaction with err.
type transactDB struct {
	dynamo.DB
	err error
}

func (d transactDB) TransactWriteItems(context.Context, *dynamodb.TransactWriteItemsInput, ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	return nil, d.err
}

func cancelled(codes ...string) *ddbtypes.TransactionCanceledException {
	tce := &ddbtypes.TransactionCanceledException{}
	for _, c := range codes {
		tce.CancellationReasons = append(tce.CancellationReasons, ddbtypes.CancellationReason{Code: aws.String(c)})
	}
	return tce
}

// TestStoreFaults: what the table's DB answers reaches the repositories
// as an answer (a failed condition, also inside a transaction) or as a
// transient fault that still unwraps to DynamoDB's error.
func TestStoreFaults(t *testing.T) {
	for name, tc := range map[string]struct {
		err       error
		transient bool
	}{
		"condition failed":             {&ddbtypes.ConditionalCheckFailedException{}, false},
		"transaction condition failed": {cancelled("None", "ConditionalCheckFailed"), false},
		"condition among conflicts":    {cancelled("TransactionConflict", "ConditionalCheckFailed"), false},
		"transaction conflict":         {cancelled("None", "TransactionConflict"), true},
		"transaction throttled":        {cancelled("ThrottlingError", "None"), true},
		"transaction without reasons":  {cancelled(), true},
		"throttled":                    {&ddbtypes.ProvisionedThroughputExceededException{}, true},
		"unreachable":                  {errors.New("dial tcp: connection refused"), true},
		"request refused":              {&smithy.GenericAPIError{Code: "ValidationException", Message: "Number overflow"}, false},
	} {
		t.Run(name, func(t *testing.T) {
			table := dynamo.NewTable(transactDB{err: tc.err}, "t")
			_, err := table.DB.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{})
			if !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want it to unwrap to %v", err, tc.err)
			}
			e, ok := fail.As(err)
			if !tc.transient {
				if ok {
					t.Fatalf("err = %v, want DynamoDB's answer as it is", err)
				}
				return
			}
			if !ok || e.Kind != fail.KindUnavailable || !e.Transient || e.RetryAfter <= 0 {
				t.Fatalf("err = %#v, want a transient unavailable with Retry-After", err)
			}
		})
	}
}
