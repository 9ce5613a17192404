package dynamo

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sesame-mail/sesame/internal/fail"
)

// throttledBatches answers every batch call successfully with nothing
// processed, as DynamoDB answers a throttled batch; it counts the calls
// and, so that a loop without end fails instead of hanging, refuses the
// calls past a hundred.
type throttledBatches struct {
	DB
	calls atomic.Int32
}

func (d *throttledBatches) call() error {
	if d.calls.Add(1) > 100 {
		return errors.New("called a hundred times")
	}
	return nil
}

func (d *throttledBatches) BatchGetItem(_ context.Context, in *dynamodb.BatchGetItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	return &dynamodb.BatchGetItemOutput{UnprocessedKeys: in.RequestItems}, d.call()
}

func (d *throttledBatches) BatchWriteItem(_ context.Context, in *dynamodb.BatchWriteItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	return &dynamodb.BatchWriteItemOutput{UnprocessedItems: in.RequestItems}, d.call()
}

// TestBatchesLeftUnprocessed: a batch read or write whose items stay
// unprocessed stops after batchRounds calls with a transient store fault,
// instead of calling DynamoDB again at once and for ever.
func TestBatchesLeftUnprocessed(t *testing.T) {
	keys := []map[string]ddbtypes.AttributeValue{Key("WS#w#CONTACTEMAIL", "a@example.com")}
	for name, run := range map[string]func(*Table) error{
		"batchGet": func(s *Table) error { _, err := s.BatchGet(t.Context(), keys); return err },
		"batchWrite": func(s *Table) error {
			return s.BatchWrite(t.Context(), []ddbtypes.WriteRequest{{DeleteRequest: &ddbtypes.DeleteRequest{Key: keys[0]}}})
		},
	} {
		t.Run(name, func(t *testing.T) {
			db := &throttledBatches{}
			err := run(NewTable(db, "t"))
			if e, ok := fail.As(err); !ok || e.Kind != fail.KindUnavailable || !e.Transient {
				t.Fatalf("err = %v, want a transient store fault", err)
			}
			if got := db.calls.Load(); got != batchRounds {
				t.Errorf("%d calls, want %d", got, batchRounds)
			}
		})
	}
}
