// Package cost prices Sesame's use of AWS by AWS's own billing rules,
// not by what an emulator reports: DynamoDB read and write units from item
// sizes and request types, Lambda GB-seconds at the configured memory,
// API Gateway and SQS per request, CloudWatch Logs by the byte, storage by
// the byte-month. `make bench` measures the quantities (internal/bench)
// and prices them here; the arithmetic is held by cost_test.go.
package cost

import (
	"math"
	"time"
)

// Prices are the list prices of one region.
type Prices struct {
	// APIGatewayRequest: REST API, per request (the first 333 million a
	// month).
	APIGatewayRequest float64
	// LambdaRequest and LambdaGBSecond: per invocation and per GB-second
	// of billed duration (arm64).
	LambdaRequest, LambdaGBSecond float64
	// DynamoRRU and DynamoWRU: on-demand read and write request units.
	DynamoRRU, DynamoWRU float64
	// DynamoStorageGBMonth and PITRGBMonth: table storage and continuous
	// backups (point-in-time recovery), per GB-month of table size.
	DynamoStorageGBMonth, PITRGBMonth float64
	// SQSRequest: a standard queue's API request, per 64 KB chunk.
	SQSRequest float64
	// SNSPublish: a publish to a standard topic, per 64 KB chunk of its
	// message (the first million a month are free; not counted). SES
	// publishes each event of a configuration set to the stack's topic;
	// SNS's delivery to an SQS subscription is free (the queue still bills
	// the SendMessage). On EventBridge the same events would be opt-in data
	// events at $1.00 per million (only management events are free).
	SNSPublish float64
	// LogsIngestGB and LogsStorageGBMonth: CloudWatch Logs standard class.
	LogsIngestGB, LogsStorageGBMonth float64
	// SESPer1000 is SES's own price per 1,000 emails, the yardstick.
	SESPer1000 float64

	// What a stack pays each month whatever it sends (Standing):
	// AlarmMetricMonth is a standard-resolution alarm per metric it reads
	// (a metric-math alarm bills each metric of its expression);
	// DashboardMonth a dashboard; CustomMetricMonth a custom metric (a
	// log metric filter's); SecretMonth a Secrets Manager secret.
	AlarmMetricMonth, DashboardMonth, CustomMetricMonth, SecretMonth float64
}

// USEast1 are the us-east-1 on-demand list prices, as of 2026.
var USEast1 = Prices{
	APIGatewayRequest:    3.50 / 1e6,
	LambdaRequest:        0.20 / 1e6,
	LambdaGBSecond:       0.0000133334,
	DynamoRRU:            0.125 / 1e6,
	DynamoWRU:            0.625 / 1e6,
	DynamoStorageGBMonth: 0.25,
	PITRGBMonth:          0.20,
	SQSRequest:           0.40 / 1e6,
	SNSPublish:           0.50 / 1e6,
	LogsIngestGB:         0.50,
	LogsStorageGBMonth:   0.03,
	SESPer1000:           0.10,
	AlarmMetricMonth:     0.10,
	DashboardMonth:       3.00,
	CustomMetricMonth:    0.30,
	SecretMonth:          0.40,
}

// DynamoDB's units: a read unit covers 4 KB read strongly consistently
// (half a unit eventually), a write unit 1 KB written. Transactions cost
// twice. A request that reads or writes nothing still costs its minimum.
const (
	readUnitBytes  = 4096
	writeUnitBytes = 1024
)

// ReadUnits are the read units of reading one item of size bytes (0: not
// found), as GetItem, and each key of BatchGetItem, is billed.
func ReadUnits(size int, strong bool) float64 {
	u := math.Max(1, math.Ceil(float64(size)/readUnitBytes))
	if !strong {
		u /= 2
	}
	return u
}

// QueryUnits are the read units of a Query or Scan that read total bytes
// of items (before any filter): the sum is rounded up, not each item.
func QueryUnits(total int, strong bool) float64 { return ReadUnits(total, strong) }

