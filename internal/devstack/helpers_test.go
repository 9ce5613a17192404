package devstack_test

// The harness every devstack test shares: env, a dev server over a fresh
// table and queues of its own; the requests the tests make, the answers
// they check and the emails they read back. Sending helpers are in
// helpers_send_test.go, the delivery pipeline's in helpers_pipeline_test.go.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/devstack"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/dynamo/repositories"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/openapi/openapitest"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/queue/queuetest"
	"github.com/sesame-mail/sesame/internal/sending"
)

// env is one running dev server over a fresh table, with the full
// dependencies of `sesame dev`: the SES emulator and a review queue of its
// own (polled only when a test asks).
type env struct {
	t      *testing.T
	url    string
	deps   api.Deps
	store  repositories.Set
	rec    *dynamotest.Recorder
	queues *queuetest.Set
	ses    *fakeTransport
	// http sends every request of the harness and checks each one to
	// /api/v1, and its response, against the OpenAPI document.
	http *http.Client
	// sendWorkspaces counts newSendWS workspaces: a sending domain belongs
	// to one workspace, so each after the first gets a domain of its own.
	sendWorkspaces *atomic.Int32
}

// fakeTransport records SES sends and, when Fail is set, fails them;
// otherwise it passes them to the real transport (the SES emulator).
type fakeTransport struct {
	Next sending.Transport
	Fail func(in sending.SendInput) error

	mu    sync.Mutex
	sends []sending.SendInput
}

func (f *fakeTransport) Send(ctx context.Context, in sending.SendInput) (string, error) {
	f.mu.Lock()
	f.sends = append(f.sends, in)
	fail := f.Fail
	f.mu.Unlock()
	if fail != nil {
		if err := fail(in); err != nil {
			return "", err
		}
	}
	return f.Next.Send(ctx, in)
}

// lastSendDone reports whether a send has been handed to the transport.
func (f *fakeTransport) lastSendDone() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.sends) > 0
}

// Sends returns what was handed to SES so far.
func (f *fakeTransport) Sends() []sending.SendInput {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]sending.SendInput(nil), f.sends...)
}

