package webhook_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/queue/queuetest"
	"github.com/sesame-mail/sesame/internal/webhook"
)

// Only enabled endpoints of the event's workspace subscribed to its type
// get a job, on the emulated queue, with the exact body.
func TestFanoutEnqueuesForSubscribedEndpoints(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	f := newFixture(t)
	other, err := f.store.Workspaces.CreateWorkspace(ctx, "Other")
	if err != nil {
		t.Fatal(err)
	}
	all := f.endpoint("https://a.example.com/")
	delivered := f.endpoint("https://b.example.com/", event.Delivered, event.Bounced)
	f.endpoint("https://c.example.com/", event.Bounced)
	disabled := f.endpoint("https://d.example.com/")
	if _, err := f.store.Webhooks.SetEndpointEnabled(ctx, f.ws, disabled.ID, false, "test"); err != nil {
		t.Fatal(err)
	}
	f.endpointIn(other.ID, "https://e.example.com/")

	qs := queuetest.New(t, queuetest.Def(queue.Webhooks.Name, 5))
	fan := &webhook.Fanout{Endpoints: f.store.Webhooks, Queue: &queue.BatchPublisher{SQS: qs.SQS, QueueURL: qs.URL(t, queue.Webhooks.Name)}}
	e := testEvent(f.ws, event.Delivered)
	body, _ := e.Body()
	for range 2 { // publishing again enqueues again; the dispatcher dedupes
		if err := fan.Publish(ctx, e); err != nil {
			t.Fatal(err)
		}
	}

	var jobs []webhook.Job
	p := qs.Poller(t, queue.Webhooks.Name, func(_ context.Context, batch events.SQSEvent) (events.SQSEventResponse, error) {
		for _, r := range batch.Records {
			var j webhook.Job
			if err := json.Unmarshal([]byte(r.Body), &j); err != nil {
				t.Errorf("job %q: %v", r.Body, err)
			}
			for _, c := range r.Body {
				if c > 0x7e {
					t.Errorf("job body has a non-ASCII character %q", c)
					break
				}
			}
			jobs = append(jobs, j)
		}
		return events.SQSEventResponse{}, nil
	})
	deadline := time.Now().Add(20 * time.Second)
	for len(jobs) < 4 && time.Now().Before(deadline) {
		if _, err := p.PollOnce(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, j := range jobs {
		got = append(got, j.EndpointID)
		if j.WorkspaceID != f.ws || j.EventID != e.ID || j.EventType != event.Delivered || j.EmailID != e.Data.ID || j.Payload != string(body) {
			t.Errorf("job = %+v, want workspace %s, event %s, email %s, the exact body", j, f.ws, e.ID, e.Data.ID)
		}
	}
	slices.Sort(got)
	want := []string{all.ID, all.ID, delivered.ID, delivered.ID}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("jobs went to %v, want %v (twice each)", got, want)
	}
	if visible, inFlight := qs.Counts(t, queue.Webhooks.Name); visible+inFlight != 0 {
		t.Errorf("extra jobs: %d visible, %d in flight", visible, inFlight)
	}
}

// fakeBatch is the SQS batch API, its answer a function field.
type fakeBatch struct {
	calls [][]string // entry ids per call
	send  func(call int, in *sqs.SendMessageBatchInput) (*sqs.SendMessageBatchOutput, error)
}

func (f *fakeBatch) SendMessageBatch(_ context.Context, in *sqs.SendMessageBatchInput, _ ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	var ids []string
	for _, e := range in.Entries {
		ids = append(ids, aws.ToString(e.Id))
	}
	f.calls = append(f.calls, ids)
	if f.send == nil {
		return &sqs.SendMessageBatchOutput{}, nil
	}
	return f.send(len(f.calls), in)
}

type fakeLister []webhook.Endpoint

func (l fakeLister) ListEndpoints(context.Context, string) ([]webhook.Endpoint, error) { return l, nil }

// countingLister counts its reads by workspace.
type countingLister struct {
	fakeLister
	reads map[string]int
}

func (l *countingLister) ListEndpoints(ctx context.Context, ws string) ([]webhook.Endpoint, error) {
	l.reads[ws]++
	return l.fakeLister.ListEndpoints(ctx, ws)
}

// The events of a status batch go out together: their workspace's
// endpoints read once, their jobs in SendMessageBatch calls of ten.
func TestFanoutPublishesABatchTogether(t *testing.T) {
	ws := uuid.NewString()
	lister := &countingLister{fakeLister: fakeLister{{ID: uuid.NewString(), WorkspaceID: ws, Enabled: true}}, reads: map[string]int{}}
	sender := &fakeBatch{}
	fan := &webhook.Fanout{Endpoints: lister, Queue: &queue.BatchPublisher{SQS: sender, QueueURL: "q"}}
	var events []event.Event
	for range 13 {
		events = append(events, testEvent(ws, event.Delivered))
	}
	if err := fan.Publish(t.Context(), events...); err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for _, c := range sender.calls {
		sizes = append(sizes, len(c))
	}
	if !slices.Equal(sizes, []int{10, 3}) {
		t.Errorf("batch sizes = %v, want [10 3]: 13 jobs in as few requests as SQS allows", sizes)
	}
	if lister.reads[ws] != 1 {
		t.Errorf("endpoints read %d times, want once for the batch", lister.reads[ws])
	}
}

// The jobs of one event reach SQS through queue.BatchPublisher: in
// chunks of ten, entries SQS failed on its side resent, faults reported.
func TestFanoutBatches(t *testing.T) {
	ws := uuid.NewString()
	endpoints := func(n int) fakeLister {
		var l fakeLister
		for range n {
			l = append(l, webhook.Endpoint{ID: uuid.NewString(), WorkspaceID: ws, Enabled: true})
		}
		return l
	}
	failFirst := func(senderFault bool) func(int, *sqs.SendMessageBatchInput) (*sqs.SendMessageBatchOutput, error) {
		return func(call int, in *sqs.SendMessageBatchInput) (*sqs.SendMessageBatchOutput, error) {
			if call > 1 {
				return &sqs.SendMessageBatchOutput{}, nil
			}
			return &sqs.SendMessageBatchOutput{Failed: []sqstypes.BatchResultErrorEntry{{
				Id: in.Entries[0].Id, Code: aws.String("InternalError"), SenderFault: senderFault,
			}}}, nil
		}
	}
	cases := map[string]struct {
		endpoints fakeLister
		send      func(int, *sqs.SendMessageBatchInput) (*sqs.SendMessageBatchOutput, error)
		wantSizes []int
		wantErr   string
	}{
		"no endpoint, no call":       {endpoints: nil, wantSizes: nil},
		"one batch":                  {endpoints: endpoints(10), wantSizes: []int{10}},
		"chunks of ten":              {endpoints: endpoints(23), wantSizes: []int{10, 10, 3}},
		"an entry failed is resent":  {endpoints: endpoints(3), send: failFirst(false), wantSizes: []int{3, 1}},
		"a sender fault is an error": {endpoints: endpoints(3), send: failFirst(true), wantSizes: []int{3}, wantErr: "1 of 3 not accepted"},
		"a call error is an error": {endpoints: endpoints(2), send: func(int, *sqs.SendMessageBatchInput) (*sqs.SendMessageBatchOutput, error) {
			return nil, errors.New("throttled")
		}, wantSizes: []int{2}, wantErr: "throttled"},
		"persistent failure gives up": {endpoints: endpoints(2), send: func(_ int, in *sqs.SendMessageBatchInput) (*sqs.SendMessageBatchOutput, error) {
			return failFirst(false)(1, in)
		}, wantSizes: []int{2, 1, 1}, wantErr: "not accepted"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			sender := &fakeBatch{send: tc.send}
			fan := &webhook.Fanout{Endpoints: tc.endpoints, Queue: &queue.BatchPublisher{SQS: sender, QueueURL: "q"}}
			err := fan.Publish(t.Context(), testEvent(ws, event.Clicked))
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("Publish = %v, want error %q", err, tc.wantErr)
			}
			var sizes []int
			for _, c := range sender.calls {
				sizes = append(sizes, len(c))
			}
			if !slices.Equal(sizes, tc.wantSizes) {
				t.Errorf("batch sizes = %v, want %v", sizes, tc.wantSizes)
			}
		})
	}
}

func TestFanoutRefusesIncompleteEvents(t *testing.T) {
	fan := &webhook.Fanout{Endpoints: fakeLister{}, Queue: &queue.BatchPublisher{SQS: &fakeBatch{}}}
	for name, e := range map[string]event.Event{
		"no workspace": {ID: "evt_1", Type: event.Delivered},
		"no id":        {WorkspaceID: "ws", Type: event.Delivered},
		"unknown type": {ID: "evt_1", WorkspaceID: "ws", Type: "email.sent"},
	} {
		if err := fan.Publish(t.Context(), e); err == nil {
			t.Errorf("%s: Publish succeeded", name)
		}
	}
}
