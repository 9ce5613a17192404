package bench

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/dynamo/repositories"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/segment"
	workspaces "github.com/sesame-mail/sesame/internal/workspace"
)

// recipientsPerWriteUnit is the bound on the frozen set's cost:
// at most one write unit per 50 recipients.
const recipientsPerWriteUnit = 50

// BenchmarkBulkDraft is POST /api/v1/send/bulk to a segment of a
// workspace of b.N*segmentContactsPerOp contacts (100,200 at the default
// BENCHTIME=300x) on the local stack: the time of the one request (which
// must fit API Gateway's 29 s), the recipients frozen, and the write
// units of the frozen set (its chunks), held to one per 50 recipients,
// besides those of the whole request (the campaign record, the key's
// count), billed by AWS's rules, and the floor its writes set at
// 1,000,000 recipients on AWS (its hottest partition at 1,000 WRU/s).
func BenchmarkBulkDraft(b *testing.B) {
	ctx := b.Context()
	client := dynamotest.Client(b)
	// The frozen set's chunks are the draft's only batch writes: billed
	// apart.
	billed, chunks := &billedDB{DB: client}, &billedDB{DB: client}
	db := &dynamotest.Recorder{DB: billed, Via: func(op string) dynamo.DB {
		if op == "BatchWriteItem" {
			return chunks
		}
		return nil
	}}
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		b.Fatal(err)
	}
	clients := api.NewClients(awsCfg, config.SDK{})
	clients.DynamoDB = db
	deps := api.NewDeps(config.API{DynamoDB: config.DynamoDB{Table: dynamotest.NewTable(b)}, Paging: config.Paging{CursorSecret: "bench"}}, clients, slog.New(slog.DiscardHandler))
	ws, key, segID := bulkWorkspace(b, deps.Repos)
	h, err := api.Handler(deps)
	if err != nil {
		b.Fatal(err)
	}
	n := b.N * segmentContactsPerOp
	// The audience is set up unbilled: it is not the request's work.
	seedContacts(b, repositories.New(&dynamo.Table{DB: billed.DB, Name: deps.Repos.Table.Name}), ws, n)

	body := `{"segment_id":"` + segID + `","subject":"Our November news","html":"<h1>November</h1><p>What changed this month.</p>"}`
	req := httptest.NewRequest(http.MethodPost, "/api/v1/send/bulk", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	db.Reset()
	billed.take()
	chunks.take()
	b.ResetTimer()
	start := time.Now()
	h.ServeHTTP(w, req)
	elapsed := time.Since(start)
	b.StopTimer()
	if w.Code != http.StatusOK {
		b.Fatalf("status %d: %s", w.Code, w.Body)
	}
	var out struct {
		RecipientCount int `json:"recipient_count"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
		b.Fatal(err)
	}
	set := chunks.take()
	frozen := set.Write
	write := billed.take().Write + frozen
	// By the hot-key model, writing 1,000,000 recipients' chunks on AWS
	// takes at least its hottest partition's share at 1,000 WRU/s.
	hottest := 0.0
	for _, u := range set.Heat {
		hottest = max(hottest, u.write)
	}
	b.ReportMetric(hottest*1e6/float64(max(out.RecipientCount, 1))/partitionWriteUnits, "1M-write-floor-s")
	b.ReportMetric(float64(n), "contacts")
	b.ReportMetric(float64(out.RecipientCount), "recipients")
	b.ReportMetric(elapsed.Seconds(), "request-s")
	b.ReportMetric(frozen, "frozen-set-WCU")
	b.ReportMetric(float64(out.RecipientCount)/frozen, "recipients/WCU")
	b.ReportMetric(write, "request-WCU")
	b.ReportMetric(float64(db.Calls("BatchWriteItem")), "batch-writes")
	if elapsed > apiGatewayLimit {
		b.Errorf("drafting to %d contacts took %s, over API Gateway's %s", n, elapsed, apiGatewayLimit)
	}
	if frozen*recipientsPerWriteUnit > float64(out.RecipientCount) {
		b.Errorf("the frozen set of %d recipients took %.0f write units: over one per %d", out.RecipientCount, frozen, recipientsPerWriteUnit)
	}
}

// draftFilter is a campaign to every customer: every bench contact
// matches, so the recipients are the subscribed ones off the do-not-send
// list (about 94% of them).
const draftFilter = `{"all":[{"field":"tags","op":"has_tag","value":"customer"}]}`

// bulkWorkspace is a workspace approved for bulk sending with a verified
// default sender, a key with email:send_bulk and a segment of
// draftFilter; it returns their ids and the key.
func bulkWorkspace(b *testing.B, repos repositories.Set) (ws, key, segmentID string) {
	b.Helper()
	ctx := b.Context()
	w, err := repos.Workspaces.CreateWorkspace(ctx, "Bench")
	if err != nil {
		b.Fatal(err)
	}
	approved := true
	if _, err := repos.Workspaces.UpdateWorkspace(ctx, w.ID, workspaces.Settings{BulkApproved: &approved}); err != nil {
		b.Fatal(err)
	}
	if _, err := repos.Domains.AddDomain(ctx, w.ID, "bench.example", nil); err != nil {
		b.Fatal(err)
	}
	if _, err := repos.Domains.SetDomainStatus(ctx, w.ID, "bench.example", identity.DomainVerified, nil); err != nil {
		b.Fatal(err)
	}
	if _, err := repos.Senders.AddSender(ctx, w.ID, identity.Sender{Name: "Bench", Email: "news@bench.example"}, true); err != nil {
		b.Fatal(err)
	}
	key, _, err = repos.Keys.CreateKey(ctx, w.ID, apikey.Live, "bench", []apikey.Scope{apikey.EmailSendBulk})
	if err != nil {
		b.Fatal(err)
	}
	filter, err := segment.Parse(json.RawMessage(draftFilter))
	if err != nil {
		b.Fatal(err)
	}
	seg := segment.Segment{ID: uuid.Must(uuid.NewV7()).String(), WorkspaceID: w.ID, Name: "Customers", Filter: filter, CreatedAt: time.Now()}
	if err := repos.Segments.CreateSegment(ctx, seg); err != nil {
		b.Fatal(err)
	}
	return w.ID, key, seg.ID
}
