package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"golang.org/x/sync/errgroup"
)

// SendAPI is the part of the SQS API a Publisher uses.
type SendAPI interface {
	SendMessage(ctx context.Context, in *sqs.SendMessageInput, opts ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)
}

// Publisher puts JSON messages on one queue.
type Publisher struct {
	SQS      SendAPI
	QueueURL string
}

// Enqueue sends body as JSON.
func (p *Publisher) Enqueue(ctx context.Context, body any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	s := string(b)
	if _, err := p.SQS.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &p.QueueURL, MessageBody: &s}); err != nil {
		return fmt.Errorf("enqueue: %w", err)
	}
	return nil
}

// BatchSendAPI is the part of the SQS API a BatchPublisher uses.
type BatchSendAPI interface {
	SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error)
}

// Sender is SendAPI and BatchSendAPI.
type Sender interface {
	SendAPI
	BatchSendAPI
}

// SendCalls is Sender made of c's method values, so that a binary that
// executes templates (the dashboard) links only these two of SQS's
// operations (see dynamo.clientDB).
func SendCalls(c *sqs.Client) Sender {
	return sendCalls{sendMessage: c.SendMessage, sendMessageBatch: c.SendMessageBatch}
}

type sendCalls struct {
	sendMessage      func(context.Context, *sqs.SendMessageInput, ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)
	sendMessageBatch func(context.Context, *sqs.SendMessageBatchInput, ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error)
}

func (s sendCalls) SendMessage(ctx context.Context, in *sqs.SendMessageInput, opts ...func(*sqs.Options)) (*sqs.SendMessageOutput, error) {
	return s.sendMessage(ctx, in, opts...)
}

func (s sendCalls) SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	return s.sendMessageBatch(ctx, in, opts...)
}

// SQS batch limits: 10 entries and 256 KiB of bodies per SendMessageBatch.
const (
	batchEntries = 10
	batchBytes   = 256 << 10
	// sendTries bounds the resends of entries SQS failed on its side.
	sendTries = 3
)

// BatchPublisher puts many JSON messages on one queue in as few calls as
// SQS allows (webhook.JobQueue).
type BatchPublisher struct {
	SQS      BatchSendAPI
	QueueURL string
	// Senders is how many batches go at once when there are many (one
	// after the other when 0 or 1).
	Senders int
}

// EnqueueAll sends bodies, JSON texts, in batches of at most 10 entries
// and 256 KiB, resending the entries SQS failed on its side. Each body
// goes in ASCII (see asciiJSON), which SQS always accepts.
func (p *BatchPublisher) EnqueueAll(ctx context.Context, bodies [][]byte) error {
	if p.Senders <= 1 || len(bodies) <= batchEntries {
		return p.enqueue(ctx, bodies)
	}
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(p.Senders)
	for start := 0; start < len(bodies); start += batchEntries {
		some := bodies[start:min(start+batchEntries, len(bodies))]
		g.Go(func() error { return p.enqueue(ctx, some) })
	}
	return g.Wait()
}

// enqueue sends bodies one batch after the other.
func (p *BatchPublisher) enqueue(ctx context.Context, bodies [][]byte) error {
	var batch []sqstypes.SendMessageBatchRequestEntry
	size := 0
	for i, body := range bodies {
		msg := asciiJSON(body)
		if len(batch) == batchEntries || (len(batch) > 0 && size+len(msg) > batchBytes) {
			if err := p.send(ctx, batch); err != nil {
				return err
			}
			batch, size = nil, 0
		}
		batch = append(batch, sqstypes.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String(string(msg))})
		size += len(msg)
	}
	return p.send(ctx, batch)
}

// send sends one batch, resending the entries SQS failed on its side.
func (p *BatchPublisher) send(ctx context.Context, entries []sqstypes.SendMessageBatchRequestEntry) error {
	for try := 1; len(entries) > 0; try++ {
		out, err := p.SQS.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: &p.QueueURL, Entries: entries})
		if err != nil {
			return fmt.Errorf("send message batch: %w", err)
		}
		if len(out.Failed) == 0 {
			return nil
		}
		failed := map[string]bool{}
		for _, fe := range out.Failed {
			if fe.SenderFault || try == sendTries {
				return fmt.Errorf("send message batch: %d of %d not accepted (%s: %s)",
					len(out.Failed), len(entries), aws.ToString(fe.Code), aws.ToString(fe.Message))
			}
			failed[aws.ToString(fe.Id)] = true
		}
		var again []sqstypes.SendMessageBatchRequestEntry
		for _, en := range entries {
			if failed[aws.ToString(en.Id)] {
				again = append(again, en)
			}
		}
		entries = again
	}
	return nil
}

// asciiJSON escapes every non-ASCII character of a JSON text as \uXXXX
// (a surrogate pair above U+FFFF). SQS refuses some characters in a
// message body (U+FFFE, U+FFFF; the emulator also astral ones), and in
// JSON made by encoding/json they occur only inside strings, where the
// escape decodes back to the same UTF-8 bytes.
func asciiJSON(b []byte) []byte {
	ascii := true
	for _, c := range b {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return b
	}
	const hexDigits = "0123456789abcdef"
	out := make([]byte, 0, len(b)+len(b)/4)
	esc := func(r rune) {
		out = append(out, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
	}
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		switch {
		case r < utf8.RuneSelf:
			out = append(out, b[0])
		case r > 0xFFFF:
			hi, lo := utf16.EncodeRune(r)
			esc(hi)
			esc(lo)
		default:
			esc(r)
		}
		b = b[size:]
	}
	return out
}
