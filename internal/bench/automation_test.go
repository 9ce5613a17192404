package bench

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/cost"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/repositories"
	"github.com/sesame-mail/sesame/internal/queue/batch"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/sizing"
	workspaces "github.com/sesame-mail/sesame/internal/workspace"
)

// automationRunsEnv sizes BenchmarkAutomation: the 10,000 runs
// with BENCH_AUTOMATION_RUNS=10000; make bench starts defaultAutomationRuns
// so it stays a few minutes long on the local stack.
const (
	automationRunsEnv     = "BENCH_AUTOMATION_RUNS"
	defaultAutomationRuns = 2_000
)

// runsPerAutomation is how many runs each bench automation starts: under
// automation.EventsPerMinute, so none is rate limited however fast the
// rig goes, as many listeners as the traffic needs share it.
const runsPerAutomation = 50

// automationMetrics are what the one measurement of a run measured.
var automationMetrics map[string]float64

// BenchmarkAutomation starts runs through POST /api/v1/automations/events
// on the local stack, once whatever b.N, each event matching one
// automation (send, wait 1 day, send), and executes every run's first
// step through the automation runner as `sesame dev` does: the send, then
// the wait's wake-up item. Then the tick sweeps the wake-ups every start
// writes as its safety net, and the runner finds those runs moved on;
// every SES event goes through the status consumer. It reports DynamoDB
// calls and SQS requests per run and the infrastructure cost per 1,000
// automation emails (a row of the cost table).
func BenchmarkAutomation(b *testing.B) {
	if automationMetrics != nil {
		for unit, v := range automationMetrics {
			b.ReportMetric(v, unit)
		}
		return
	}
	n := automationRunCount(b)
	ctx := b.Context()
	r := newRig(b)
	html := loadBodies(b)[1].html
	ws := newWorkspace(b, r.deps.Repos)
	postal := "1 Bench Street, 10115 Berlin, Germany"
	if _, err := r.deps.Repos.Workspaces.UpdateWorkspace(ctx, ws.id, workspaces.Settings{PostalAddress: &postal}); err != nil {
		b.Fatal(err)
	}
	// The setup is unbilled: automations, contacts, the tick's cursor.
	setup := repositories.New(&dynamo.Table{DB: r.db.DB, Name: r.deps.Repos.Table.Name})
	events := seedAutomations(b, setup, ws.id, (n+runsPerAutomation-1)/runsPerAutomation, html)
	contacts := seedRunContacts(b, setup, ws.id, n)
	keys := triggerKeys(b, setup, ws.id, n)
	start := time.Now().UTC()
	if err := setup.AutomationRuns.SetTickCursor(ctx, start.Truncate(time.Minute).Add(-time.Minute)); err != nil {
		b.Fatal(err)
	}
	r.db.storedByteMonths(time.Now()) // forget the setup's items

	runnerBatch := sizing.BatchSize(routes.AutomationRunner)
	b.ResetTimer()
	w := emailWork{}
	for i := range n {
		body := map[string]any{"event": events[i%len(events)], "event_key": "cart-" + strconv.Itoa(i),
			"contact": map[string]string{"id": contacts[i]}, "payload": map[string]any{"product_name": "Linen shirt", "cart_total": 49.9}}
		key := keys[i/eventsPerKey]
		w.add(routes.AutomationEvents.Function, r.measure(func() { r.event(b, key, body) }))
		if (i+1)%runnerBatch == 0 || i == n-1 {
			r.runAutomations(b, w)
			r.pipeline(b, w, false, false)
		}
	}
	firstSteps := w[routes.AutomationRunner.Function].sum.sesCalls
	// The start's safety-net wake-ups fall due: the tick sweeps them.
	r.deps.Repos.Table.Now = func() time.Time { return time.Now().Add(5 * time.Minute) }
	w.add(routes.AutomationTick.Function, r.measure(func() {
		woken, err := r.deps.AutomationTick.Run(ctx)
		if err != nil || woken != n {
			b.Fatalf("the tick woke %d runs (%v), want %d", woken, err, n)
		}
	}))
	r.runAutomations(b, w)
	r.pipeline(b, w, false, true)
	b.StopTimer()

	if firstSteps != n || w[routes.AutomationRunner.Function].sum.sesCalls != n {
		b.Fatalf("%d first sends, %d in all; want %d once each", firstSteps, w[routes.AutomationRunner.Function].sum.sesCalls, n)
	}
	s := scenario{name: fmt.Sprintf("automation: event, run, first send (%d runs)", n), emails: n, work: w,
		byteMonths: r.db.storedByteMonths(time.Now())}
	costResults.Lock()
	costResults.scenarios = append(costResults.scenarios, s)
	costResults.Unlock()

	priced, _ := s.price()
	bill := cost.USEast1.Price(priced.Times(1000))
	calls := 0
	for _, fw := range w {
		calls += fw.sum.db.Calls
	}
	perRun := func(fn string) float64 { return float64(w[fn].sum.db.Calls) / float64(n) }
	automationMetrics = map[string]float64{
		"runs":                   float64(n),
		"event-ddb-calls/run":    perRun(routes.AutomationEvents.Function),
		"runner-ddb-calls/run":   perRun(routes.AutomationRunner.Function),
		"tick-ddb-calls/run":     perRun(routes.AutomationTick.Function),
		"ddb-calls/run":          float64(calls) / float64(n),
		"sqs-requests/run":       priced.SQSRequests,
		"capacity-units/1000":    (priced.ReadUnits + priced.WriteUnits) * 1000,
		"$/1000":                 bill.Total(),
		"%-of-SES":               100 * cost.USEast1.ShareOfSES(bill),
		"event-ms-modelled/call": ms(modelledWait(w, routes.AutomationEvents.Function)),
	}
	for unit, v := range automationMetrics {
		b.ReportMetric(v, unit)
	}
}