// WriteUnits are the write units of writing one item: the larger of its
// size before and after (a delete: before; a failed condition: the item
// as it is).
func WriteUnits(before, after int) float64 {
	return math.Max(1, math.Ceil(float64(max(before, after))/writeUnitBytes))
}

// Transactional is units read or written in a transaction: twice.
func Transactional(units float64) float64 { return 2 * units }

// lambdaVCPUMemoryMB is the memory at which a Lambda function has one
// full vCPU; below it, CPU is in proportion to memory.
const lambdaVCPUMemoryMB = 1769

// Duration is the billed duration of one invocation on a function of
// memoryMB: cpu measured on a full core, stretched by the function's
// share of one, plus the time spent waiting on other services, rounded
// up to the millisecond.
func Duration(cpu time.Duration, memoryMB float64, wait time.Duration) time.Duration {
	stretch := math.Max(1, lambdaVCPUMemoryMB/memoryMB)
	d := float64(cpu)*stretch + float64(wait)
	return time.Duration(math.Max(1, math.Ceil(d/float64(time.Millisecond)))) * time.Millisecond
}

// Batching is how an event source feeds a consumer: up to Size messages
// an invocation, waiting up to Window to fill a batch.
type Batching struct {
	Size   int
	Window time.Duration
}

// Expected is the mean batch when messages arrive at rate a second: the
// first message and those that arrive while the source waits out the
// window, up to Size. Without a window each message is its own batch (at
// rates where a poll rarely finds a second one waiting).
func (b Batching) Expected(rate float64) float64 {
	return math.Max(1, math.Min(float64(b.Size), 1+rate*b.Window.Seconds()))
}

// chunkBytes is the payload SQS and SNS bill as one request: a request
// of up to 256 KB is billed one request per 64 KB chunk.
const chunkBytes = 64 << 10

// SQSRequests are the requests SQS bills for one API call carrying
// payloadBytes of message bodies (at least one, an empty call too).
func SQSRequests(payloadBytes int) float64 {
	return float64(max(1, (payloadBytes+chunkBytes-1)/chunkBytes))
}

// SNSPublishes are the publishes SNS bills for one message of
// messageBytes: by the same 64 KB chunks.
func SNSPublishes(messageBytes int) float64 { return SQSRequests(messageBytes) }

// ConsumeRequests are the SQS requests of consuming one message in
// batches of batch: its share of the event source's ReceiveMessage and
// DeleteMessageBatch. Sending it is the producer's request, counted
// where it is made. The long polls of an idle queue are a fixed monthly
// cost, not per email.
func ConsumeRequests(batch float64) float64 { return 2 / batch }

// LogEventOverhead is what CloudWatch Logs counts for each log event
// besides its message (PutLogEvents: the message's UTF-8 bytes plus 26).
const LogEventOverhead = 26

// LogBytes is what CloudWatch Logs ingests for lines.
func LogBytes(lines ...string) float64 {
	n := 0
	for _, l := range lines {
		n += len(l) + LogEventOverhead
	}
	return float64(n)
}

// PlatformLines are the lines Lambda writes for each invocation in its
// text log format (a REPORT line as on a warm start, no Init Duration).
// With the JSON log format and a system log level above INFO it writes
// none of them.
var PlatformLines = []string{
	"START RequestId: 0190d5a4-7c3e-7d2a-9f4b-3c2e1d0a9b8c Version: $LATEST\n",
	"END RequestId: 0190d5a4-7c3e-7d2a-9f4b-3c2e1d0a9b8c\n",
	"REPORT RequestId: 0190d5a4-7c3e-7d2a-9f4b-3c2e1d0a9b8c\tDuration: 12.34 ms\tBilled Duration: 13 ms\tMemory Size: 256 MB\tMax Memory Used: 45 MB\t\n",
}

// Invocations are count invocations of a function of memoryMB, each
// billed for duration.
type Invocations struct {
	MemoryMB float64
	Count    float64
	Duration time.Duration
}

