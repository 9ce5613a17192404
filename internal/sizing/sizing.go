// Package sizing is how the stack runs each function: its memory and
// timeout, and for a queue consumer the batch size and batching window of
// its event source. The CDK stack (infra/) deploys these values and the
// cost model (make bench) prices them, so the two cannot drift. A leaf
// package: no AWS SDK, no CDK.
package sizing

import (
	"time"

	"github.com/sesame-mail/sesame/internal/routes"
)

// Sizing is a function's memory and timeout.
type Sizing struct {
	MemoryMB float64
	Timeout  time.Duration
}

// defaultRoute fits a route that reads or writes a few small items: well
// under a second of work, 10 s to ride out DynamoDB retries.
var defaultRoute = Sizing{MemoryMB: 256, Timeout: 10 * time.Second}

// sendRoute is for POST /send:
//   - 28 s: API Gateway ends a Lambda integration at 29 s, so a longer
//     timeout would only let the function work on for a client that
//     already got a 504. Attachments given by URL are fetched 4 at a time
//     with up to 10 s each, which can take most of that.
//   - 512 MB: its largest request (a 20 MB message: the fetched files,
//     the MIME, and the SDK's base64 of it in the SendEmail body) peaks
//     under 270 MB resident; with Lambda's 40 MB beside it and 1.5×
//     headroom, 455 MB (internal/bench BenchmarkSendMemory). Most of a
//     send is waiting on DynamoDB and SES, which memory does not shorten.
var sendRoute = Sizing{MemoryMB: 512, Timeout: 28 * time.Second}

// sendBatchRoute is for POST /send/batch: as sendRoute, but a batch
// sends 5 of its emails at once, each up to 20 MB, and SES may hold
// every call for seconds: the largest batch peaks near 920 MB resident,
// 1,445 MB with the overhead and headroom (BenchmarkSendMemory).
var sendBatchRoute = Sizing{MemoryMB: 1536, Timeout: 28 * time.Second}

// bulkWriteRoute is for POST /suppressions with up to 1,000 addresses:
// about 63 rounds of 16 conditional writes, well under a second, but all
// on one partition (and one index partition), whose throttling the SDK
// rides out with retries; 28 s lets it, under API Gateway's 29 s.
var bulkWriteRoute = Sizing{MemoryMB: 256, Timeout: 28 * time.Second}

// segmentRoute is for POST /segments, which reads and evaluates every
// contact of the workspace (docs/decisions.md, Segments, has the
// arithmetic):
//   - 28 s, as the send routes: API Gateway ends the request at 29 s.
//   - 4096 MB: CPU grows with memory (1,769 MB is one vCPU). Decoding
//     1,000,000 contacts takes about 15 s of one vCPU; the 16 shards'
//     pages decode in parallel, so 2.3 vCPUs take about 6.5 s.
//
// POST /send/bulk evaluates a segment the same way, then writes 16 KB per
// 1,000 recipients: the same sizing.
var segmentRoute = Sizing{MemoryMB: 4096, Timeout: 28 * time.Second}

// routeSizing lists the routes that need more than defaultRoute.
var routeSizing = map[string]Sizing{
	routes.Send.Function:            sendRoute,
	routes.SendBatch.Function:       sendBatchRoute,
	routes.AddSuppressions.Function: bulkWriteRoute,
	routes.CreateSegment.Function:   segmentRoute,
	routes.SendBulk.Function:        segmentRoute,
}

// Route is the sizing of route r.
func Route(r routes.Route) Sizing {
	if s, ok := routeSizing[r.Function]; ok {
		return s
	}
	return defaultRoute
}

// Queue consumers: a batch of up to consumerBatchSize messages per
// invocation, failed messages reported one by one.
const (
	consumerBatchSize = 10
	consumerMemoryMB  = 256
)

// consumerMemory lists the consumers that need more than consumerMemoryMB.
var consumerMemory = map[string]float64{
	// Releasing a held email refetches its attachments and rebuilds the
	// full message (up to 20 MB), one email an invocation: as /send, its
	// largest release peaks under 200 MB resident, ≤ 355 MB with Lambda's
	// 40 MB and 1.5× headroom (internal/bench BenchmarkSendMemory).
	routes.Review.Function: 512,
	// The status consumer waits on DynamoDB for most of its time, which
	// memory does not shorten: half the memory halves that part of the
	// bill and stretches its ~1.3 ms of CPU an event to ~18 ms (a batch
	// of 100 still ends in a few of its 30 s).
	routes.Status.Function: 128,
}

