package cost

import (
	"math"
	"testing"
	"time"

	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// The billing rules, each against a figure worked out by hand from AWS's
// pricing pages.
func TestUnits(t *testing.T) {
	cases := map[string]struct{ got, want float64 }{
		"a missing item still costs half a unit":  {ReadUnits(0, false), 0.5},
		"strong read of 4 KB + 1 byte":            {ReadUnits(4097, true), 2},
		"eventual read of 4 KB":                   {ReadUnits(4096, false), 0.5},
		"write billed on the larger size":         {WriteUnits(900, 1100), 2},
		"delete of a 3.5 KB item":                 {WriteUnits(3584, 0), 4},
		"transactional write of a small item":     {Transactional(WriteUnits(500, 0)), 2},
		"query sums sizes before rounding":        {QueryUnits(3*1500, false), 1},
		"a window fills a batch at 2 msgs/s":      {Batching{Size: 10, Window: 2 * time.Second}.Expected(2), 5},
		"a batch never exceeds its size":          {Batching{Size: 10, Window: 2 * time.Second}.Expected(100), 10},
		"without a window, one message a batch":   {Batching{Size: 10}.Expected(50), 1},
		"receive and delete shared by a batch":    {ConsumeRequests(5), 0.4},
		"an SQS call without a body":              {SQSRequests(0), 1},
		"64 KB of bodies, one SQS request":        {SQSRequests(64 << 10), 1},
		"64 KB + 1 byte, two SQS requests":        {SQSRequests(64<<10 + 1), 2},
		"an SES event of 3 KB, one SNS publish":   {SNSPublishes(3 << 10), 1},
		"a 65 KB message, two SNS publishes":      {SNSPublishes(65 << 10), 2},
		"a log line and CloudWatch's 26 bytes":    {LogBytes("0123456789", "abc"), 10 + 3 + 2*26},
		"2 ms of CPU at 256 MB, 20 ms of waiting": {Duration(2*time.Millisecond, 256, 20*time.Millisecond).Seconds(), 0.034},
		"a tenth of a millisecond bills one":      {Duration(100*time.Microsecond, 1769, 0).Seconds(), 0.001},
	}
	for name, tc := range cases {
		if !near(tc.got, tc.want) {
			t.Errorf("%s: %v, want %v", name, tc.got, tc.want)
		}
	}
}

// The model's arithmetic against one case computed by hand, so the
// figures make bench prints cannot drift from the prices.
func TestPriceHandComputed(t *testing.T) {
	w := Work{
		APIRequests: 1000,
		Lambda:      []Invocations{{MemoryMB: 1024, Count: 1000, Duration: 50 * time.Millisecond}},
		ReadUnits:   2000, WriteUnits: 3000,
		SQSRequests: 4000, SNSPublishes: 2000,
		LogBytes: 1e6, LogMonths: 1,
		ItemByteMonths: 2e6,
	}
	got := USEast1.Price(w)
	// By hand:
	//   API Gateway 1000 × $3.50/M                                   = 0.0035
	//   Lambda 1000 × ($0.20/M + 1 GB × 0.05 s × $0.0000133334)      = 0.00086667
	//   DynamoDB 2000 × $0.125/M + 3000 × $0.625/M
	//            + 2e6 B / 2^30 × ($0.25 + $0.20)                      = 0.00296319
	//   SQS 4000 × $0.40/M                                           = 0.0016
	//   SNS 2000 × $0.50/M (SES events, one 64 KB chunk each)         = 0.001
	//   Logs 1e6 B / 2^30 × ($0.50 + 1 month × $0.03)                = 0.00049360
	want := Bill{APIGateway: 0.0035, Lambda: 0.00086667, DynamoDB: 0.00296319, SQS: 0.0016, SNS: 0.001, Logs: 0.00049360}
	for name, pair := range map[string][2]float64{
		"API Gateway": {got.APIGateway, want.APIGateway},
		"Lambda":      {got.Lambda, want.Lambda},
		"DynamoDB":    {got.DynamoDB, want.DynamoDB},
		"SQS":         {got.SQS, want.SQS},
		"SNS":         {got.SNS, want.SNS},
		"Logs":        {got.Logs, want.Logs},
	} {
		if math.Abs(pair[0]-pair[1]) > 1e-8 {
			t.Errorf("%s: $%.8f, want $%.8f", name, pair[0], pair[1])
		}
	}
	if share := USEast1.ShareOfSES(got); math.Abs(share-0.1042346) > 1e-6 {
		t.Errorf("share of SES %.6f, want 0.104235", share)
	}
	// Work scales as quantities do.
	if !near(USEast1.Price(w.Times(3)).Total(), 3*got.Total()) {
		t.Errorf("Times does not scale the bill")
	}
}

func TestItemSize(t *testing.T) {
	item := map[string]ddbtypes.AttributeValue{
		"pk":    &ddbtypes.AttributeValueMemberS{Value: "WS#1"},                                                                               // 2 + 4
		"n":     &ddbtypes.AttributeValueMemberN{Value: "12345"},                                                                              // 1 + 3 + 1
		"ok":    &ddbtypes.AttributeValueMemberBOOL{Value: true},                                                                              // 2 + 1
		"tags":  &ddbtypes.AttributeValueMemberL{Value: []ddbtypes.AttributeValue{&ddbtypes.AttributeValueMemberS{Value: "ab"}}},              // 4 + 3 + 1 + 2
		"m":     &ddbtypes.AttributeValueMemberM{Value: map[string]ddbtypes.AttributeValue{"k": &ddbtypes.AttributeValueMemberS{Value: "v"}}}, // 1 + 3 + 1 + 1 + 1
		"price": &ddbtypes.AttributeValueMemberN{Value: "0.0500"},                                                                             // 5 + (1+1)/2 + 1
	}
	if got, want := ItemSize(item), 6+5+3+10+7+7; got != want {
		t.Errorf("ItemSize = %d, want %d", got, want)
	}
}

// A stack's monthly standing charges, against a figure worked out by hand
// from CloudWatch's and Secrets Manager's pricing pages: 81 alarm metrics
// at $0.10, a dashboard at $3, a custom metric at $0.30, 3 secrets at
// $0.40.
func TestStanding(t *testing.T) {
	b := USEast1.Standing(Standing{AlarmMetrics: 81, Dashboards: 1, CustomMetrics: 1, Secrets: 3})
	cases := map[string]struct{ got, want float64 }{
		"alarms":         {b.Alarms, 8.10},
		"dashboard":      {b.Dashboards, 3.00},
		"custom metric":  {b.CustomMetrics, 0.30},
		"secrets":        {b.Secrets, 1.20},
		"a month in all": {b.Total(), 12.60},
	}
	for name, tc := range cases {
		if !near(tc.got, tc.want) {
			t.Errorf("%s: $%v, want $%v", name, tc.got, tc.want)
		}
	}
}
