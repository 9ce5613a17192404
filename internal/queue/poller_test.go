package queue_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/queue/queuetest"
)

// pollUntil calls PollOnce until done reports true, failing t after a bound
// generous enough for a few visibility timeouts of one second.
func pollUntil(t *testing.T, p *queue.Poller, done func() bool) {
	t.Helper()
	ctx := t.Context()
	deadline := time.Now().Add(20 * time.Second)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatal("gave up waiting for the expected deliveries")
		}
		if _, err := p.PollOnce(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

func bodies(batch events.SQSEvent) []string {
	var out []string
	for _, r := range batch.Records {
		out = append(out, r.Body)
	}
	return out
}

// acceptAll is a consumer for which every message succeeds.
func acceptAll(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
	return events.SQSEventResponse{}, nil
}

func TestPollerDeliversBatchesAndDeletesThem(t *testing.T) {
	t.Parallel()
	s := queuetest.New(t, queuetest.Def("work", 3))
	arn := s.ARN(t, "work")
	var sent []string
	for i := range 15 {
		sent = append(sent, fmt.Sprintf(`{"n":%d}`, i))
	}
	ids := s.Send(t, "work", sent...)
	want := map[string]string{} // message id → body
	for i, id := range ids {
		want[id] = sent[i]
	}

	got := map[string]string{}
	var sizes []int
	p := s.Poller(t, "work", func(_ context.Context, batch events.SQSEvent) (events.SQSEventResponse, error) {
		sizes = append(sizes, len(batch.Records))
		for _, r := range batch.Records {
			if _, dup := got[r.MessageId]; dup {
				t.Errorf("message %s delivered twice", r.MessageId)
			}
			got[r.MessageId] = r.Body
			if r.EventSource != "aws:sqs" || r.EventSourceARN != arn {
				t.Errorf("record source = %q %q, want aws:sqs %q", r.EventSource, r.EventSourceARN, arn)
			}
			if r.ReceiptHandle == "" || r.Md5OfBody == "" {
				t.Errorf("record %s lacks receipt handle or body MD5: %+v", r.MessageId, r)
			}
			if r.Attributes["ApproximateReceiveCount"] != "1" {
				t.Errorf("record %s ApproximateReceiveCount = %q, want 1", r.MessageId, r.Attributes["ApproximateReceiveCount"])
			}
		}
		return events.SQSEventResponse{}, nil
	})
	pollUntil(t, p, func() bool { return len(got) == len(sent) })

	for _, n := range sizes {
		if n < 1 || n > 10 {
			t.Errorf("a batch had %d records, want 1..10 (sizes %v)", n, sizes)
		}
	}
	if len(sizes) < 2 {
		t.Errorf("15 messages came in %d batch(es), want at least 2 of at most 10", len(sizes))
	}
	for id, body := range want {
		if got[id] != body {
			t.Errorf("message %s body = %q, want %q", id, got[id], body)
		}
	}
	if visible, inFlight := s.Counts(t, "work"); visible != 0 || inFlight != 0 {
		t.Errorf("after a successful consume: %d visible, %d in flight; want every message deleted", visible, inFlight)
	}
}

// A consumer's failures come back after the visibility timeout, as with a
// Lambda event source mapping with ReportBatchItemFailures.
func TestPollerRedeliversFailures(t *testing.T) {
	t.Parallel()
	sent := []string{"a", "b", "c"}
	cases := map[string]struct {
		// consume handles the first delivery; ids maps body to message id.
		consume func(batch events.SQSEvent, ids map[string]string) (events.SQSEventResponse, error)
		want    []string // bodies delivered again, sorted
	}{
		"one item failure": {
			consume: func(_ events.SQSEvent, ids map[string]string) (events.SQSEventResponse, error) {
				return events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{{ItemIdentifier: ids["b"]}}}, nil
			},
			want: []string{"b"},
		},
		"item failure reported twice": {
			consume: func(_ events.SQSEvent, ids map[string]string) (events.SQSEventResponse, error) {
				return events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{{ItemIdentifier: ids["c"]}, {ItemIdentifier: ids["c"]}}}, nil
			},
			want: []string{"c"},
		},
		"batch error": {
			consume: func(events.SQSEvent, map[string]string) (events.SQSEventResponse, error) {
				return events.SQSEventResponse{}, errors.New("database down")
			},
			want: sent,
		},
		"unknown item identifier fails the batch, as in Lambda": {
			consume: func(batch events.SQSEvent, _ map[string]string) (events.SQSEventResponse, error) {
				return events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{{ItemIdentifier: batch.Records[0].ReceiptHandle}}}, nil
			},
			want: sent,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := queuetest.New(t, queuetest.Def("work", 5))
			ids := map[string]string{}
			for i, id := range s.Send(t, "work", sent...) {
				ids[sent[i]] = id
			}

			var first []string
			p := s.Poller(t, "work", func(_ context.Context, batch events.SQSEvent) (events.SQSEventResponse, error) {
				first = append(first, bodies(batch)...)
				return tc.consume(batch, ids)
			})
			pollUntil(t, p, func() bool { return len(first) >= len(sent) })
			if visible, inFlight := s.Counts(t, "work"); visible != 0 || inFlight != len(tc.want) {
				t.Fatalf("after the first delivery: %d visible, %d in flight; want 0 visible, %d in flight", visible, inFlight, len(tc.want))
			}

			var again []string
			p.Consume = func(_ context.Context, batch events.SQSEvent) (events.SQSEventResponse, error) {
				for _, r := range batch.Records {
					again = append(again, r.Body)
					if r.MessageId != ids[r.Body] {
						t.Errorf("redelivered %q has id %s, want %s", r.Body, r.MessageId, ids[r.Body])
					}
					if r.Attributes["ApproximateReceiveCount"] != "2" {
						t.Errorf("redelivered %q ApproximateReceiveCount = %q, want 2", r.Body, r.Attributes["ApproximateReceiveCount"])
					}
				}
				return events.SQSEventResponse{}, nil
			}
			pollUntil(t, p, func() bool { return len(again) >= len(tc.want) })
			sort.Strings(again)
			if !slices.Equal(again, tc.want) {
				t.Errorf("delivered again: %q, want %q", again, tc.want)
			}
			if visible, inFlight := s.Counts(t, "work"); visible != 0 || inFlight != 0 {
				t.Errorf("after the retry succeeded: %d visible, %d in flight; want none", visible, inFlight)
			}
		})
	}
}

