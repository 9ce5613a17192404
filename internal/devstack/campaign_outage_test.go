package devstack_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/campaign/engine"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/emulatortest"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/sending"
)

// storeOutage is how long the table stops answering mid-campaign.
const storeOutage = 10 * time.Second

// A 10 s DynamoDB pause during a 300-recipient campaign costs seconds,
// not the sends queue's ten-minute visibility timeout: the chunk that met
// it comes back after short, growing waits, and the campaign is sent
// within a minute of the pause ending, every recipient once. The queue
// keeps its production visibility timeout here.
func TestCampaignStoreOutageCostsSeconds(t *testing.T) {
	t.Parallel()
	p := startCampaignPipeline(t, engine.DefaultThresholds)
	if _, err := p.queues.SQS.SetQueueAttributes(t.Context(), &sqs.SetQueueAttributesInput{
		QueueUrl:   aws.String(p.queues.URL(t, queue.Sends.Name)),
		Attributes: map[string]string{string(sqstypes.QueueAttributeNameVisibilityTimeout): "600"},
	}); err != nil {
		t.Fatal(err)
	}
	b := newBulkWS(t, p.env)
	addrs := campaignRecipients(300, 0, "")
	b.contactsTo(t, p.env, addrs)
	d := b.draft(t, p.env, b.segment(t, p.env, nil))

	// The 60th email handed to SES pauses the table: every call hangs
	// until the SDK's bounds end it, for storeOutage.
	stalled := emulatortest.NewStalled(t)
	hung := dynamodb.NewFromConfig(wire.Bound(stalled.Config(), shortBounds))
	var pausedUntil atomic.Int64
	p.rec.Via = func(string) dynamo.DB {
		if time.Now().UnixNano() < pausedUntil.Load() {
			return hung
		}
		return nil
	}
	var sent atomic.Int32
	p.ses.setFail(func(sending.SendInput) error {
		if sent.Add(1) == 60 {
			pausedUntil.Store(time.Now().Add(storeOutage).UnixNano())
		}
		return nil
	})
	if _, err := p.approvals(p.deps.CampaignStarter).Approve(t.Context(), b.id, d.ApprovalID, nil); err != nil {
		t.Fatal(err)
	}

	var c campaignBody
	for c.Status != string(campaign.StatusSent) {
		if until := pausedUntil.Load(); until != 0 && time.Since(time.Unix(0, until)) > time.Minute {
			t.Fatalf("a minute after the outage the campaign is %+v", c)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		_, err := p.sends.PollOnce(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if time.Now().UnixNano() >= pausedUntil.Load() {
			c = p.getCampaign(t, b.bulkKey, d.ApprovalID)
		}
	}
	if pausedUntil.Load() == 0 || stalled.Accepted() == 0 {
		t.Fatal("the store never paused")
	}
	if c.SentCount != 300 {
		t.Errorf("campaign %+v, want 300 sent", c)
	}
	p.wantOneSendEach(t, addrs)
}
