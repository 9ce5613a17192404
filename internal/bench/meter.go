// Package bench measures the accept path and the status pipeline against
// the local emulators (`make bench`): time spent outside DynamoDB and SES
// (handler overhead), DynamoDB calls and capacity units per request, and
// from those counts and public prices the infrastructure cost per 1,000
// emails. Nothing here runs in `make test`.
package bench

import (
	"context"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/ses"
)

// Meter wraps DynamoDB and SES: it counts calls, sums the time spent in
// them, and asks DynamoDB for the capacity each call consumed.
type Meter struct {
	DB  dynamo.DB
	SES sending.Transport

	mu       sync.Mutex
	calls    int
	sesCalls int
	waited   time.Duration
	read     float64
	write    float64
}

// Snapshot is what the meter counted since the last Reset.
type Snapshot struct {
	Calls, SESCalls int
	Waited          time.Duration
	ReadUnits       float64
	WriteUnits      float64
}

// Reset zeroes the counters.
func (m *Meter) Reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls, m.sesCalls, m.waited, m.read, m.write = 0, 0, 0, 0, 0
}

// Snapshot returns the counters.
func (m *Meter) Snapshot() Snapshot {
	m.mu.Lock()
	defer m.mu.Unlock()
	return Snapshot{Calls: m.calls, SESCalls: m.sesCalls, Waited: m.waited, ReadUnits: m.read, WriteUnits: m.write}
}

// done records a call; its capacity units count as writes or reads by
// the kind of call (index writes included, as TOTAL reports them).
func (m *Meter) done(start time.Time, write bool, cc ...ddbtypes.ConsumedCapacity) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	m.waited += time.Since(start)
	for _, c := range cc {
		if c.CapacityUnits == nil {
			continue
		}
		if write {
			m.write += *c.CapacityUnits
		} else {
			m.read += *c.CapacityUnits
		}
	}
}

func one(c *ddbtypes.ConsumedCapacity) []ddbtypes.ConsumedCapacity {
	if c == nil {
		return nil
	}
	return []ddbtypes.ConsumedCapacity{*c}
}

// Send times an SES send.
func (m *Meter) Send(ctx context.Context, in ses.SendInput) (string, error) {
	start := time.Now()
	id, err := m.SES.Send(ctx, in)
	m.mu.Lock()
	m.sesCalls++
	m.waited += time.Since(start)
	m.mu.Unlock()
	return id, err
}

const total = ddbtypes.ReturnConsumedCapacityTotal

func (m *Meter) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	start := time.Now()
	in.ReturnConsumedCapacity = total
	out, err := m.DB.GetItem(ctx, in, opts...)
	if err != nil {
		m.done(start, false)
		return out, err
	}
	m.done(start, false, one(out.ConsumedCapacity)...)
	return out, err
}

func (m *Meter) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	start := time.Now()
	in.ReturnConsumedCapacity = total
	out, err := m.DB.PutItem(ctx, in, opts...)
	if err != nil {
		m.done(start, true)
		return out, err
	}
	m.done(start, true, one(out.ConsumedCapacity)...)
	return out, err
}

func (m *Meter) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	start := time.Now()
	in.ReturnConsumedCapacity = total
	out, err := m.DB.UpdateItem(ctx, in, opts...)
	if err != nil {
		m.done(start, true)
		return out, err
	}
	m.done(start, true, one(out.ConsumedCapacity)...)
	return out, err
}

func (m *Meter) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	start := time.Now()
	in.ReturnConsumedCapacity = total
	out, err := m.DB.DeleteItem(ctx, in, opts...)
	if err != nil {
		m.done(start, true)
		return out, err
	}
	m.done(start, true, one(out.ConsumedCapacity)...)
	return out, err
}

func (m *Meter) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	start := time.Now()
	in.ReturnConsumedCapacity = total
	out, err := m.DB.Query(ctx, in, opts...)
	if err != nil {
		m.done(start, false)
		return out, err
	}
	m.done(start, false, one(out.ConsumedCapacity)...)
	return out, err
}

func (m *Meter) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	start := time.Now()
	in.ReturnConsumedCapacity = total
	out, err := m.DB.TransactWriteItems(ctx, in, opts...)
	if err != nil {
		m.done(start, true)
		return out, err
	}
	m.done(start, true, out.ConsumedCapacity...)
	return out, err
}

func (m *Meter) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	start := time.Now()
	in.ReturnConsumedCapacity = total
	out, err := m.DB.BatchGetItem(ctx, in, opts...)
	if err != nil {
		m.done(start, false)
		return out, err
	}
	m.done(start, false, out.ConsumedCapacity...)
	return out, err
}

func (m *Meter) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	start := time.Now()
	in.ReturnConsumedCapacity = total
	out, err := m.DB.BatchWriteItem(ctx, in, opts...)
	if err != nil {
		m.done(start, true)
		return out, err
	}
	m.done(start, true, out.ConsumedCapacity...)
	return out, err
}
