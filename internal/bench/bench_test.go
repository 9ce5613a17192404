package bench

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/review"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/status"
)

const html = `<html><body><h1>Your receipt</h1><p>Thanks for your order.</p><a href="https://shop.example/o/1">View order</a></body></html>`

type rig struct {
	deps   api.Deps
	db     *dynamotest.Recorder
	ses    *timedSES
	key    string
	ws     string
	server http.Handler
}

// reset starts measuring one operation.
func (r *rig) reset() {
	r.db.Reset()
	r.ses.reset()
}

// snapshot is what one operation cost.
func (r *rig) snapshot() Snapshot {
	sesCalls, sesWaited := r.ses.snapshot()
	read, write := r.db.Units()
	return Snapshot{Calls: r.db.Total(), SESCalls: sesCalls, Waited: r.db.Waited() + sesWaited, ReadUnits: read, WriteUnits: write}
}

// Snapshot is what the rig counted for one operation.
type Snapshot struct {
	Calls, SESCalls int
	Waited          time.Duration
	ReadUnits       float64
	WriteUnits      float64
}

func newRig(b *testing.B) *rig {
	b.Helper()
	ctx := b.Context()
	db := &dynamotest.Recorder{DB: dynamotest.Client(b), MeasureCapacity: true}
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		b.Fatal(err)
	}
	clients := api.NewClients(awsCfg, config.SDK{})
	clients.DynamoDB = db
	cfg := config.API{Table: dynamotest.NewTable(b), CursorSecret: "bench", ConfigSetFull: "full"}
	deps := api.NewDeps(cfg, clients, slog.New(slog.DiscardHandler))
	timed := &timedSES{Next: deps.Sending.Transport}
	deps.Sending.Transport = timed
	store := deps.Repos
	ws, err := store.Workspaces.CreateWorkspace(ctx, "Bench")
	if err != nil {
		b.Fatal(err)
	}
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	_, err = store.Domains.AddDomain(ctx, ws.ID, "bench.example", nil)
	must(err)
	_, err = store.Domains.SetDomainStatus(ctx, ws.ID, "bench.example", identity.DomainVerified, nil)
	must(err)
	_, err = store.Senders.AddSender(ctx, ws.ID, identity.Sender{Name: "Bench", Email: "hi@bench.example"}, true)
	must(err)
	_, err = store.Held.DecideTemplate(ctx, ws.ID, review.Fingerprint(html), sending.TemplateCleared, nil, false)
	must(err)
	key, _, err := store.Keys.CreateKey(ctx, ws.ID, apikey.Live, "bench", apikey.FullAccess)
	must(err)
	h, err := api.Handler(deps)
	must(err)
	return &rig{deps: deps, db: db, ses: timed, key: key, ws: ws.ID, server: h}
}

// measured is what the benchmarks saw, for the cost report.
var measured struct {
	send, event       Snapshot // per operation
	sendMs, eventMs   float64  // wall time per operation
	sendOps, eventOps int
}

func percentile(d []time.Duration, p float64) time.Duration {
	slices.Sort(d)
	return d[min(len(d)-1, int(float64(len(d))*p))]
}

// BenchmarkSendAccept is the accept path of POST /api/v1/send: plain HTML,
// no attachment, a cleared template, a live key.
func BenchmarkSendAccept(b *testing.B) {
	r := newRig(b)
	body := fmt.Sprintf(`{"to":"ann@example.org","subject":"Receipt","html":%q}`, html)
	var overhead []time.Duration
	var sum Snapshot
	var wall time.Duration
	b.ResetTimer()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/api/v1/send", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+r.key)
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		r.reset()
		start := time.Now()
		r.server.ServeHTTP(w, req)
		elapsed := time.Since(start)
		if w.Code != http.StatusOK {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
		s := r.snapshot()
		overhead = append(overhead, elapsed-s.Waited)
		wall += elapsed
		sum.Calls += s.Calls
		sum.SESCalls += s.SESCalls
		sum.ReadUnits += s.ReadUnits
		sum.WriteUnits += s.WriteUnits
	}
	n := float64(len(overhead))
	b.ReportMetric(float64(percentile(overhead, 0.5).Microseconds())/1000, "overhead-p50-ms")
	b.ReportMetric(float64(percentile(overhead, 0.99).Microseconds())/1000, "overhead-p99-ms")
	b.ReportMetric(float64(sum.Calls)/n, "ddb-calls/op")
	b.ReportMetric(float64(sum.SESCalls)/n, "ses-calls/op")
	b.ReportMetric(sum.WriteUnits/n, "WCU/op")
	b.ReportMetric(sum.ReadUnits/n, "RCU/op")
	measured.send = Snapshot{Calls: sum.Calls, SESCalls: sum.SESCalls, ReadUnits: sum.ReadUnits / n, WriteUnits: sum.WriteUnits / n}
	measured.sendMs = float64(wall.Microseconds()) / 1000 / n
	measured.sendOps = len(overhead)
}

