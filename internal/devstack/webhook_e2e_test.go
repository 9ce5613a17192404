package devstack_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/openapi/openapitest"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/webhook"
)

// receiver is a customer's webhook endpoint: it keeps every request raw,
// and checks it against the OpenAPI document's webhooks section.
type receiver struct {
	url string

	mu       sync.Mutex
	requests []receivedRequest
}

type receivedRequest struct {
	header http.Header
	body   []byte
}

func startReceiver(t *testing.T) *receiver {
	t.Helper()
	r := &receiver{}
	r.url = allowedServer(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		if err := openapitest.CheckWebhook(req.Header, body); err != nil {
			t.Errorf("%v; body %s", err, body)
		}
		r.mu.Lock()
		r.requests = append(r.requests, receivedRequest{header: req.Header.Clone(), body: body})
		r.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})) + "/hooks/sesame"
	return r
}

func (r *receiver) received() []receivedRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]receivedRequest(nil), r.requests...)
}

// verifySignature is a receiver's own check, written from the spec alone:
// HMAC-SHA256 of "<t>.<raw body>" keyed by the whole whsec_ secret, hex,
// compared in constant time over the raw bytes, any v1 matching, t within
// 300 s of now.
func verifySignature(t *testing.T, secret, header string, body []byte, now time.Time) {
	t.Helper()
	var ts string
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	unix, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		t.Fatalf("signature header %q is not t=<unix>,v1=<hex>", header)
	}
	if d := now.Sub(time.Unix(unix, 0)); d > 300*time.Second || d < -300*time.Second {
		t.Errorf("signature time %d is %v away from now", unix, d)
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, sig := range sigs {
		if got, err := hex.DecodeString(sig); err == nil && hmac.Equal(got, want) {
			return
		}
	}
	t.Errorf("no signature v1 verifies over the raw body")
}

// The whole chain through HTTP: send → SES emulator → simulated Delivery
// event → status consumer → delivered, in the events feed → webhook
// fan-out → dispatcher → the customer's endpoint, signed.
func TestPipelineWebhookEndToEnd(t *testing.T) {
	p := startPipeline(t)
	ctx := t.Context()
	s := newSendWS(t, p.env, defaultSender())
	rcv := startReceiver(t)
	ep, err := webhook.NewEndpoint(s.id, rcv.url, []string{"email.delivered", "email.bounced"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.store.Webhooks.CreateEndpoint(ctx, ep); err != nil {
		t.Fatal(err)
	}
	// An endpoint of another workspace hears nothing of this one.
	other := newSendWS(t, p.env, defaultSender())
	otherRcv := startReceiver(t)
	otherEP, err := webhook.NewEndpoint(other.id, otherRcv.url, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.store.Webhooks.CreateEndpoint(ctx, otherEP); err != nil {
		t.Fatal(err)
	}

	id := p.send(t, s.key, msg("hook", nil))
	p.drain(t, 1) // Delivery
	if got := p.wantEmail(t, s.key, id, "delivered", ""); got["delivered_at"] == nil {
		t.Fatalf("delivered_at not set: %v", got)
	}
	feed := p.feed(t, s.key, "")
	if len(feed.Data) != 1 || feed.Data[0].Type != "email.delivered" {
		t.Fatalf("feed = %+v, want one email.delivered", feed.Data)
	}
	if n, err := p.webhooks.PollOnce(ctx); err != nil || n != 1 {
		t.Fatalf("webhooks queue gave %d jobs (err %v), want 1", n, err)
	}
	got := rcv.received()
	if len(got) != 1 {
		t.Fatalf("receiver got %d requests, want 1", len(got))
	}
	req := got[0]
	verifySignature(t, ep.Secret, req.header.Get("X-Service-Signature"), req.body, time.Now())
	var env struct {
		ID        string `json:"id"`
		Type      string `json:"type"`
		CreatedAt string `json:"created_at"`
		Data      struct {
			ID               string `json:"id"`
			Status           string `json:"status"`
			OpenTrackingMode string `json:"open_tracking_mode"`
		} `json:"data"`
	}
	if err := json.Unmarshal(req.body, &env); err != nil {
		t.Fatal(err)
	}
	if env.ID != feed.Data[0].ID || !strings.HasPrefix(env.ID, "evt_") || env.Type != "email.delivered" ||
		env.Data.ID != id || env.Data.Status != "delivered" || env.Data.OpenTrackingMode != "full" || env.CreatedAt == "" {
		t.Errorf("webhook body = %s", req.body)
	}
	for name, want := range map[string]string{
		"X-Service-Event-Id":   env.ID,
		"X-Service-Event-Type": "email.delivered",
		"Content-Type":         "application/json",
	} {
		if v := req.header.Get(name); v != want {
			t.Errorf("%s = %q, want %q", name, v, want)
		}
	}
	if ua := req.header.Get("User-Agent"); !strings.Contains(ua, "Sesame") {
		t.Errorf("User-Agent %q does not name Sesame", ua)
	}
	if n := len(otherRcv.received()); n != 0 {
		t.Errorf("another workspace's endpoint got %d requests", n)
	}
	attempts, err := p.store.Webhooks.ListAttempts(ctx, s.id, ep.ID, 10)
	if err != nil || len(attempts) != 1 || !attempts[0].Succeeded() || attempts[0].EventID != env.ID {
		t.Errorf("attempt log = %+v (err %v), want one successful attempt for %s", attempts, err, env.ID)
	}
}

// A job delivered once comes back when its delete was lost (SQS delivers
// at least once): the dispatcher finds the event's 2xx attempt in the
// endpoint's attempt log and drops the job instead of POSTing it again.
func TestPipelineWebhookRedeliveryDropped(t *testing.T) {
	p := startPipeline(t)
	ctx := t.Context()
	s := newSendWS(t, p.env, defaultSender())
	rcv := startReceiver(t)
	ep, err := webhook.NewEndpoint(s.id, rcv.url, []string{"email.delivered"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.store.Webhooks.CreateEndpoint(ctx, ep); err != nil {
		t.Fatal(err)
	}
	dispatch := api.Consumers(p.deps)[routes.WebhookDispatch]
	var jobs []events.SQSMessage
	webhooks := p.queues.Poller(t, queue.Webhooks.Name, func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		jobs = append(jobs, ev.Records...)
		return dispatch(ctx, ev)
	})

	p.send(t, s.key, msg("again", nil))
	p.drain(t, 1) // Delivery
	if n, err := webhooks.PollOnce(ctx); err != nil || n != 1 || len(rcv.received()) != 1 {
		t.Fatalf("webhooks queue gave %d jobs (err %v), endpoint got %d POSTs; want 1 and 1", n, err, len(rcv.received()))
	}
	again := jobs[0]
	again.Attributes = maps.Clone(again.Attributes)
	if again.Attributes == nil {
		again.Attributes = map[string]string{}
	}
	again.Attributes["ApproximateReceiveCount"] = "2"
	resp, err := dispatch(ctx, events.SQSEvent{Records: []events.SQSMessage{again}})
	if err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("redelivered job: failures %+v, err %v", resp.BatchItemFailures, err)
	}
	if n := len(rcv.received()); n != 1 {
		t.Errorf("endpoint got %d POSTs, want 1: the redelivered job of a delivered event is dropped", n)
	}
}
