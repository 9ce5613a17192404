package queue_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sesame-mail/sesame/internal/queue"
)

// recordingBatch accepts every entry and keeps the bodies of each call.
type recordingBatch struct{ calls [][]string }

func (r *recordingBatch) SendMessageBatch(_ context.Context, in *sqs.SendMessageBatchInput, _ ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	var bodies []string
	for _, e := range in.Entries {
		bodies = append(bodies, aws.ToString(e.MessageBody))
	}
	r.calls = append(r.calls, bodies)
	return &sqs.SendMessageBatchOutput{}, nil
}

// Bodies go out in ASCII that decodes to the same JSON, and a batch stops
// short of SQS's 256 KiB.
func TestBatchPublisher(t *testing.T) {
	big, _ := json.Marshal(map[string]string{"payload": strings.Repeat("x", 100<<10)})
	uni, _ := json.Marshal(map[string]string{"payload": "zoë \u2028 🎉 \uffff"})
	rec := &recordingBatch{}
	p := &queue.BatchPublisher{SQS: rec, QueueURL: "q"}
	if err := p.EnqueueAll(t.Context(), [][]byte{big, big, big, uni}); err != nil {
		t.Fatal(err)
	}
	if len(rec.calls) != 2 || len(rec.calls[0]) != 2 || len(rec.calls[1]) != 2 {
		t.Fatalf("calls = %d with sizes %v, want 2 of 2 (256 KiB each at most)", len(rec.calls), sizes(rec.calls))
	}
	got := rec.calls[1][1]
	for _, c := range got {
		if c > 0x7e {
			t.Fatalf("body %q has a non-ASCII character", got)
		}
	}
	var back, want map[string]string
	if err := json.Unmarshal([]byte(got), &back); err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal(uni, &want)
	if back["payload"] != want["payload"] {
		t.Errorf("decoded %q, want %q", back["payload"], want["payload"])
	}
}

func sizes(calls [][]string) []int {
	var out []int
	for _, c := range calls {
		out = append(out, len(c))
	}
	return out
}

// concurrentBatch keeps the bodies of each call from several goroutines;
// a call holding the body fail is refused.
type concurrentBatch struct {
	mu    sync.Mutex
	calls [][]string
	fail  string
}

func (r *concurrentBatch) SendMessageBatch(_ context.Context, in *sqs.SendMessageBatchInput, _ ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	var bodies []string
	for _, e := range in.Entries {
		if aws.ToString(e.MessageBody) == r.fail {
			return nil, errors.New("throttled")
		}
		bodies = append(bodies, aws.ToString(e.MessageBody))
	}
	r.mu.Lock()
	r.calls = append(r.calls, bodies)
	r.mu.Unlock()
	return &sqs.SendMessageBatchOutput{}, nil
}

// Many bodies (a tick's wake-ups) go in batches of ten, several at once:
// each once; a batch refused fails the whole call.
func TestBatchPublisherSendsAtOnce(t *testing.T) {
	var bodies [][]byte
	for i := range 95 {
		bodies = append(bodies, []byte(strconv.Itoa(i)))
	}
	rec := &concurrentBatch{}
	if err := (&queue.BatchPublisher{SQS: rec, QueueURL: "q", Senders: 16}).EnqueueAll(t.Context(), bodies); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, c := range rec.calls {
		if len(c) > 10 {
			t.Errorf("a batch of %d", len(c))
		}
		for _, b := range c {
			seen[b]++
		}
	}
	if len(rec.calls) != 10 || len(seen) != len(bodies) {
		t.Errorf("%d batches for %d bodies (%d distinct), want 10 for 95", len(rec.calls), len(bodies), len(seen))
	}
	for b, n := range seen {
		if n != 1 {
			t.Errorf("body %s sent %d times", b, n)
		}
	}
	rec = &concurrentBatch{fail: "42"}
	if err := (&queue.BatchPublisher{SQS: rec, QueueURL: "q", Senders: 16}).EnqueueAll(t.Context(), bodies); err == nil {
		t.Error("a refused batch was not reported")
	}
}