// Consumer gives consumer c half its queue's visibility timeout: an
// invocation always ends (or times out) well before its messages become
// visible again, so no message is handed to a second invocation while the
// first still works on it.
//
//   - review: 512 MB (consumerMemory), 30 s.
//   - status: 128 MB (consumerMemory), 30 s; DynamoDB and SQS calls only.
//   - webhook-dispatch: 256 MB, 30 s. One POST may take its full 10 s
//     (webhook.DefaultTimeout) and the 10 messages of a batch are delivered
//     10 at once, so a batch takes about 10 s plus the DynamoDB writes.
func Consumer(c routes.Consumer) Sizing {
	mem, ok := consumerMemory[c.Function]
	if !ok {
		mem = consumerMemoryMB
	}
	return Sizing{MemoryMB: mem, Timeout: c.Queue.VisibilityTimeout / 2}
}

// Scheduled is the sizing of a scheduled function: the campaign tick
// reads a few items and queues a few messages a minute.
func Scheduled(routes.Scheduled) Sizing {
	return Sizing{MemoryMB: consumerMemoryMB, Timeout: 30 * time.Second}
}

// statusBatchSize is the status consumer's largest batch: it applies
// its events one after the other at about 4 DynamoDB calls each, so 100
// take a few seconds of its 30, and its counters and queue requests are
// paid once a batch. (An SQS event source allows more than 10 only with a
// batching window.)
const statusBatchSize = 100

// BatchSize is how many messages one invocation of c takes: a review may
// refetch attachments for most of its timeout, and a campaign chunk of
// 1,000 recipients paced at the account's rate fills an invocation, so
// both take one at a time. The webhook dispatcher posts a batch's jobs
// at once (10 at a time) with up to 10 s each, so it keeps 10.
func BatchSize(c routes.Consumer) int {
	switch c {
	case routes.Review, routes.CampaignSender:
		return 1
	case routes.Status:
		return statusBatchSize
	}
	return consumerBatchSize
}

// batchingWindows are the consumers whose event source waits to fill a
// batch (MaximumBatchingWindow): at low traffic each message would
// otherwise be its own invocation, receive and delete. The wait is the
// latency it adds, at most, to a message that arrives alone.
var batchingWindows = map[string]time.Duration{
	routes.Status.Function:          5 * time.Second,
	routes.WebhookDispatch.Function: 3 * time.Second,
}

// BatchingWindow is how long c's event source may wait to fill a batch;
// zero for none.
func BatchingWindow(c routes.Consumer) time.Duration { return batchingWindows[c.Function] }

// Of is the sizing of function fn (a route's, a consumer's or a
// schedule's), and whether the stack has such a function.
func Of(fn string) (Sizing, bool) {
	for _, r := range routes.All() {
		if r.Function == fn {
			return Route(r), true
		}
	}
	for _, c := range routes.Consumers {
		if c.Function == fn {
			return Consumer(c), true
		}
	}
	for _, s := range routes.Schedules {
		if s.Function == fn {
			return Scheduled(s), true
		}
	}
	for _, s := range routes.Sites {
		if s.Function == fn {
			return SiteSizing(s), true
		}
	}
	return Sizing{}, false
}

// SiteSizing is the sizing of a site's function: a dashboard page reads a
// few partitions of one workspace (the overview: 30 days of counters, the
// held emails and the drafts) or writes an item or two, like a route.
func SiteSizing(routes.Site) Sizing { return defaultRoute }

// Logging is how Lambda treats every function's log lines.
type Logging struct {
	// Format is Lambda's log format: JSON (the functions already write
	// JSON lines, which Lambda passes on) or Text.
	Format string
	// SystemLevel filters Lambda's own platform lines: at WARN it drops
	// the START, END and REPORT lines of every invocation (about 270
	// bytes each time), which only JSON format allows.
	SystemLevel string
	// ApplicationLevel filters the functions' lines by their "level"
	// field, as LOG_LEVEL does in the code.
	ApplicationLevel string
}

// FunctionLogs is the Logging of every function.
var FunctionLogs = Logging{Format: "JSON", SystemLevel: "WARN", ApplicationLevel: "INFO"}

// PlatformLines reports whether Lambda writes its START, END and REPORT
// lines for each invocation under l.
func (l Logging) PlatformLines() bool {
	return l.Format != "JSON" || l.SystemLevel == "" || l.SystemLevel == "INFO" || l.SystemLevel == "DEBUG"
}

// AccessLogFields are the API Gateway access log's fields, by name, each
// a $context variable: one JSON object per request. Only what the
// functions' own request line cannot say: the functions log the request
// id, route, status and latency of every request that reaches them, so
// the access log keeps the client's address, the status API Gateway
// answered and its error for the requests that never reach a function
// (throttled, too large, unknown route).
var AccessLogFields = map[string]string{
	"requestId": "$context.requestId",
	"ip":        "$context.identity.sourceIp",
	"status":    "$context.status",
	"error":     "$context.error.message",
}