// eventsPerKey is how many events the bench reports with one key: under
// the key's apikey.RequestsPerMinute, as a backend reporting 1,000 events
// a second spreads them over keys.
const eventsPerKey = apikey.RequestsPerMinute * 9 / 10

// triggerKeys creates the keys that report n events.
func triggerKeys(b *testing.B, store repositories.Set, ws string, n int) []string {
	b.Helper()
	keys := make([]string, (n+eventsPerKey-1)/eventsPerKey)
	for i := range keys {
		key, _, err := store.Keys.CreateKey(b.Context(), ws, apikey.Live, "events", []apikey.Scope{apikey.AutomationsTrigger})
		if err != nil {
			b.Fatal(err)
		}
		keys[i] = key
	}
	return keys
}

// automationRunCount is BENCH_AUTOMATION_RUNS, else defaultAutomationRuns.
func automationRunCount(b *testing.B) int {
	v := os.Getenv(automationRunsEnv)
	if v == "" {
		return defaultAutomationRuns
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q: want a number of runs", automationRunsEnv, v)
	}
	return n
}

// modelledWait is what one message of fn waits on AWS by the modelled
// latencies of its calls: its DynamoDB round trips and SQS sends.
func modelledWait(w emailWork, fn string) time.Duration {
	fw := w[fn]
	per := func(v int) float64 { return float64(v) / float64(fw.messages) }
	return time.Duration(per(fw.sum.db.Calls)*float64(latency.dynamo) + per(fw.sum.sqsCalls)*float64(latency.sqs))
}

// event is POST /api/v1/automations/events of body; the run must start.
func (r *rig) event(b *testing.B, key string, body map[string]any) {
	raw, err := json.Marshal(body)
	if err != nil {
		b.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, "/api/v1/automations/events", strings.NewReader(string(raw)))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	r.server.ServeHTTP(rec, req)
	var out struct{ Data automation.EventResult }
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &out) != nil || out.Data.Started != 1 {
		b.Fatalf("event: status %d: %s", rec.Code, rec.Body)
	}
}