// BenchmarkStatusEvent is the SES events of one delivered email (Send,
// then Delivery) through the status consumer; metrics are per event.
func BenchmarkStatusEvent(b *testing.B) {
	r := newRig(b)
	ctx := b.Context()
	var sum Snapshot
	var wall time.Duration
	ops := 0
	for b.Loop() {
		b.StopTimer()
		id := uuid.Must(uuid.NewV7()).String()
		e := email.Email{ID: id, WorkspaceID: r.ws, To: "ann@example.org", Subject: "Receipt", Status: email.StatusSent,
			Type: email.TypeTransactional, Environment: apikey.Live, SentAt: time.Now(), TrackingMode: email.TrackingFull}
		if err := r.deps.Repos.Emails.PutEmail(ctx, e); err != nil {
			b.Fatal(err)
		}
		mail := status.Mail{
			Timestamp: time.Now(), MessageID: "bench-" + id,
			Tags: map[string][]string{"email_id": {id}, "workspace_id": {r.ws}},
		}
		evs := []status.SESEvent{
			{EventType: status.TypeSend, Mail: mail, Send: &struct{}{}},
			{EventType: status.TypeDelivery, Mail: mail, Delivery: &status.Delivery{Timestamp: time.Now()}},
		}
		r.reset()
		b.StartTimer()
		start := time.Now()
		for _, ev := range evs {
			if err := r.deps.Status.Process(ctx, ev); err != nil {
				b.Fatal(err)
			}
		}
		wall += time.Since(start)
		s := r.snapshot()
		sum.Calls += s.Calls
		sum.ReadUnits += s.ReadUnits
		sum.WriteUnits += s.WriteUnits
		ops += len(evs)
	}
	n := float64(ops)
	b.ReportMetric(float64(sum.Calls)/n, "ddb-calls/op")
	b.ReportMetric(sum.WriteUnits/n, "WCU/op")
	b.ReportMetric(sum.ReadUnits/n, "RCU/op")
	measured.event = Snapshot{ReadUnits: sum.ReadUnits / n, WriteUnits: sum.WriteUnits / n}
	measured.eventMs = float64(wall.Microseconds()) / 1000 / n
	measured.eventOps = ops
}

// Public prices, us-east-1, on-demand, as of 2026.
const (
	apiGatewayPerRequest = 3.50 / 1e6
	lambdaPerRequest     = 0.20 / 1e6
	lambdaPerGBSecond    = 0.0000133334 // arm64
	dynamoPerWRU         = 0.625 / 1e6
	dynamoPerRRU         = 0.125 / 1e6
	sqsPerRequest        = 0.40 / 1e6
	sesPer1000           = 0.10
	// eventsPerEmail: SES publishes Send and Delivery for a delivered email.
	eventsPerEmail = 2
	batchSize      = 10
)

// costReport prints the infrastructure cost per 1,000 emails from what
// the benchmarks measured. Lambda time is the measured wall time (an upper
// bound: the emulators are slower than DynamoDB).
func costReport() {
	if measured.sendOps == 0 || measured.eventOps == 0 {
		return
	}
	const n = 1000.0
	events := n * eventsPerEmail
	lines := []struct {
		what string
		usd  float64
	}{
		{"API Gateway (1 request/email)", n * apiGatewayPerRequest},
		{"Lambda send (1 GB)", n * (lambdaPerRequest + measured.sendMs/1000*1.0*lambdaPerGBSecond)},
		{"DynamoDB send", n * (measured.send.WriteUnits*dynamoPerWRU + measured.send.ReadUnits*dynamoPerRRU)},
		// SES publishes to EventBridge's default bus: AWS service events are free.
		{"EventBridge (SES events, AWS service events)", 0},
		{"SQS (rule delivery, receive, delete in batches of 10)", (events + 2*events/batchSize) * sqsPerRequest},
		{"Lambda status (256 MB, batches of 10)", events/batchSize*lambdaPerRequest + events*measured.eventMs/1000*0.25*lambdaPerGBSecond},
		{"DynamoDB status", events * (measured.event.WriteUnits*dynamoPerWRU + measured.event.ReadUnits*dynamoPerRRU)},
	}
	fmt.Println("\nInfrastructure cost per 1,000 delivered emails (us-east-1 list prices)")
	sum := 0.0
	for _, l := range lines {
		fmt.Printf("  %-56s $%.5f\n", l.what, l.usd)
		sum += l.usd
	}
	fmt.Printf("  %-56s $%.5f\n", "total", sum)
	fmt.Printf("  %-56s $%.5f (%.1f%% on top; target ≤ 10%%)\n", "SES itself", sesPer1000, sum/sesPer1000*100)
	fmt.Printf("  measured: send %.1f ms, %.1f WCU, %.1f RCU; SES event %.1f ms, %.1f WCU, %.1f RCU\n",
		measured.sendMs, measured.send.WriteUnits, measured.send.ReadUnits,
		measured.eventMs, measured.event.WriteUnits, measured.event.ReadUnits)
}

func TestMain(m *testing.M) {
	code := m.Run()
	costReport()
	initReport()
	removeBinaries()
	os.Exit(code)
}
