package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/sesame-mail/sesame/internal/event"
)

// BatchSender is the part of the SQS API the fan-out uses.
type BatchSender interface {
	SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error)
}

// SQS batch limits: 10 entries and 256 KiB of bodies per SendMessageBatch.
const (
	batchEntries = 10
	batchBytes   = 256 << 10
	// sendTries bounds the resends of entries SQS failed on its side.
	sendTries = 3
)

// Fanout is the event.Publisher of webhooks: it enqueues one job per
// enabled endpoint of the event's workspace subscribed to its type.
// Publishing an event twice enqueues it twice; the dispatcher drops the
// duplicate of a delivered event.
type Fanout struct {
	Endpoints EndpointLister
	SQS       BatchSender
	QueueURL  string
}

var _ event.Publisher = (*Fanout)(nil)

// Publish enqueues e for every subscribed endpoint.
func (f *Fanout) Publish(ctx context.Context, e event.Event) error {
	if e.WorkspaceID == "" || e.ID == "" || !e.Type.Valid() {
		return fmt.Errorf("publish webhook event: incomplete event (id %q, type %q)", e.ID, e.Type)
	}
	endpoints, err := f.Endpoints.ListEndpoints(ctx, e.WorkspaceID)
	if err != nil {
		return fmt.Errorf("publish webhook event: %w", err)
	}
	var targets []Endpoint
	for _, ep := range endpoints {
		if ep.Enabled && ep.Subscribed(e.Type) {
			targets = append(targets, ep)
		}
	}
	if len(targets) == 0 {
		return nil
	}
	body, err := e.Body()
	if err != nil {
		return err
	}
	if !utf8.Valid(body) { // a JSON string could not carry it byte for byte
		return errors.New("publish webhook event: body is not UTF-8")
	}
	var batch []sqstypes.SendMessageBatchRequestEntry
	size := 0
	for _, ep := range targets {
		msg, err := json.Marshal(Job{
			WorkspaceID: e.WorkspaceID, EndpointID: ep.ID, EventID: e.ID, EventType: e.Type, Payload: string(body),
		})
		if err != nil {
			return err
		}
		msg = asciiJSON(msg)
		if len(batch) == batchEntries || (len(batch) > 0 && size+len(msg) > batchBytes) {
			if err := f.send(ctx, batch); err != nil {
				return err
			}
			batch, size = nil, 0
		}
		batch = append(batch, sqstypes.SendMessageBatchRequestEntry{Id: aws.String(ep.ID), MessageBody: aws.String(string(msg))})
		size += len(msg)
	}
	return f.send(ctx, batch)
}

// send sends one batch, resending the entries SQS failed on its side.
func (f *Fanout) send(ctx context.Context, entries []sqstypes.SendMessageBatchRequestEntry) error {
	for try := 1; len(entries) > 0; try++ {
		out, err := f.SQS.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: &f.QueueURL, Entries: entries})
		if err != nil {
			return fmt.Errorf("enqueue webhook jobs: %w", err)
		}
		if len(out.Failed) == 0 {
			return nil
		}
		failed := map[string]bool{}
		for _, fe := range out.Failed {
			if fe.SenderFault || try == sendTries {
				return fmt.Errorf("enqueue webhook jobs: %d of %d not accepted (%s: %s)",
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
