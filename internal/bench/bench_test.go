package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/devstack"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/dynamo/repositories"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/review"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/ses"
	"github.com/sesame-mail/sesame/internal/webhook"
)

// Queue URLs of the rig: SQS is captured (capturedSQS), never called.
const (
	reviewQueueURL      = "https://sqs.bench/review"
	webhooksQueueURL    = "https://sqs.bench/webhooks"
	sendsQueueURL       = "https://sqs.bench/sends"
	automationsQueueURL = "https://sqs.bench/automations"
)

// body is a realistic HTML body of testdata.
type body struct {
	name, file string
	html       string
}

var bodies = []body{
	{name: "1 KB receipt", file: "receipt-1k.html"},
	{name: "10 KB newsletter", file: "newsletter-10k.html"},
	{name: "100 KB newsletter", file: "newsletter-100k.html"},
}

func loadBodies(b *testing.B) []body {
	out := slices.Clone(bodies)
	for i := range out {
		raw, err := os.ReadFile("testdata/" + out[i].file)
		if err != nil {
			b.Fatal(err)
		}
		out[i].html = string(raw)
	}
	return out
}

// countedSES counts SES sends; the campaign sender sends from several
// goroutines at once.
type countedSES struct {
	ses.API
	mu    sync.Mutex
	calls int
}

func (c *countedSES) SendEmail(ctx context.Context, in *sesv2.SendEmailInput, opts ...func(*sesv2.Options)) (*sesv2.SendEmailOutput, error) {
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
	return c.API.SendEmail(ctx, in, opts...)
}

// take returns the sends since the last take.
func (c *countedSES) take() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.calls
	c.calls = 0
	return n
}

// capturedEvents keeps the SES events the SES stand-in publishes, from
// however many goroutines send.
type capturedEvents struct {
	mu     sync.Mutex
	bodies []string
}

func (c *capturedEvents) Enqueue(_ context.Context, v any) error {
	b, err := json.Marshal(v)
	c.mu.Lock()
	c.bodies = append(c.bodies, string(b))
	c.mu.Unlock()
	return err
}

func (c *capturedEvents) drain() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.bodies
	c.bodies = nil
	return out
}

// rig is every function's services over the emulators' DynamoDB (billed
// by AWS's rules) and SES (followed by the events SES would publish),
// with SQS captured and the JSON logger counted.
type rig struct {
	deps   api.Deps
	server http.Handler
	db     *billedDB
	sqs    *capturedSQS
	ses    *countedSES
	events *capturedEvents
	logs   *countingWriter
	// pending are SES events not yet given to the status consumer, which
	// takes them batch at a time.
	pending []string
	batch   int
	// jobs are webhook jobs not yet given to the dispatcher, which also
	// takes them a batch (jobBatch) at a time.
	jobs     []string
	jobBatch int
	// rate is the emails per second whose events the status batches are
	// sized for; zero is emailsPerSecond.
	rate float64
}

// workspace is a workspace of the rig with a live key and a verified
// sender, whose templates of bodies are cleared.
type workspace struct{ id, key string }

func newRig(b *testing.B) *rig {
	b.Helper()
	db := &billedDB{DB: dynamotest.Client(b)}
	awsCfg, err := awsconfig.LoadDefaultConfig(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	clients := api.NewClients(awsCfg, config.SDK{})
	r := &rig{db: db, sqs: &capturedSQS{}, ses: &countedSES{API: clients.SES}, events: &capturedEvents{}, logs: &countingWriter{}}
	clients.DynamoDB, clients.SQS, clients.SES = db, r.sqs, r.ses
	cfg := config.API{
		DynamoDB: config.DynamoDB{Table: dynamotest.NewTable(b)}, Paging: config.Paging{CursorSecret: "bench"},
		SES:           config.SES{ConfigSetFull: "full"},
		ReviewQueue:   config.ReviewQueue{ReviewQueueURL: reviewQueueURL},
		WebhooksQueue: config.WebhooksQueue{WebhooksQueueURL: webhooksQueueURL},
		Delivery: config.Delivery{WebhookTimeout: 5 * time.Second,
			WebhookAllowedPrefixes: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}},
		SendsQueue:       config.SendsQueue{SendsQueueURL: sendsQueueURL},
		AutomationsQueue: config.AutomationsQueue{AutomationsQueueURL: automationsQueueURL},
		PublicURL:        config.PublicURL{PublicURL: "https://mail.bench.example"},
		Unsubscribing:    config.Unsubscribing{UnsubscribeSecret: "bench"},
		Pacing:           config.Pacing{MaxSendRate: localSendRate},
	}
	// The functions' logger, at the level the stack sets (LOG_LEVEL=info).
	r.deps = api.NewDeps(cfg, clients, wire.NewLoggerTo(r.logs, slog.LevelInfo))
	r.deps.Sending.Transport = &devstack.SESEvents{Next: r.deps.Sending.Transport, Queue: r.events}
	r.deps.CampaignSender.Transport = r.deps.Sending.Transport
	r.deps.AutomationRunner.Transport = r.deps.Sending.Transport
	if r.server, err = api.Handler(r.deps); err != nil {
		b.Fatal(err)
	}
	return r
}

