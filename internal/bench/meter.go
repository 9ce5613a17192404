// Package bench measures Sesame as users use it (`make bench`): handler
// CPU per request for realistic bodies against a minimal handler making
// the same SDK calls, the review's content checks, each function's start
// against a binary that only builds its SDK clients (init_test.go), and
// what every path uses of DynamoDB, SQS, Lambda and CloudWatch Logs,
// priced per 1,000 emails by AWS's billing rules (internal/cost). Nothing
// here runs in `make test`.
package bench

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"golang.org/x/sys/unix"

	"github.com/sesame-mail/sesame/internal/cost"
)

// cpuTime is the CPU time this process has used, all threads (the
// runtime's and the garbage collector's too): time spent waiting on a
// socket is not in it, nor time the machine gave other processes.
func cpuTime() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		return 0 // Linux always has this clock
	}
	return time.Duration(ts.Nano())
}

// countingWriter counts the bytes and lines written to it (a JSON
// logger's output), and drops them.
type countingWriter struct {
	mu           sync.Mutex
	bytes, lines int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.bytes += len(p)
	for _, c := range p {
		if c == '\n' {
			w.lines++
		}
	}
	w.mu.Unlock()
	return len(p), nil
}

// take returns what was written since the last take.
func (w *countingWriter) take() (bytes, lines int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	bytes, lines = w.bytes, w.lines
	w.bytes, w.lines = 0, 0
	return bytes, lines
}

// capturedSQS stands in for SQS: it answers every send at once, keeps the
// bodies by queue URL for the bench to hand to the consumers, and counts
// requests as SQS bills them (each 64 KB of payload one request).
type capturedSQS struct {
	mu       sync.Mutex
	requests float64
	calls    int
	bodies   map[string][]string
}

func (q *capturedSQS) keep(url string, bodies ...string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.bodies == nil {
		q.bodies = map[string][]string{}
	}
	size := 0
	for _, b := range bodies {
		size += len(b)
	}
	q.requests += cost.SQSRequests(size)
	q.calls++
	q.bodies[url] = append(q.bodies[url], bodies...)
}

// take returns the requests made and the calls since the last take.
func (q *capturedSQS) take() (requests float64, calls int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	requests, calls = q.requests, q.calls
	q.requests, q.calls = 0, 0
	return requests, calls
}

// drain returns and forgets the bodies sent to url.
func (q *capturedSQS) drain(url string) []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.bodies[url]
	delete(q.bodies, url)
	return out
}

func (q *capturedSQS) SendMessage(_ context.Context, in *sqs.SendMessageInput, _ ...func(*sqs.Options)) (*sqs.SendMessageOutput, error) {
	q.keep(aws.ToString(in.QueueUrl), aws.ToString(in.MessageBody))
	return &sqs.SendMessageOutput{MessageId: aws.String("m")}, nil
}

func (q *capturedSQS) SendMessageBatch(_ context.Context, in *sqs.SendMessageBatchInput, _ ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	out := &sqs.SendMessageBatchOutput{}
	var bodies []string
	for _, e := range in.Entries {
		bodies = append(bodies, aws.ToString(e.MessageBody))
		out.Successful = append(out.Successful, sqstypes.SendMessageBatchResultEntry{Id: e.Id, MessageId: aws.String("m" + strconv.Itoa(len(bodies)))})
	}
	q.keep(aws.ToString(in.QueueUrl), bodies...)
	return out, nil
}

func (q *capturedSQS) ChangeMessageVisibility(_ context.Context, in *sqs.ChangeMessageVisibilityInput, _ ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityOutput, error) {
	q.keep(aws.ToString(in.QueueUrl))
	return &sqs.ChangeMessageVisibilityOutput{}, nil
}