// Work is what one email of a scenario uses, in billed quantities.
type Work struct {
	APIRequests float64
	Lambda      []Invocations
	ReadUnits   float64
	WriteUnits  float64
	SQSRequests float64
	// SNSPublishes are SES's events published to the SES events topic,
	// in billed 64 KB chunks.
	SNSPublishes float64
	// LogBytes are ingested into CloudWatch Logs (every line: the
	// functions', Lambda's platform lines, API Gateway's access log), kept
	// for LogMonths.
	LogBytes  float64
	LogMonths float64
	// ItemByteMonths is table storage: the bytes of items written, times
	// the months they are kept. PITR is billed on the same size.
	ItemByteMonths float64
}

// Times is w done n times.
func (w Work) Times(n float64) Work {
	out := Work{
		APIRequests: w.APIRequests * n, ReadUnits: w.ReadUnits * n, WriteUnits: w.WriteUnits * n,
		SQSRequests: w.SQSRequests * n, SNSPublishes: w.SNSPublishes * n, LogBytes: w.LogBytes * n,
		LogMonths: w.LogMonths, ItemByteMonths: w.ItemByteMonths * n,
	}
	for _, l := range w.Lambda {
		l.Count *= n
		out.Lambda = append(out.Lambda, l)
	}
	return out
}

// Bill is the price of some work, by service, in dollars.
type Bill struct {
	DynamoDB, SQS, Lambda, APIGateway, SNS, Logs float64
}

// Total is the bill's sum.
func (b Bill) Total() float64 {
	return b.DynamoDB + b.SQS + b.Lambda + b.APIGateway + b.SNS + b.Logs
}

const gb = 1 << 30

// Price is the bill of w at prices p.
func (p Prices) Price(w Work) Bill {
	var b Bill
	stored := w.ItemByteMonths / gb
	b.DynamoDB = w.ReadUnits*p.DynamoRRU + w.WriteUnits*p.DynamoWRU + stored*(p.DynamoStorageGBMonth+p.PITRGBMonth)
	b.SQS = w.SQSRequests * p.SQSRequest
	for _, l := range w.Lambda {
		b.Lambda += l.Count * (p.LambdaRequest + l.MemoryMB/1024*l.Duration.Seconds()*p.LambdaGBSecond)
	}
	b.APIGateway = w.APIRequests * p.APIGatewayRequest
	b.SNS = w.SNSPublishes * p.SNSPublish
	b.Logs = w.LogBytes / gb * (p.LogsIngestGB + w.LogMonths*p.LogsStorageGBMonth)
	return b
}

// ShareOfSES is what bill, for 1,000 emails, adds to SES's own price, as
// a fraction.
func (p Prices) ShareOfSES(per1000 Bill) float64 { return per1000.Total() / p.SESPer1000 }

// Standing is what a deployed stack holds that bills by the month, sent
// mail or not, as counted in its template. CloudWatch's free tier (10
// alarm metrics, 3 dashboards, 10 custom metrics) is the account's, shared
// with whatever else it runs: not subtracted.
type Standing struct {
	AlarmMetrics, Dashboards, CustomMetrics, Secrets int
}

// StandingBill is the monthly price of a Standing, by item, in dollars.
type StandingBill struct {
	Alarms, Dashboards, CustomMetrics, Secrets float64
}

// Total is the bill's sum.
func (b StandingBill) Total() float64 {
	return b.Alarms + b.Dashboards + b.CustomMetrics + b.Secrets
}

// Standing is the monthly bill of s at prices p.
func (p Prices) Standing(s Standing) StandingBill {
	return StandingBill{
		Alarms:        float64(s.AlarmMetrics) * p.AlarmMetricMonth,
		Dashboards:    float64(s.Dashboards) * p.DashboardMonth,
		CustomMetrics: float64(s.CustomMetrics) * p.CustomMetricMonth,
		Secrets:       float64(s.Secrets) * p.SecretMonth,
	}
}
