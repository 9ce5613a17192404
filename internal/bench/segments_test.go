package bench

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/google/uuid"
	"golang.org/x/sync/errgroup"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/dynamo/repositories"
	"github.com/sesame-mail/sesame/internal/suppression"
)

// segmentContactsPerOp is how many contacts the workspace holds per
// benchmark op: the default BENCHTIME=300x evaluates a segment over
// 100,200 contacts.
const segmentContactsPerOp = 334

// apiGatewayLimit is how long API Gateway waits for a Lambda
// integration.
const apiGatewayLimit = 29 * time.Second

// segmentFilter is a filter of every kind of condition a campaign
// audience uses: a tag, a property in a list or over a number, an age.
const segmentFilter = `{"all":[
	{"field":"tags","op":"has_tag","value":"customer"},
	{"any":[{"field":"properties.plan","op":"in","value":["pro","team"]},{"field":"properties.seats","op":"gte","value":40}]},
	{"not":{"field":"email","op":"ends_with","value":"@competitor.example"}},
	{"field":"created_at","op":"within_days","value":365}
]}`

// benchContact is contact i of the bench workspace: names, two tags,
// three properties; every 20th unsubscribed.
func benchContact(ws string, i int, now time.Time) contact.Contact {
	first, last := fmt.Sprintf("First%d", i), fmt.Sprintf("Last%d", i)
	plans := []string{"free", "pro", "team", "enterprise"}
	return contact.Contact{
		ID: uuid.Must(uuid.NewV7()).String(), WorkspaceID: ws, Email: fmt.Sprintf("person%d@example.com", i),
		FirstName: &first, LastName: &last, Subscribed: i%20 != 0, Tags: []string{"customer", "newsletter"},
		Properties: map[string]contact.Property{
			"plan":    contact.StringProperty(plans[i%len(plans)]),
			"seats":   contact.NumberProperty(float64(i % 50)),
			"country": contact.StringProperty("DE"),
		},
		CreatedAt: now.Add(-time.Duration(i%400) * 24 * time.Hour), UpdatedAt: now,
	}
}

// seedContacts stores n contacts in transactions of contact.CreateBatch,
// 16 at a time, and puts every 100th address on the do-not-send list.
func seedContacts(b *testing.B, repos repositories.Set, ws string, n int) {
	b.Helper()
	now := time.Now()
	var g errgroup.Group
	g.SetLimit(16)
	for start := 0; start < n; start += contact.CreateBatch {
		g.Go(func() error {
			batch := make([]contact.Contact, 0, contact.CreateBatch)
			for i := start; i < min(start+contact.CreateBatch, n); i++ {
				batch = append(batch, benchContact(ws, i, now))
				if i%100 == 1 {
					if _, _, err := repos.Suppressions.PutSuppression(b.Context(), ws, suppression.Suppression{Email: batch[len(batch)-1].Email, Reason: suppression.Bounced}); err != nil {
						return err
					}
				}
			}
			_, err := repos.Contacts.CreateContacts(b.Context(), batch)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSegmentEvaluation is POST /api/v1/segments over a workspace
// of b.N*segmentContactsPerOp contacts on the local stack: the time of
// the one request (which must fit API Gateway's 29 s), contacts
// evaluated per second, the CPU this process spent per contact (the
// DynamoDB responses' decoding and the filter; the figure docs/decisions
// scales to 1,000,000 contacts on AWS), DynamoDB calls and read units
// billed by AWS's rules.
func BenchmarkSegmentEvaluation(b *testing.B) {
	ctx := b.Context()
	billed := &billedDB{DB: dynamotest.Client(b)}
	db := &dynamotest.Recorder{DB: billed}
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		b.Fatal(err)
	}
	clients := api.NewClients(awsCfg, config.SDK{})
	clients.DynamoDB = db
	deps := api.NewDeps(config.API{DynamoDB: config.DynamoDB{Table: dynamotest.NewTable(b)}, Paging: config.Paging{CursorSecret: "bench"}}, clients, slog.New(slog.DiscardHandler))
	ws, err := deps.Repos.Workspaces.CreateWorkspace(ctx, "Bench")
	if err != nil {
		b.Fatal(err)
	}
	key, _, err := deps.Repos.Keys.CreateKey(ctx, ws.ID, apikey.Live, "bench", []apikey.Scope{apikey.SegmentsWrite})
	if err != nil {
		b.Fatal(err)
	}
	h, err := api.Handler(deps)
	if err != nil {
		b.Fatal(err)
	}
	n := b.N * segmentContactsPerOp
	// The audience is set up unbilled: it is not the request's work.
	seedContacts(b, repositories.New(&dynamo.Table{DB: billed.DB, Name: deps.Repos.Table.Name}), ws.ID, n)

	body := `{"name":"Active paying customers","filter":` + segmentFilter + `}`
	create := func() time.Duration {
		req := httptest.NewRequest(http.MethodPost, "/api/v1/segments", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		start := time.Now()
		h.ServeHTTP(w, req)
		elapsed := time.Since(start)
		if w.Code != http.StatusCreated {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
		return elapsed
	}
	// The first request comes right after the import, as a team's first
	// segment does (DynamoDB Local is slowest then); the second is what a
	// later one costs.
	// The CPU leaves out the billing's own reads (asideCPU).
	db.Reset()
	billed.take()
	cpu, aside := cpuTime(), billed.asideCPU()
	b.ResetTimer()
	elapsed := create()
	b.StopTimer()
	cpu = cpuTime() - cpu - (billed.asideCPU() - aside)
	again := create()
	read := billed.take().Read / 2 // both requests
	b.ReportMetric(float64(n), "contacts")
	b.ReportMetric(elapsed.Seconds(), "request-s")
	b.ReportMetric(again.Seconds(), "second-request-s")
	b.ReportMetric(float64(n)/elapsed.Seconds(), "contacts/s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(n), "cpu-µs/contact")
	b.ReportMetric(float64(db.Calls("Query"))/2, "queries")
	b.ReportMetric(read, "RCU")
	if elapsed > apiGatewayLimit {
		b.Errorf("evaluating %d contacts took %s, over API Gateway's %s", n, elapsed, apiGatewayLimit)
	}
}