// newEnv builds the dependencies `sesame dev` has over a fresh table and
// queues of their own, SES going through a recording fakeTransport. wrap,
// when given, may change them (e.g. add the SES event simulation) and
// returns the dev-only routes to serve. The server runs until the test ends.
func newEnv(t *testing.T, wrap func(api.Deps, *queuetest.Set) (api.Deps, []httpapi.Route)) *env {
	t.Helper()
	store, rec := dynamotest.NewStore(t)
	// Runs after the server stops: whatever the test did, the table holds
	// only keys the data model allows.
	t.Cleanup(func() { dynamotest.CheckKeyLayout(t, store.Table.Name) })
	// A campaign chunk given back comes again in a second, not ten minutes.
	queues := queuetest.New(t, queue.Review, queue.SESEvents, queue.Webhooks, queuetest.Def(queue.Sends.Name, queue.Sends.MaxReceives),
		queuetest.Def(queue.Automations.Name, queue.Automations.MaxReceives))
	awsCfg, err := awsconfig.LoadDefaultConfig(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// Every client records the calls made in a function's name (calls).
	awsCfg.APIOptions = append(awsCfg.APIOptions, calls.Record)
	clients := api.NewClients(awsCfg, config.SDK{})
	rec.DB = dynamodb.New(dynamotest.Client(t).Options(), func(o *dynamodb.Options) {
		o.APIOptions = append(slices.Clip(o.APIOptions), calls.Record)
	})
	clients.DynamoDB = rec
	clients.SQS = sqs.New(queuetest.Client(t).Options(), func(o *sqs.Options) {
		o.APIOptions = append(slices.Clip(o.APIOptions), calls.Record)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.API{
		DynamoDB:         config.DynamoDB{Table: store.Table.Name},
		Paging:           config.Paging{CursorSecret: "test-secret"},
		Unsubscribing:    config.Unsubscribing{UnsubscribeSecret: "test-unsubscribe-secret"},
		PublicURL:        config.PublicURL{PublicURL: "http://" + ln.Addr().String()},
		ReviewQueue:      config.ReviewQueue{ReviewQueueURL: queues.URL(t, queue.Review.Name)},
		SES:              config.SES{ConfigSetFull: "full-set", ConfigSetEssential: "essential-set", ConfigSetOff: "off-set"},
		WebhooksQueue:    config.WebhooksQueue{WebhooksQueueURL: queues.URL(t, queue.Webhooks.Name)},
		SendsQueue:       config.SendsQueue{SendsQueueURL: queues.URL(t, queue.Sends.Name)},
		AutomationsQueue: config.AutomationsQueue{AutomationsQueueURL: queues.URL(t, queue.Automations.Name)},
		// Campaigns paced well above what a test sends.
		Pacing: config.Pacing{MaxSendRate: 1000},
		// Test receivers listen on 127.0.0.2; nothing else on loopback.
		Delivery: config.Delivery{WebhookAllowedPrefixes: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}},
		// The dashboard's sign-in links go to the SES emulator.
		DashboardSecret: config.DashboardSecret{DashboardSecret: "test-dashboard-secret"},
		DashboardMail:   config.DashboardMail{DashboardFrom: devstack.DemoSender},
	}
	deps := api.NewDeps(cfg, clients, api.NewLogger(8)) // level 8: quiet tests
	transport := &fakeTransport{Next: deps.Sending.Transport}
	deps.Sending.Transport = transport
	deps.CampaignSender.Transport = transport
	deps.AutomationRunner.Transport = transport
	var devRoutes []httpapi.Route
	if wrap != nil {
		deps, devRoutes = wrap(deps, queues)
	}
	dashboard, err := api.NewDashboard(cfg, deps, clients, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	stack := &devstack.Stack{Deps: deps, DevRoutes: devRoutes, Dashboard: dashboard}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- stack.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return &env{t: t, url: "http://" + ln.Addr().String(), deps: deps, store: deps.Repos, rec: rec, queues: queues, ses: transport,
		http: &http.Client{Transport: &openapitest.Transport{Report: t.Errorf}}, sendWorkspaces: new(atomic.Int32)}
}

// bad is e for requests that are invalid on purpose (tests of the API's
// refusals): their responses are still checked against the OpenAPI
// document, the requests themselves are not.
func (e *env) bad() *env {
	b := *e
	b.http = &http.Client{Transport: &openapitest.Transport{Report: e.t.Errorf, BadInput: true}}
	return &b
}

func startDev(t *testing.T) *env {
	t.Helper()
	return newEnv(t, nil)
}

// startDevAt is startDev with the send service and the store on clock.
func startDevAt(t *testing.T, clock *dynamotest.Clock) *env {
	t.Helper()
	return newEnv(t, func(deps api.Deps, _ *queuetest.Set) (api.Deps, []httpapi.Route) {
		deps.Sending.Now = clock.Now
		deps.Repos.Table.Now = clock.Now
		return deps, nil
	})
}

// workspace creates a workspace and a key with the given scopes (nil for a
// legacy full-access key).
func (e *env) workspace(envName apikey.Environment, scopes ...apikey.Scope) (string, string) {
	e.t.Helper()
	ctx := e.t.Context()
	ws, err := e.store.Workspaces.CreateWorkspace(ctx, "ws")
	if err != nil {
		e.t.Fatal(err)
	}
	if len(scopes) == 0 {
		scopes = apikey.FullAccess
	}
	key, _, err := e.store.Keys.CreateKey(ctx, ws.ID, envName, "", scopes)
	if err != nil {
		e.t.Fatal(err)
	}
	return ws.ID, key
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (e *env) get(key, path string) response {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.url+path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", key)
	}
	res, err := e.http.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return response{status: res.StatusCode, header: res.Header, body: body}
}

type errorBody struct {
	Error struct {
		Code      string  `json:"code"`
		Message   string  `json:"message"`
		Param     *string `json:"param"`
		RequestID string  `json:"request_id"`
	} `json:"error"`
}

// decode requires the answer's status and decodes its JSON body into v.
func (r response) decode(t *testing.T, status int, v any) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status = %d, want %d; body %s", r.status, status, r.body)
	}
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("body %s: %v", r.body, err)
	}
}

// wantError checks status, code, param ("" for null) and the request id.
func (r response) wantError(t *testing.T, status int, code, param string) {
	t.Helper()
	var b errorBody
	r.decode(t, status, &b)
	if b.Error.Code != code {
		t.Errorf("code = %q, want %q", b.Error.Code, code)
	}
	gotParam := ""
	if b.Error.Param != nil {
		gotParam = *b.Error.Param
	}
	if gotParam != param {
		t.Errorf("param = %q, want %q", gotParam, param)
	}
	if id := r.header.Get("X-Request-Id"); id == "" || id != b.Error.RequestID {
		t.Errorf("X-Request-Id %q, body request_id %q", id, b.Error.RequestID)
	}
}

