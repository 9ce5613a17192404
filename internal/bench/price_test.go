package bench

import (
	"math"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/campaign/engine"
	"github.com/sesame-mail/sesame/internal/cost"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/sizing"
)

// scenario.price turns what the benchmarks measured into billed work: one
// scenario built by hand, against the work computed by hand. It needs no
// emulator, so `make test` runs it.
func TestScenarioPrice(t *testing.T) {
	// What the figures below assume of the stack's sizing.
	for what, pair := range map[string][2]float64{
		"send memory":                   {mem(t, routes.Send.Function), 512},
		"status memory":                 {mem(t, routes.Status.Function), 128},
		"campaign-sender memory":        {mem(t, routes.CampaignSender.Function), 256},
		"status batch size":             {float64(sizing.BatchSize(routes.Status)), 100},
		"status window (s)":             {sizing.BatchingWindow(routes.Status).Seconds(), 5},
		"campaign-sender batch size":    {float64(sizing.BatchSize(routes.CampaignSender)), 1},
		"campaign-sender window (s)":    {sizing.BatchingWindow(routes.CampaignSender).Seconds(), 0},
		"workers sharing sender waits":  {engine.Workers, 8},
		"campaign pace (email/s)":       {campaignSendRate, 14},
		"Lambda platform lines (1=yes)": {b2f(sizing.FunctionLogs.PlatformLines()), 0},
	} {
		if pair[0] != pair[1] {
			t.Fatalf("%s is %v; the hand-computed figures assume %v", what, pair[0], pair[1])
		}
	}

	// 10 emails at 0.9 emails a second: 10 sends, 20 SES events in status
	// batches, and one campaign chunk of 10 sends.
	s := scenario{name: "by hand", emails: 10, rate: 0.9, byteMonths: 5000, work: emailWork{
		routes.Send.Function: {messages: 10, sum: sample{
			cpu: 20 * time.Millisecond, db: dbUsage{Calls: 30, Read: 10, Write: 30},
			sesCalls: 10, logBytes: 2000, logLines: 10,
		}},
		routes.Status.Function: {messages: 20, sum: sample{
			cpu: 40 * time.Millisecond, db: dbUsage{Calls: 60, Read: 20, Write: 60},
			sqsRequests: 10 + 20, sqsCalls: 10, logBytes: 3000, logLines: 20, snsPublishes: 20,
		}},
		routes.CampaignSender.Function: {messages: 1, sum: sample{
			cpu: 10 * time.Millisecond, db: dbUsage{Calls: 20, Read: 5, Write: 10},
			sesCalls: 10, logBytes: 500, logLines: 5,
		}},
	}}
	got, _ := s.price()

	// By hand, per email (waits: DynamoDB 5 ms, SES 30 ms, SQS 8 ms a call):
	//   send: 1 request. Wait 3×5 + 1×30 = 45 ms; CPU 2 ms × 1769/512
	//     = 6.910 ms: 52 ms billed. 1 RRU, 3 WRU, 200 + 26 B of logs and
	//     the access log line.
	//   status: 2 messages; batches of min(100, 1 + 0.9×2 msg/s × 5 s) =
	//     10, so 0.2 invocations. A batch waits 10 × (3×5 + 0.5×8) = 190 ms
	//     (a mean of half an SQS call a message is half a call's wait) and
	//     burns 10 × 2 ms × 1769/128 = 276.4 ms: 467 ms billed. SQS:
	//     2 × 2/10 receive and delete + 2 × (0.5 sent + 1 the topic's
	//     delivery) = 3.4. 2 SNS publishes, 2 RRU, 6 WRU, 2 × (150 + 26) B
	//     of logs.
	//   campaign-sender: 0.1 messages, one a batch. Its 10 sends take
	//     10/14 s at the priced pace, longer than (20×5 + 10×30)/8 ms of
	//     calls shared by the workers: 714.29 ms, plus 10 ms × 1769/256 =
	//     69.1 ms of CPU: 784 ms billed. SQS 0.1 × 2; 0.5 RRU, 1 WRU,
	//     0.1 × (500 + 5×26) B of logs.
	want := cost.Work{
		APIRequests: 1,
		Lambda: []cost.Invocations{
			{MemoryMB: 256, Count: 0.1, Duration: 784 * time.Millisecond}, // campaign-sender
			{MemoryMB: 512, Count: 1, Duration: 52 * time.Millisecond},    // send
			{MemoryMB: 128, Count: 0.2, Duration: 467 * time.Millisecond}, // status
		},
		ReadUnits: 1 + 2 + 0.5, WriteUnits: 3 + 6 + 1,
		SQSRequests: 0.2 + 0.4 + 1 + 2, SNSPublishes: 2,
		LogBytes:  float64(len(accessLogLine())+26) + 226 + 352 + 63,
		LogMonths: 1, ItemByteMonths: 500,
	}
	for name, pair := range map[string][2]float64{
		"API requests": {got.APIRequests, want.APIRequests}, "read units": {got.ReadUnits, want.ReadUnits},
		"write units": {got.WriteUnits, want.WriteUnits}, "SQS requests": {got.SQSRequests, want.SQSRequests},
		"SNS publishes": {got.SNSPublishes, want.SNSPublishes}, "log bytes": {got.LogBytes, want.LogBytes},
		"log months": {got.LogMonths, want.LogMonths}, "item byte-months": {got.ItemByteMonths, want.ItemByteMonths},
	} {
		if math.Abs(pair[0]-pair[1]) > 1e-9 {
			t.Errorf("%s: %v, want %v", name, pair[0], pair[1])
		}
	}
	if len(got.Lambda) != len(want.Lambda) {
		t.Fatalf("Lambda: %+v, want %+v", got.Lambda, want.Lambda)
	}
	for i, l := range got.Lambda {
		w := want.Lambda[i]
		if l.MemoryMB != w.MemoryMB || math.Abs(l.Count-w.Count) > 1e-9 || l.Duration != w.Duration {
			t.Errorf("Lambda[%d]: %+v, want %+v", i, l, w)
		}
	}
}

func mem(t *testing.T, fn string) float64 {
	s, ok := sizing.Of(fn)
	if !ok {
		t.Fatalf("no function %s", fn)
	}
	return s.MemoryMB
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
