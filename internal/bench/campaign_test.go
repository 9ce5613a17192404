package bench

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/campaign/engine"
	"github.com/sesame-mail/sesame/internal/cost"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/repositories"
	"github.com/sesame-mail/sesame/internal/queue/batch"
	"github.com/sesame-mail/sesame/internal/routes"
	workspaces "github.com/sesame-mail/sesame/internal/workspace"
)

// campaignContacts is the bench campaign's workspace: with every 20th
// contact unsubscribed and every 100th suppressed (seedContacts), exactly
// 10,000 recipients are frozen.
const (
	campaignContacts   = 10_639
	campaignRecipients = 10_000
)

// localSendRate is the rig's SESAME_MAX_SEND_RATE: high enough that the
// pace never binds on the local stack, so the throughput is the sender's
// own.
const localSendRate = 10_000

// campaignSendRate is the pace a campaign is priced at: SES's starting
// maximum send rate of a production account, 14 emails a second. A
// sender invocation waits on the pace, and Lambda bills the wait.
const campaignSendRate = 14.0

// senderWait is the modelled time one chunk message of the campaign
// sender takes beyond its CPU: its calls' waits shared by the workers
// that send at once, or the pace's time for its sends, whichever is
// longer.
func senderWait(calls time.Duration, sends float64) time.Duration {
	paced := time.Duration(sends / campaignSendRate * float64(time.Second))
	return max(paced, calls/engine.Workers)
}

// ownerApprover is the console's AWS principal in the bench.
type ownerApprover struct{}

func (ownerApprover) Identity(context.Context) (string, error) {
	return "arn:aws:iam::123456789012:user/owner", nil
}

// campaignMetrics are what the one campaign of a run measured.
var campaignMetrics map[string]float64

// BenchmarkCampaign sends a 10,000-recipient campaign end to end on the
// local stack, once whatever b.N: POST /send/bulk to a segment, approval
// through the owner service, then the sends queue drained by the
// campaign sender's handler chunk by chunk (as `sesame dev` does), every
// SES event through the status consumer. It reports the sender's
// throughput, DynamoDB calls and SQS requests per recipient, and the
// infrastructure cost per 1,000 campaign emails (a row of the cost
// table), held to 10 % of SES's price.
func BenchmarkCampaign(b *testing.B) {
	// Go runs a benchmark once with b.N = 1 before the -benchtime count;
	// the campaign is one measurement whatever b.N is, so it is sent once.
	if campaignMetrics != nil {
		for unit, v := range campaignMetrics {
			b.ReportMetric(v, unit)
		}
		return
	}
	ctx := b.Context()
	r := newRig(b)
	r.rate = campaignSendRate
	ws, key, segID := bulkWorkspace(b, r.deps.Repos)
	postal := "1 Bench Street, 10115 Berlin, Germany"
	if _, err := r.deps.Repos.Workspaces.UpdateWorkspace(ctx, ws, workspaces.Settings{PostalAddress: &postal}); err != nil {
		b.Fatal(err)
	}
	// The audience is set up unbilled: it is not the campaign's work.
	seedContacts(b, repositories.New(&dynamo.Table{DB: r.db.DB, Name: r.deps.Repos.Table.Name}), ws, campaignContacts)
	r.db.storedByteMonths(time.Now()) // forget the setup's items

	html := loadBodies(b)[1].html

	b.ResetTimer()
	w := emailWork{}
	var id string
	w.add(routes.SendBulk.Function, r.measure(func() { id = r.draft(b, key, segID, html) }))
	approvals := &campaign.Approvals{
		Store: r.deps.Repos.Campaigns, Contacts: r.deps.Repos.Contacts, Approver: ownerApprover{}, Starter: r.deps.CampaignStarter,
		Workspaces: r.deps.Repos.Workspaces,
	}
	if _, err := approvals.Approve(ctx, ws, id, nil); err != nil {
		b.Fatal(err)
	}
	var sending time.Duration
	for chunks := r.sqs.drain(sendsQueueURL); len(chunks) > 0; chunks = r.sqs.drain(sendsQueueURL) {
		for _, m := range chunks {
			start := time.Now()
			w.add(routes.CampaignSender.Function, r.measure(func() {
				consume(b, func(msgs []batch.Message) []string { return r.deps.CampaignSender.Handle(ctx, msgs) }, m)
			}))
			sending += time.Since(start)
			r.pipeline(b, w, false, false)
		}
	}
	r.pipeline(b, w, false, true)
	b.StopTimer()

	c, err := r.deps.Repos.Campaigns.GetCampaign(ctx, ws, id)
	if err != nil {
		b.Fatal(err)
	}
	if c.Status != campaign.StatusSent || c.RecipientCount != campaignRecipients || c.SentCount != campaignRecipients {
		b.Fatalf("campaign %s: %d of %d recipients sent, %d skipped", c.Status, c.SentCount, c.RecipientCount, c.SkippedCount)
	}
	s := scenario{name: "campaign, 10,000 recipients (14 email/s)", emails: c.SentCount, work: w,
		byteMonths: r.db.storedByteMonths(time.Now()), rate: campaignSendRate}
	costResults.Lock()
	costResults.scenarios = append(costResults.scenarios, s)
	costResults.Unlock()

	priced, _ := s.price()
	bill := cost.USEast1.Price(priced.Times(1000))
	n := float64(c.SentCount)
	calls := 0
	for _, fw := range w {
		calls += fw.sum.db.Calls
	}
	sender := w[routes.CampaignSender.Function].sum
	campaignMetrics = map[string]float64{
		"recipients":                 n,
		"recipients/s":               n / sending.Seconds(),
		"sender-ddb-calls/recipient": float64(sender.db.Calls) / n,
		"ddb-calls/recipient":        float64(calls) / n,
		"sqs-requests/recipient":     priced.SQSRequests,
		"capacity-units/1000":        (priced.ReadUnits + priced.WriteUnits) * 1000,
		"$/1000":                     bill.Total(),
		"%-of-SES":                   100 * cost.USEast1.ShareOfSES(bill),
	}
	for unit, v := range campaignMetrics {
		b.ReportMetric(v, unit)
	}
	if share := cost.USEast1.ShareOfSES(bill); share > 0.10 {
		b.Errorf("a campaign email costs %.1f %% of SES's price, over the 10 %% goal", 100*share)
	}
}

// draft is POST /api/v1/send/bulk of html to segmentID; it returns the
// campaign's id.
func (r *rig) draft(b *testing.B, key, segmentID, html string) string {
	body, err := json.Marshal(map[string]string{"segment_id": segmentID, "subject": "Northwind: the spring collection", "html": html})
	if err != nil {
		b.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, "/api/v1/send/bulk", strings.NewReader(string(body)))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	r.server.ServeHTTP(w, req)
	var out struct {
		ApprovalID     string `json:"approval_id"`
		RecipientCount int    `json:"recipient_count"`
	}
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &out) != nil {
		b.Fatalf("draft: status %d: %s", w.Code, w.Body)
	}
	if out.RecipientCount != campaignRecipients {
		b.Fatalf("draft froze %d recipients, want %d", out.RecipientCount, campaignRecipients)
	}
	return out.ApprovalID
}