func TestPollerDeadLettersAfterMaxReceives(t *testing.T) {
	t.Parallel()
	const maxReceives = 2
	s := queuetest.New(t, queuetest.Def("work", maxReceives))
	id := s.Send(t, "work", "poison")[0]

	deliveries := 0
	p := s.Poller(t, "work", func(_ context.Context, batch events.SQSEvent) (events.SQSEventResponse, error) {
		deliveries += len(batch.Records)
		var resp events.SQSEventResponse
		for _, r := range batch.Records {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: r.MessageId})
		}
		return resp, nil
	})
	pollUntil(t, p, func() bool {
		visible, _ := s.Counts(t, "work-dlq")
		return visible == 1
	})
	if deliveries != maxReceives {
		t.Errorf("the consumer saw the message %d times, want MaxReceives = %d", deliveries, maxReceives)
	}
	if visible, inFlight := s.Counts(t, "work"); visible != 0 || inFlight != 0 {
		t.Errorf("work queue: %d visible, %d in flight; want the message gone to the DLQ", visible, inFlight)
	}

	var dead []events.SQSMessage
	dlq := s.Poller(t, "work-dlq", func(_ context.Context, batch events.SQSEvent) (events.SQSEventResponse, error) {
		dead = append(dead, batch.Records...)
		return events.SQSEventResponse{}, nil
	})
	pollUntil(t, dlq, func() bool { return len(dead) > 0 })
	if len(dead) != 1 || dead[0].Body != "poison" || dead[0].MessageId != id {
		t.Fatalf("DLQ records = %+v, want the poison message %s", dead, id)
	}
	if want := s.ARN(t, "work-dlq"); dead[0].EventSourceARN != want {
		t.Errorf("DLQ record EventSourceARN = %q, want %q", dead[0].EventSourceARN, want)
	}
}

func TestPollerRunStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	s := queuetest.New(t, queuetest.Def("work", 5))
	received := make(chan string, 10)
	p := s.Poller(t, "work", func(_ context.Context, batch events.SQSEvent) (events.SQSEventResponse, error) {
		for _, r := range batch.Records {
			received <- r.Body
		}
		return events.SQSEventResponse{}, nil
	})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()

	s.Send(t, "work", "x", "y")
	var got []string
	for len(got) < 2 {
		select {
		case b := <-received:
			got = append(got, b)
		case <-time.After(20 * time.Second):
			t.Fatalf("Run delivered %q, want x and y", got)
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run = %v after cancel, want nil", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return after its context was cancelled")
	}
	sort.Strings(got)
	if !slices.Equal(got, []string{"x", "y"}) {
		t.Errorf("Run delivered %q", got)
	}
}