func bearer(key string) string { return "Bearer " + key }

// allowedServer serves h on 127.0.0.2, the one address the test attachment
// fetchers and webhook clients may reach, until the test ends; it returns
// the server's URL.
func allowedServer(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatalf("listen on 127.0.0.2: %v", err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

func (e *env) putEmail(workspaceID string, mutate func(*email.Email)) email.Email {
	e.t.Helper()
	id, err := uuid.NewV7()
	if err != nil {
		e.t.Fatal(err)
	}
	m := email.Email{
		ID: id.String(), WorkspaceID: workspaceID, To: "a@example.com", Subject: "Hi",
		Status: email.StatusSent, Type: email.TypeTransactional, Environment: apikey.Live,
		SentAt: time.Now().UTC(), TrackingMode: email.TrackingFull,
	}
	if mutate != nil {
		mutate(&m)
	}
	if err := e.store.Emails.PutEmail(e.t.Context(), m); err != nil {
		e.t.Fatal(err)
	}
	return m
}

// do sends one request to base+path; body is sent as is when it is a
// string, else as JSON. hdr are header name/value pairs; Content-Type is
// application/json unless given.
func (e *env) do(base, key, method, path string, body any, hdr ...string) (response, error) {
	var raw []byte
	switch b := body.(type) {
	case nil:
	case string:
		raw = []byte(b)
	default:
		var err error
		if raw, err = json.Marshal(b); err != nil {
			return response{}, err
		}
	}
	req, err := http.NewRequest(method, base+path, bytes.NewReader(raw))
	if err != nil {
		return response{}, err
	}
	if key != "" {
		req.Header.Set("Authorization", bearer(key))
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := e.http.Do(req)
	if err != nil {
		return response{}, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return response{}, err
	}
	return response{status: res.StatusCode, header: res.Header, body: b}, nil
}

// post POSTs body to the dev server with the (bare) key; see do.
func (e *env) post(key, path string, body any, hdr ...string) response {
	e.t.Helper()
	r, err := e.do(e.url, key, http.MethodPost, path, body, hdr...)
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

// postTo is post to another server over the same deps (see withService).
func (e *env) postTo(t *testing.T, base, key, path string, body any, hdr ...string) response {
	t.Helper()
	r, err := e.do(base, key, http.MethodPost, path, body, hdr...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

type listBody struct {
	Data []struct {
		ID          string `json:"id"`
		Status      string `json:"status"`
		Type        string `json:"type"`
		Environment string `json:"environment"`
	} `json:"data"`
	HasMore    bool    `json:"has_more"`
	NextCursor *string `json:"next_cursor"`
}

func (e *env) list(key, query string) listBody {
	e.t.Helper()
	var b listBody
	e.get(key, "/api/v1/emails"+query).decode(e.t, http.StatusOK, &b)
	return b
}

// emailData reads one email through GET /api/v1/emails/:id.
func (e *env) emailData(t *testing.T, key, id string) map[string]any {
	t.Helper()
	var got struct {
		Data map[string]any `json:"data"`
	}
	e.get(bearer(key), "/api/v1/emails/"+id).decode(t, http.StatusOK, &got)
	return got.Data
}

// wantEmail checks an email's status (and, when not "", that its error
// contains errPart; "" also requires a null error).
func (e *env) wantEmail(t *testing.T, key, id, status, errPart string) map[string]any {
	t.Helper()
	d := e.emailData(t, key, id)
	if d["status"] != status {
		t.Errorf("email %s status = %v, want %s", id, d["status"], status)
	}
	switch errText, _ := d["error"].(string); {
	case errPart == "" && d["error"] != nil:
		t.Errorf("email %s error = %v, want null", id, d["error"])
	case errPart != "" && !strings.Contains(errText, errPart):
		t.Errorf("email %s error = %q, want it to mention %q", id, errText, errPart)
	}
	return d
}

// emailIDs lists every email of the key's workspace, newest first.
func (e *env) emailIDs(t *testing.T, key string) []string {
	t.Helper()
	var ids []string
	query := "?limit=100"
	for range 20 {
		var b listBody
		e.get(bearer(key), "/api/v1/emails"+query).decode(t, http.StatusOK, &b)
		for _, d := range b.Data {
			ids = append(ids, d.ID)
		}
		if !b.HasMore {
			return ids
		}
		query = "?limit=100&cursor=" + *b.NextCursor
	}
	t.Fatal("list did not end")
	return nil
}