// runAutomations gives the automations queue's messages to the runner a
// batch at a time, measuring each batch.
func (r *rig) runAutomations(b *testing.B, w emailWork) {
	size := sizing.BatchSize(routes.AutomationRunner)
	for msgs := r.sqs.drain(automationsQueueURL); len(msgs) > 0; msgs = r.sqs.drain(automationsQueueURL) {
		for len(msgs) > 0 {
			chunk := msgs[:min(size, len(msgs))]
			msgs = msgs[len(chunk):]
			w.addBatch(routes.AutomationRunner.Function, len(chunk), r.measure(func() {
				consumeBatch(b, func(m []batch.Message) []string { return r.deps.AutomationRunner.Handle(b.Context(), m) }, chunk)
			}))
		}
	}
}

// The items activation writes for an automation (dynamo's versionItem and
// listenerItem), put directly until the definitions' repository is here.
type (
	benchVersion struct {
		PK        string    `dynamodbav:"pk"`
		SK        string    `dynamodbav:"sk"`
		Steps     string    `dynamodbav:"steps"`
		CreatedAt time.Time `dynamodbav:"created_at"`
	}
	benchListener struct {
		PK           string `dynamodbav:"pk"`
		SK           string `dynamodbav:"sk"`
		AutomationID string `dynamodbav:"automation_id"`
		Version      int    `dynamodbav:"version"`
	}
)

// seedAutomations activates count automations of ws, each listening for
// its own event name: send html with a greeting, wait a day, send again.
// It returns the event names.
func seedAutomations(b *testing.B, store repositories.Set, ws string, count int, html string) []string {
	b.Helper()
	greeting := `<p>Hi {{ contact.first_name | "there" }}, your {{ event.product_name | "items" }} are waiting.</p>`
	steps, err := json.Marshal([]automation.Step{
		{Type: automation.StepSend, Subject: `Your {{ event.product_name | "items" }} are waiting`, HTML: strings.Replace(html, "<body>", "<body>"+greeting, 1)},
		{Type: automation.StepWait, Duration: automation.Duration(24 * time.Hour)},
		{Type: automation.StepSend, Subject: `Still thinking about it?`, HTML: html},
	})
	if err != nil {
		b.Fatal(err)
	}
	events := make([]string, count)
	for i := range events {
		events[i] = fmt.Sprintf("cart_abandoned_%d", i)
		id := uuid.Must(uuid.NewV7()).String()
		for _, it := range []any{
			benchVersion{PK: "WS#" + ws + "#AUTOVER#" + id, SK: "000001", Steps: string(steps), CreatedAt: time.Now().UTC()},
			benchListener{PK: "WS#" + ws + "#AUTOEVENT#" + events[i], SK: id, AutomationID: id, Version: 1},
		} {
			av, err := attributevalue.MarshalMap(it)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := store.Table.DB.PutItem(b.Context(), &dynamodb.PutItemInput{TableName: &store.Table.Name, Item: av}); err != nil {
				b.Fatal(err)
			}
		}
	}
	return events
}

// seedRunContacts stores n subscribed contacts of ws and returns their ids.
func seedRunContacts(b *testing.B, store repositories.Set, ws string, n int) []string {
	b.Helper()
	now := time.Now()
	ids := make([]string, 0, n)
	for start := 0; start < n; start += contact.CreateBatch {
		batch := make([]contact.Contact, 0, contact.CreateBatch)
		for i := start; i < min(start+contact.CreateBatch, n); i++ {
			c := benchContact(ws, i, now)
			c.Subscribed = true
			batch = append(batch, c)
			ids = append(ids, c.ID)
		}
		if _, err := store.Contacts.CreateContacts(b.Context(), batch); err != nil {
			b.Fatal(err)
		}
	}
	return ids
}