// newWorkspace sets up a workspace whose templates of html are cleared.
func newWorkspace(b *testing.B, store repositories.Set, html ...string) workspace {
	b.Helper()
	ctx := b.Context()
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	ws, err := store.Workspaces.CreateWorkspace(ctx, "Northwind")
	must(err)
	// A domain belongs to one workspace: each its own.
	domain := "northwind-" + strings.ToLower(ws.ID[len(ws.ID)-8:]) + ".example"
	_, err = store.Domains.AddDomain(ctx, ws.ID, domain, nil)
	must(err)
	_, err = store.Domains.SetDomainStatus(ctx, ws.ID, domain, identity.DomainVerified, nil)
	must(err)
	_, err = store.Senders.AddSender(ctx, ws.ID, identity.Sender{Name: "Northwind", Email: "hello@" + domain}, true)
	must(err)
	for _, h := range html {
		_, err = store.Held.DecideTemplate(ctx, ws.ID, review.Fingerprint(h), sending.TemplateCleared, nil, false)
		must(err)
	}
	key, _, err := store.Keys.CreateKey(ctx, ws.ID, apikey.Live, "bench", apikey.FullAccess)
	must(err)
	return workspace{id: ws.ID, key: key}
}

// addEndpoint subscribes a local receiver to every event of ws.
func (r *rig) addEndpoint(b *testing.B, ws workspace) {
	b.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	b.Cleanup(srv.Close)
	ep, err := webhook.NewEndpoint(ws.id, srv.URL, nil, true)
	if err != nil {
		b.Fatal(err)
	}
	if err := r.deps.Repos.Webhooks.CreateEndpoint(b.Context(), ep); err != nil {
		b.Fatal(err)
	}
}

// personalised is html as transactional mail of one layout differs from
// email to email: the recipient's name and an order number in the text,
// a unique token in a link. Only text and attribute values change, so the
// layout (review.Fingerprint) is html's.
func personalised(html string, n int) string {
	token := strings.ReplaceAll(uuid.NewString(), "-", "")
	order := fmt.Sprintf("NW-%08d", rand.IntN(100_000_000))
	html = strings.Replace(html, "Made to be worn for years.",
		fmt.Sprintf("Hi %s, your order %s ships today.", names[n%len(names)], order), 1)
	return strings.Replace(html, `href="https://northwind.example/?utm_source=newsletter"`,
		`href="https://northwind.example/?utm_source=newsletter&amp;t=`+token+`"`, 1)
}

var names = []string{"Ann Example", "Bo Lindqvist", "Chiara Russo", "Dmitri Orlov", "Esther Nakamura", "Farid Haddad"}

// sendRequest is POST /api/v1/send of html to one recipient.
func sendRequest(key, html, idempotencyKey string) *http.Request {
	payload, _ := json.Marshal(map[string]string{"to": "ann@example.org", "subject": "Northwind: the spring collection", "html": html})
	req := httptest.NewRequest(http.MethodPost, "/api/v1/send", strings.NewReader(string(payload)))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	if idempotencyKey != "" {
		req.Header.Set("Idempotency-Key", idempotencyKey)
	}
	return req
}

// send sends html through the API and returns the email's id.
func (r *rig) send(b *testing.B, ws workspace, html, idempotencyKey string, want int) string {
	w := httptest.NewRecorder()
	r.server.ServeHTTP(w, sendRequest(ws.key, html, idempotencyKey))
	if w.Code != want {
		b.Fatalf("send: status %d, want %d: %s", w.Code, want, w.Body)
	}
	var out struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || out.ID == "" {
		b.Fatalf("send: answer %s", w.Body)
	}
	return out.ID
}

func percentile(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }

func TestMain(m *testing.M) {
	code := m.Run()
	var out strings.Builder
	costReport(&out)
	hotKeyReport(&out)
	handlerReport(&out)
	reviewReport(&out)
	initReport(&out)
	fmt.Print(out.String())
	removeBinaries()
	os.Exit(code)
}