// fakeReceiver is a queue.Receiver whose calls are function fields.
type fakeReceiver struct {
	receive func(ctx context.Context, in *sqs.ReceiveMessageInput) (*sqs.ReceiveMessageOutput, error)
	delete  func(in *sqs.DeleteMessageBatchInput) (*sqs.DeleteMessageBatchOutput, error)
}

func (f fakeReceiver) ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, _ ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	return f.receive(ctx, in)
}

func (f fakeReceiver) DeleteMessageBatch(_ context.Context, in *sqs.DeleteMessageBatchInput, _ ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error) {
	return f.delete(in)
}

func messages(ids ...string) []sqstypes.Message {
	var out []sqstypes.Message
	for _, id := range ids {
		out = append(out, sqstypes.Message{MessageId: aws.String(id), ReceiptHandle: aws.String("rh-" + id), Body: aws.String("body-" + id)})
	}
	return out
}

func TestPollOnce(t *testing.T) {
	boom := errors.New("boom")
	cases := map[string]struct {
		received   []sqstypes.Message
		receiveErr error
		consume    queue.Consumer
		deleteFail []string // ids the DeleteMessageBatch reports as failed
		wantN      int
		wantErr    bool
		wantDelete []string // receipt handles deleted, sorted; nil: no delete call
	}{
		"empty receive": {
			wantN: 0,
		},
		"receive error": {
			receiveErr: boom, wantErr: true,
		},
		"all succeed": {
			received: messages("1", "2", "3"), consume: acceptAll,
			wantN: 3, wantDelete: []string{"rh-1", "rh-2", "rh-3"},
		},
		"one item fails": {
			received: messages("1", "2", "3"),
			consume: func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
				return events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{{ItemIdentifier: "2"}}}, nil
			},
			wantN: 3, wantDelete: []string{"rh-1", "rh-3"},
		},
		"every item fails": {
			received: messages("1", "2"),
			consume: func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
				return events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{{ItemIdentifier: "1"}, {ItemIdentifier: "2"}}}, nil
			},
			wantN: 2,
		},
		"consumer error fails the batch": {
			received: messages("1", "2"),
			consume: func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
				return events.SQSEventResponse{}, boom
			},
			wantN: 2,
		},
		"empty item identifier fails the batch": {
			received: messages("1", "2"),
			consume: func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
				return events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{{ItemIdentifier: ""}}}, nil
			},
			wantN: 2,
		},
		"unknown item identifier fails the batch": {
			received: messages("1", "2"),
			consume: func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
				return events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{{ItemIdentifier: "1"}, {ItemIdentifier: "rh-2"}}}, nil
			},
			wantN: 2,
		},
		"delete partly fails": {
			received: messages("1", "2"), consume: acceptAll,
			deleteFail: []string{"2"},
			wantN:      2, wantErr: true, wantDelete: []string{"rh-1", "rh-2"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var deleted []string
			deleteCalled := false
			consumed := 0
			p := &queue.Poller{
				SQS: fakeReceiver{
					receive: func(_ context.Context, in *sqs.ReceiveMessageInput) (*sqs.ReceiveMessageOutput, error) {
						if in.MaxNumberOfMessages != 10 || aws.ToString(in.QueueUrl) != "http://q/work" {
							t.Errorf("ReceiveMessage(%+v), want up to 10 from the poller's queue", in)
						}
						return &sqs.ReceiveMessageOutput{Messages: tc.received}, tc.receiveErr
					},
					delete: func(in *sqs.DeleteMessageBatchInput) (*sqs.DeleteMessageBatchOutput, error) {
						deleteCalled = true
						out := &sqs.DeleteMessageBatchOutput{}
						for _, e := range in.Entries {
							deleted = append(deleted, aws.ToString(e.ReceiptHandle))
							if slices.Contains(tc.deleteFail, aws.ToString(e.Id)) {
								out.Failed = append(out.Failed, sqstypes.BatchResultErrorEntry{Id: e.Id, Code: aws.String("ReceiptHandleIsInvalid")})
							}
						}
						return out, nil
					},
				},
				QueueURL: "http://q/work",
				QueueARN: "arn:aws:sqs:us-east-1:000000000000:work",
				Consume: func(ctx context.Context, batch events.SQSEvent) (events.SQSEventResponse, error) {
					consumed++
					return tc.consume(ctx, batch)
				},
				Logger: queuetest.Logger(t),
			}
			n, err := p.PollOnce(t.Context())
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if n != tc.wantN {
				t.Errorf("n = %d, want %d", n, tc.wantN)
			}
			if wantConsume := len(tc.received) > 0; (consumed == 1) != wantConsume || consumed > 1 {
				t.Errorf("consumer called %d times for %d messages", consumed, len(tc.received))
			}
			sort.Strings(deleted)
			if deleteCalled != (tc.wantDelete != nil) || !slices.Equal(deleted, tc.wantDelete) {
				t.Errorf("deleted %q (called %v), want %q", deleted, deleteCalled, tc.wantDelete)
			}
		})
	}
}

