package webhook_test

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/queue/batch"
	"github.com/sesame-mail/sesame/internal/queue/queuetest"
	"github.com/sesame-mail/sesame/internal/webhook"
	"github.com/sesame-mail/sesame/internal/webhook/post"
)

// deadlineTransport answers 200 and records the deadline of each request.
type deadlineTransport struct {
	mu        sync.Mutex
	deadlines []time.Time
}

func (d *deadlineTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	deadline, _ := r.Context().Deadline() // zero when there is none
	d.mu.Lock()
	d.deadlines = append(d.deadlines, deadline)
	d.mu.Unlock()
	return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(strings.NewReader("")), Header: http.Header{}, Request: r}, nil
}

// A dispatcher built without a timeout bounds each POST by DefaultTimeout,
// even through a client of one's own.
func TestDispatcherDefaultTimeout(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		timeout time.Duration
		want    time.Duration
	}{
		"no timeout":  {timeout: 0, want: webhook.DefaultTimeout},
		"own timeout": {timeout: 3 * time.Second, want: 3 * time.Second},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			ep := f.endpoint("https://hooks.example.com/in")
			tr := &deadlineTransport{}
			poster := &post.Client{HTTP: &http.Client{Transport: tr}}
			later := &queue.Visibility{SQS: &fakeSQS{}, QueueURL: "https://sqs.test/000000000000/webhooks"}
			d := webhook.NewDispatcher(f.store.Webhooks, poster, later, webhook.DispatcherOptions{
				Timeout: tc.timeout, Logger: queuetest.Logger(t),
			})
			rec := message(t, job(t, ep, testEvent(f.ws, event.Delivered)), 1, time.Now())
			before := time.Now()
			retry := d.Handle(t.Context(), []batch.Message{rec})
			after := time.Now()
			if len(retry) != 0 {
				t.Fatalf("Handle = %v; want the job delivered", retry)
			}
			tr.mu.Lock()
			defer tr.mu.Unlock()
			if len(tr.deadlines) != 1 {
				t.Fatalf("transport saw %d requests, want 1", len(tr.deadlines))
			}
			// The deadline was set during Handle: it is tc.want after a
			// moment between before and after.
			if dl := tr.deadlines[0]; dl.IsZero() {
				t.Errorf("POST has no deadline, want %v", tc.want)
			} else if dl.Before(before.Add(tc.want)) || dl.After(after.Add(tc.want)) {
				t.Errorf("POST deadline is %v after Handle began, want %v", dl.Sub(before), tc.want)
			}
		})
	}
}
