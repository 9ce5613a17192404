package webhook_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/google/uuid"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/dynamo/repositories"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/queue/batch"
	"github.com/sesame-mail/sesame/internal/webhook"
)

// testPrefixes lets the dispatcher reach the test receivers on 127.0.0.2,
// as the dev stack would allow loopback; production allows nothing.
var testPrefixes = []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}

// received is one request a receiver got.
type received struct {
	header http.Header
	body   []byte
	path   string
}

// receiver is a webhook endpoint bound to a chosen loopback address that
// records what it gets and counts the connections it accepted.
type receiver struct {
	*httptest.Server
	conns atomic.Int64

	mu   sync.Mutex
	reqs []received
	// answer decides the response to the n-th request (1-based).
	answer func(w http.ResponseWriter, r *http.Request, n int)
}

func newReceiver(t *testing.T, addr string, answer func(w http.ResponseWriter, r *http.Request, n int)) *receiver {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	rc := &receiver{answer: answer}
	rc.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.reqs = append(rc.reqs, received{header: r.Header.Clone(), body: body, path: r.URL.Path})
		n := len(rc.reqs)
		rc.mu.Unlock()
		rc.answer(w, r, n)
	}))
	rc.Listener.Close()
	rc.Listener = l
	rc.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			rc.conns.Add(1)
		}
	}
	rc.Start()
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) requests() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.reqs...)
}

func (rc *receiver) port() string { return strconv.Itoa(rc.Listener.Addr().(*net.TCPAddr).Port) }

func status(code int) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, _ *http.Request, _ int) { w.WriteHeader(code) }
}

// fixture is a store with a workspace.
type fixture struct {
	t     *testing.T
	store repositories.Set
	rec   *dynamotest.Recorder
	ws    string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	store, rec := dynamotest.NewStore(t)
	ws, err := store.Workspaces.CreateWorkspace(t.Context(), "Acme")
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, store: store, rec: rec, ws: ws.ID}
}

// endpoint stores an enabled endpoint of the workspace at url, bypassing
// the add-time URL checks (so a test can aim at loopback).
func (f *fixture) endpoint(url string, types ...event.Type) webhook.Endpoint {
	f.t.Helper()
	return f.endpointIn(f.ws, url, types...)
}

func (f *fixture) endpointIn(ws, url string, types ...event.Type) webhook.Endpoint {
	f.t.Helper()
	ep := webhook.Endpoint{
		ID: uuid.Must(uuid.NewV7()).String(), WorkspaceID: ws, URL: url, Secret: webhook.NewSecret(),
		Events: types, Enabled: true, CreatedAt: time.Now().UTC(),
	}
	if err := f.store.Webhooks.CreateEndpoint(f.t.Context(), ep); err != nil {
		f.t.Fatal(err)
	}
	return ep
}

func (f *fixture) get(id string) webhook.Endpoint {
	f.t.Helper()
	ep, err := f.store.Webhooks.GetEndpoint(f.t.Context(), f.ws, id)
	if err != nil {
		f.t.Fatal(err)
	}
	return ep
}

// isDelivered reports whether the event reached the endpoint: a delivery is
// recorded by its successful attempt alone.
func (f *fixture) isDelivered(endpointID string, e event.Event) bool {
	f.t.Helper()
	emailID := ""
	if e.Data != nil {
		emailID = e.Data.ID
	}
	delivered, err := f.store.Webhooks.DeliveredSince(f.t.Context(), f.ws, endpointID, emailID, e.ID, time.Time{})
	if err != nil {
		f.t.Fatal(err)
	}
	return delivered
}

func (f *fixture) attempts(endpointID string) []webhook.Attempt {
	f.t.Helper()
	as, err := f.store.Webhooks.ListAttempts(f.t.Context(), f.ws, endpointID, 100)
	if err != nil {
		f.t.Fatal(err)
	}
	return as
}

// testEvent is an event whose body has characters JSON escapes, so a
// body that was re-encoded on the way would differ.
func testEvent(ws string, t event.Type) event.Event {
	errText := `quoted "text" & <markup>`
	return event.Event{
		ID: "evt_" + uuid.Must(uuid.NewV7()).String(), WorkspaceID: ws, Type: t,
		CreatedAt: time.Date(2026, 3, 4, 5, 6, 7, 890_000_000, time.UTC),
		Data: &email.View{
			ID: uuid.NewString(), To: "zoë@example.com", Subject: "Ünïcode <b>&</b> \u2028 emoji 🎉",
			Status: email.Status("delivered"), Environment: "live", SentAt: "2026-03-04T05:06:00.000Z",
			OpenTrackingMode: email.TrackingMode("full"), Error: &errText,
		},
	}
}

// delivered records a successful attempt of e to ep at at.
func (f *fixture) delivered(ep webhook.Endpoint, e event.Event, at time.Time) {
	f.t.Helper()
	a := webhook.Attempt{WorkspaceID: ep.WorkspaceID, EndpointID: ep.ID, EventID: e.ID, EventType: e.Type, Number: 1, At: at, StatusCode: 200}
	if e.Data != nil { // as the dispatcher records it: the job's email
		a.EmailID = e.Data.ID
	}
	if err := f.store.Webhooks.RecordAttempt(f.t.Context(), a); err != nil {
		f.t.Fatal(err)
	}
}

// job is the queue message of e for ep, as the fan-out writes it.
func job(t *testing.T, ep webhook.Endpoint, e event.Event) webhook.Job {
	t.Helper()
	body, err := e.Body()
	if err != nil {
		t.Fatal(err)
	}
	return webhook.Job{WorkspaceID: ep.WorkspaceID, EndpointID: ep.ID, EventID: e.ID, EventType: e.Type, EmailID: e.Data.ID, Payload: string(body)}
}

// fakeSQS records ChangeMessageVisibility calls.
type fakeSQS struct {
	mu    sync.Mutex
	calls []sqs.ChangeMessageVisibilityInput
	err   error
}

func (f *fakeSQS) ChangeMessageVisibility(_ context.Context, in *sqs.ChangeMessageVisibilityInput, _ ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, *in)
	return &sqs.ChangeMessageVisibilityOutput{}, f.err
}

func (f *fakeSQS) visibility() []int32 {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []int32
	for _, c := range f.calls {
		out = append(out, c.VisibilityTimeout)
	}
	return out
}

// message is a queue message of a job, received for the receive-th time
// and first received at first (to the millisecond, as SQS tells it).
func message(t *testing.T, j webhook.Job, receive int, first time.Time) batch.Message {
	t.Helper()
	body, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	first = time.UnixMilli(first.UnixMilli())
	return batch.Message{
		ID: uuid.NewString(), Receipt: "rh-" + uuid.NewString(), Body: string(body),
		ReceiveCount: receive, FirstReceived: first, Sent: first,
	}
}

// identity is a jitter that keeps the scheduled delay.
func identity(d time.Duration) time.Duration { return d }
