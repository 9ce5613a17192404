package queue_test

import (
	"context"
	"encoding/json"
	"strings"
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
