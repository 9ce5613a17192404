package wakes

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/queue"
)

// batchSQS keeps the batches sent, from several goroutines; a batch
// holding the run id fail is refused.
type batchSQS struct {
	mu      sync.Mutex
	batches [][]automation.WakeMessage
	fail    string
}

func (s *batchSQS) SendMessageBatch(_ context.Context, in *sqs.SendMessageBatchInput, _ ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	var batch []automation.WakeMessage
	for _, e := range in.Entries {
		var m automation.WakeMessage
		if err := json.Unmarshal([]byte(aws.ToString(e.MessageBody)), &m); err != nil {
			return nil, err
		}
		if m.RunID == s.fail {
			return nil, errors.New("throttled")
		}
		batch = append(batch, m)
	}
	s.mu.Lock()
	s.batches = append(s.batches, batch)
	s.mu.Unlock()
	return &sqs.SendMessageBatchOutput{}, nil
}

// A tick's many wake-ups go in batches of ten, several at once: each run
// once; a batch refused fails the whole wake.
func TestBatchWakerSendsEveryRunOnce(t *testing.T) {
	var ms []automation.WakeMessage
	for i := range 95 {
		ms = append(ms, automation.WakeMessage{WorkspaceID: "w", AutomationID: "a", RunID: strconv.Itoa(i)})
	}
	s := &batchSQS{}
	w := BatchWaker{Queue: &queue.BatchPublisher{SQS: s, QueueURL: "q"}}
	if err := w.WakeAll(t.Context(), ms); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, b := range s.batches {
		if len(b) > wakeBatch {
			t.Errorf("a batch of %d", len(b))
		}
		for _, m := range b {
			seen[m.RunID]++
		}
	}
	if len(s.batches) != 10 || len(seen) != len(ms) {
		t.Errorf("%d batches for %d runs (%d distinct), want 10 for 95", len(s.batches), len(ms), len(seen))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("run %s sent %d times", id, n)
		}
	}
	s = &batchSQS{fail: "42"}
	if err := (BatchWaker{Queue: &queue.BatchPublisher{SQS: s, QueueURL: "q"}}).WakeAll(t.Context(), ms); err == nil {
		t.Error("a refused batch was not reported")
	}
}