// A received message becomes the record a Lambda SQS event carries.
func TestPollOnceRecord(t *testing.T) {
	msg := sqstypes.Message{
		MessageId: aws.String("m-1"), ReceiptHandle: aws.String("rh"), Body: aws.String(`{"x":1}`), MD5OfBody: aws.String("md5"),
		Attributes: map[string]string{"ApproximateReceiveCount": "3", "SentTimestamp": "1700000000000"},
		MessageAttributes: map[string]sqstypes.MessageAttributeValue{
			"kind": {DataType: aws.String("String"), StringValue: aws.String("bounce")},
			"blob": {DataType: aws.String("Binary"), BinaryValue: []byte{1, 2}},
		},
	}
	var got events.SQSMessage
	p := &queue.Poller{
		SQS: fakeReceiver{
			receive: func(context.Context, *sqs.ReceiveMessageInput) (*sqs.ReceiveMessageOutput, error) {
				return &sqs.ReceiveMessageOutput{Messages: []sqstypes.Message{msg}}, nil
			},
			delete: func(*sqs.DeleteMessageBatchInput) (*sqs.DeleteMessageBatchOutput, error) {
				return &sqs.DeleteMessageBatchOutput{}, nil
			},
		},
		QueueURL: "http://q/work", QueueARN: "arn:aws:sqs:us-east-1:000000000000:work",
		Consume: func(_ context.Context, batch events.SQSEvent) (events.SQSEventResponse, error) {
			if len(batch.Records) != 1 {
				t.Fatalf("records = %d", len(batch.Records))
			}
			got = batch.Records[0]
			return events.SQSEventResponse{}, nil
		},
		Logger: queuetest.Logger(t),
	}
	if _, err := p.PollOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got.MessageId != "m-1" || got.ReceiptHandle != "rh" || got.Body != `{"x":1}` || got.Md5OfBody != "md5" ||
		got.EventSource != "aws:sqs" || got.EventSourceARN != "arn:aws:sqs:us-east-1:000000000000:work" {
		t.Errorf("record = %+v", got)
	}
	if got.Attributes["ApproximateReceiveCount"] != "3" || got.Attributes["SentTimestamp"] != "1700000000000" {
		t.Errorf("attributes = %v", got.Attributes)
	}
	if a := got.MessageAttributes["kind"]; a.DataType != "String" || aws.ToString(a.StringValue) != "bounce" {
		t.Errorf("string message attribute = %+v", a)
	}
	if a := got.MessageAttributes["blob"]; a.DataType != "Binary" || !slices.Equal(a.BinaryValue, []byte{1, 2}) {
		t.Errorf("binary message attribute = %+v", a)
	}
}

// Run keeps going through receive errors (backing off) and returns once
// its context ends.
func TestRunStopsWhileReceiveFails(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	calls := make(chan struct{}, 100)
	p := &queue.Poller{
		SQS: fakeReceiver{
			receive: func(ctx context.Context, _ *sqs.ReceiveMessageInput) (*sqs.ReceiveMessageOutput, error) {
				select {
				case calls <- struct{}{}:
				default:
				}
				return nil, errors.New("connection refused")
			},
		},
		QueueURL: "http://q/work",
		Consume: func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
			t.Error("consumer called without messages")
			return events.SQSEventResponse{}, nil
		},
		Logger: queuetest.Logger(t),
	}
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	select {
	case <-calls:
	case <-time.After(10 * time.Second):
		t.Fatal("Run never called ReceiveMessage")
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run = %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its context was cancelled")
	}
}
