package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/cost"
	"github.com/sesame-mail/sesame/internal/queue/batch"
	"github.com/sesame-mail/sesame/internal/review"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/sizing"
	"github.com/sesame-mail/sesame/internal/status"
)

// sample is what one run of one function's work used, measured.
type sample struct {
	cpu                time.Duration
	db                 dbUsage
	sqsRequests        float64
	sqsCalls, sesCalls int
	logBytes, logLines int
	// snsPublishes are the billed publishes of the SES events a status
	// batch consumed (SES's publishes to the topic, not the function's).
	snsPublishes float64
}

func (s sample) add(o sample) sample {
	s.cpu += o.cpu
	s.db.Calls += o.db.Calls
	s.db.Read += o.db.Read
	s.db.Write += o.db.Write
	if len(o.db.Heat) > 0 {
		heat := maps.Clone(s.db.Heat)
		if heat == nil {
			heat = map[string]units{}
		}
		for pk, u := range o.db.Heat {
			h := heat[pk]
			h.read += u.read
			h.write += u.write
			h.reads += u.reads
			heat[pk] = h
		}
		s.db.Heat = heat
	}
	s.sqsRequests += o.sqsRequests
	s.sqsCalls += o.sqsCalls
	s.sesCalls += o.sesCalls
	s.logBytes += o.logBytes
	s.logLines += o.logLines
	s.snsPublishes += o.snsPublishes
	return s
}

// measure runs fn and returns what it used. The billing wrapper's own
// reads are not the function's: their CPU time is taken out.
func (r *rig) measure(fn func()) sample {
	r.db.take()
	r.sqs.take()
	r.logs.take()
	r.ses.take()
	aside := r.db.asideCPU()
	start := cpuTime()
	fn()
	// Concurrent callers (the campaign sender's workers, a segment's
	// shards) overlap the wrapper's reads, which then take out more than
	// theirs: such a sample's CPU is not measured, it is zero.
	cpu := max(0, cpuTime()-start-(r.db.asideCPU()-aside))
	s := sample{cpu: cpu, db: r.db.take(), sesCalls: r.ses.take()}
	s.sqsRequests, s.sqsCalls = r.sqs.take()
	s.logBytes, s.logLines = r.logs.take()
	return s
}

// emailWork is what one email of a scenario made each function do: its
// messages (API requests for a route) and their summed samples.
type emailWork map[string]*struct {
	messages int
	sum      sample
}

func (w emailWork) add(fn string, s sample) { w.addBatch(fn, 1, s) }

// addBatch adds the sample of a batch of n messages.
func (w emailWork) addBatch(fn string, n int, s sample) {
	if w[fn] == nil {
		w[fn] = &struct {
			messages int
			sum      sample
		}{}
	}
	w[fn].messages += n
	w[fn].sum = w[fn].sum.add(s)
}

// scenario is one line of the cost table: its work over emails emails.
type scenario struct {
	name       string
	emails     int
	work       emailWork
	byteMonths float64 // table storage of its items
	// rate is the emails per second the batches are priced at; zero is
	// emailsPerSecond.
	rate float64
}

var costResults struct {
	sync.Mutex
	scenarios []scenario
}

// engagement is an Open and a Click of the email of event, a Delivery
// event body the SES stand-in published (the bare SES event, as the
// topic's raw delivery puts it on the queue).
func engagement(b *testing.B, delivery string) []string {
	var ev status.SESEvent
	if err := json.Unmarshal([]byte(delivery), &ev); err != nil {
		b.Fatal(err)
	}
	now := time.Now().UTC()
	open := status.SESEvent{EventType: status.TypeOpen, Mail: ev.Mail, Open: &status.Open{IPAddress: "198.51.100.7", Timestamp: now, UserAgent: "Mozilla/5.0"}}
	click := status.SESEvent{EventType: status.TypeClick, Mail: ev.Mail, Click: &status.Click{
		IPAddress: "198.51.100.7", Timestamp: now.Add(time.Second), UserAgent: "Mozilla/5.0",
		Link: "https://northwind.example/p/linen-shirt-3?utm_source=newsletter", LinkTags: map[string][]string{},
	}}
	var out []string
	for _, ev := range []status.SESEvent{open, click} {
		raw, err := json.Marshal(ev)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, string(raw))
	}
	return out
}

// consume runs consumer fn on one message and fails on a retry.
func consume(b *testing.B, fn func(msgs []batch.Message) []string, body string) {
	consumeBatch(b, fn, []string{body})
}

// consumeBatch runs consumer fn on one batch of messages and fails on a
// retry.
func consumeBatch(b *testing.B, fn func(msgs []batch.Message) []string, bodies []string) {
	var msgs []batch.Message
	for _, body := range bodies {
		msgs = append(msgs, batch.Message{ID: uuid.NewString(), Body: body, Receipt: "r", ReceiveCount: 1})
	}
	if retry := fn(msgs); len(retry) > 0 {
		b.Fatalf("%d of %d messages failed", len(retry), len(msgs))
	}
}

// statusBatch is the batch of SES events the status function gets at
// rate emails a second with perEmail events an email: the batch the cost
// model prices it at, so the bench makes the writes a batch makes.
func statusBatch(rate float64, perEmail int) int {
	return int(math.Round(batchingOf(routes.Status).Expected(rate * float64(perEmail))))
}

// batchingOf is how consumer c's event source feeds it, as the stack
// deploys it.
func batchingOf(c routes.Consumer) cost.Batching {
	return cost.Batching{Size: sizing.BatchSize(c), Window: sizing.BatchingWindow(c)}
}

// pricedRate is rate, the emails per second batches are sized and priced
// at, with zero meaning emailsPerSecond.
func pricedRate(rate float64) float64 {
	if rate > 0 {
		return rate
	}
	return emailsPerSecond
}

// pipeline queues the SES events of the emails sent so far (and, with
// engaged, an open and a click of each) for the status consumer, and runs
// whole batches of them (all of them with flush) through it and every
// webhook job they make through the dispatcher, measuring each.
func (r *rig) pipeline(b *testing.B, w emailWork, engaged, flush bool) {
	ctx := b.Context()
	evs := r.events.drain()
	perEmail := 0
	for _, e := range evs {
		r.pending = append(r.pending, e)
		perEmail++
		if engaged && strings.Contains(e, `"eventType":"Delivery"`) {
			r.pending = append(r.pending, engagement(b, e)...)
			perEmail += 2
		}
	}
	if perEmail > 0 {
		r.batch = statusBatch(pricedRate(r.rate), perEmail)
		// At most one job an event (one endpoint in the scenarios).
		r.jobBatch = int(math.Round(batchingOf(routes.WebhookDispatch).Expected(pricedRate(r.rate) * float64(perEmail))))
	}
	for len(r.pending) > 0 && (len(r.pending) >= r.batch || flush) {
		n := min(len(r.pending), max(r.batch, 1))
		msgs := r.pending[:n]
		r.pending = r.pending[n:]
		s := r.measure(func() {
			consumeBatch(b, func(m []batch.Message) []string { return r.deps.Status.Handle(ctx, m) }, msgs)
		})
		for _, m := range msgs {
			// SES's publish to the topic, and the topic's delivery to the
			// queue: free for SNS, a SendMessage for SQS.
			s.snsPublishes += cost.SNSPublishes(len(m))
			s.sqsRequests += cost.SQSRequests(len(m))
		}
		w.addBatch(routes.Status.Function, n, s)
		r.jobs = append(r.jobs, r.sqs.drain(webhooksQueueURL)...)
		r.dispatch(b, w, false)
	}
	if flush {
		r.dispatch(b, w, true)
	}
}

// dispatch runs whole batches of the webhook jobs queued so far (all of
// them with flush) through the dispatcher, measuring each.
func (r *rig) dispatch(b *testing.B, w emailWork, flush bool) {
	for len(r.jobs) > 0 && (len(r.jobs) >= r.jobBatch || flush) {
		n := min(len(r.jobs), max(r.jobBatch, 1))
		jobs := r.jobs[:n]
		r.jobs = r.jobs[n:]
		w.addBatch(routes.WebhookDispatch.Function, n, r.measure(func() {
			consumeBatch(b, func(m []batch.Message) []string { return r.deps.Webhooks.Handle(b.Context(), m) }, jobs)
		}))
	}
}

// BenchmarkCost runs each scenario's emails through every function they
// involve, over the emulators, with the 10 KB newsletter personalised
// for each email (personalised): what each function used per message,
// which costReport prices.
func BenchmarkCost(b *testing.B) {
	r := newRig(b)
	html := loadBodies(b)[1].html
	if review.Fingerprint(personalised(html, 0)) != review.Fingerprint(html) {
		b.Fatal("personalising the newsletter changed its layout")
	}
	plain := newWorkspace(b, r.deps.Repos, html)
	hooked := newWorkspace(b, r.deps.Repos, html)
	r.addEndpoint(b, hooked)
	held := newWorkspace(b, r.deps.Repos) // no template cleared

	type run struct {
		name    string
		ws      workspace
		idem    bool
		engaged bool
		held    bool
	}
	runs := []run{
		{name: "plain send (Delivery)", ws: plain},
		{name: "send with Idempotency-Key", ws: plain, idem: true},
		{name: "full tracking: 1 open, 1 click", ws: plain, engaged: true},
		{name: "tracking + 1 webhook endpoint, all events", ws: hooked, engaged: true},
		{name: "held, then cleared by review", ws: held, held: true},
	}
	for _, run := range runs {
		b.Run(run.name, func(b *testing.B) {
			w := emailWork{}
			r.db.storedByteMonths(time.Now()) // forget the setup's items
			n := 0
			for b.Loop() {
				n++
				body, status := personalised(html, n), 200
				if run.held { // a new layout each time: held for review
					body = strings.Replace(body, "<table", fmt.Sprintf(`<table data-v%d="1"`, n), 1)
					status = 202
				}
				idem := ""
				if run.idem {
					idem = uuid.NewString()
				}
				w.add(routes.Send.Function, r.measure(func() { r.send(b, run.ws, body, idem, status) }))
				for _, m := range r.sqs.drain(reviewQueueURL) {
					w.add(routes.Review.Function, r.measure(func() {
						consume(b, func(msgs []batch.Message) []string { return r.deps.Reviewer.Handle(b.Context(), msgs) }, m)
					}))
				}
				r.pipeline(b, w, run.engaged, false)
			}
			r.pipeline(b, w, run.engaged, true)
			costResults.Lock()
			costResults.scenarios = append(costResults.scenarios, scenario{name: run.name, emails: n, work: w, byteMonths: r.db.storedByteMonths(time.Now())})
			costResults.Unlock()
		})
	}
}

// emailsPerSecond is the traffic the batches are priced at: about 86,000
// emails a day. Below it, batches are smaller and SQS and Lambda cost
// more per email; above it, less.
const emailsPerSecond = 1.0

// latency is the modelled time each call waits on AWS in the region
// (the emulators' times say nothing of AWS's): DynamoDB single-item and
// batch calls, SES SendEmail, SQS sends, a customer's webhook endpoint.
var latency = struct{ dynamo, ses, sqs, webhook time.Duration }{
	dynamo: 5 * time.Millisecond, ses: 30 * time.Millisecond, sqs: 8 * time.Millisecond, webhook: 150 * time.Millisecond,
}

// consumerOf is the queue consumer of function fn, if it is one.
func consumerOf(fn string) (routes.Consumer, bool) {
	for _, c := range routes.Consumers {
		if c.Function == fn {
			return c, true
		}
	}
	return routes.Consumer{}, false
}

// scheduled reports whether fn runs on a schedule (a tick).
func scheduled(fn string) bool {
	for _, s := range routes.Schedules {
		if s.Function == fn {
			return true
		}
	}
	return false
}

// accessLogLine is an access log line of the stack's format, with
// typical values.
func accessLogLine() string {
	example := map[string]string{
		"$context.requestId": "c6af9ac6-7b61-11e6-9a41-93e8deadbeef", "$context.identity.sourceIp": "203.0.113.7",
		"$context.status": "200", "$context.error.message": "-", "$context.httpMethod": "POST",
		"$context.path": "/prod/api/v1/send", "$context.responseLatency": "48",
	}
	line := map[string]string{}
	for k, v := range sizing.AccessLogFields {
		line[k] = example[v]
	}
	b, _ := json.Marshal(line)
	return string(b)
}

// price is the work of one email of s: each function's messages per email, in
// batches of the size its event source reaches at the scenario's rate.
func (s scenario) price() (cost.Work, []string) {
	var w cost.Work
	var notes []string
	per := 1 / float64(s.emails)
	rate := pricedRate(s.rate)
	w.LogMonths = 1 // every log group keeps a month (infra logRetention)
	w.ItemByteMonths = s.byteMonths * per
	for _, fn := range slices.Sorted(maps.Keys(s.work)) {
		fw := s.work[fn]
		msgs := float64(fw.messages) * per // per email
		mean := func(v float64) float64 { return v / float64(fw.messages) }
		cpu := time.Duration(mean(float64(fw.sum.cpu)))
		// Mean calls a message, fractions kept: 2.5 calls wait 2.5 calls.
		wait := time.Duration(mean(float64(fw.sum.db.Calls))*float64(latency.dynamo) +
			mean(float64(fw.sum.sesCalls))*float64(latency.ses) +
			mean(float64(fw.sum.sqsCalls))*float64(latency.sqs))
		size, ok := sizing.Of(fn)
		if !ok {
			panic("bench: priced work of " + fn + ", which the stack does not deploy")
		}
		mem := size.MemoryMB
		sqsBefore := w.SQSRequests
		batchSize, invocations := 1.0, msgs
		c, isConsumer := consumerOf(fn)
		switch {
		case isConsumer:
			batchSize = batchingOf(c).Expected(rate * msgs)
			invocations = msgs / batchSize
			w.SQSRequests += msgs * cost.ConsumeRequests(batchSize)
		case scheduled(fn): // an EventBridge schedule's invocation is free
		default:
			w.APIRequests += msgs
			w.LogBytes += msgs * cost.LogBytes(accessLogLine())
		}
		// A batch is one invocation: the status and review consumers work
		// through it in turn, the dispatcher delivers its jobs at once.
		batchWait := time.Duration(batchSize * float64(wait))
		switch fn {
		case routes.WebhookDispatch.Function:
			batchWait = wait + latency.webhook
		case routes.CampaignSender.Function:
			batchWait = senderWait(wait, mean(float64(fw.sum.sesCalls)))
		}
		inv := cost.Invocations{MemoryMB: mem, Count: invocations,
			Duration: cost.Duration(time.Duration(batchSize*float64(cpu)), mem, batchWait)}
		w.Lambda = append(w.Lambda, inv)
		w.SNSPublishes += msgs * mean(fw.sum.snsPublishes)
		w.ReadUnits += msgs * mean(fw.sum.db.Read)
		w.WriteUnits += msgs * mean(fw.sum.db.Write)
		w.SQSRequests += msgs * mean(fw.sum.sqsRequests)
		w.LogBytes += msgs * (mean(float64(fw.sum.logBytes)) + cost.LogEventOverhead*mean(float64(fw.sum.logLines)))
		if sizing.FunctionLogs.PlatformLines() {
			w.LogBytes += invocations * cost.LogBytes(cost.PlatformLines...)
		}
		notes = append(notes, fmt.Sprintf("%s: %.1f msg/email, batch %.1f, %.2f ms CPU, %.1f calls (%.1f RRU %.1f WRU), %.0f B logs; "+
			"per email %.2f SQS requests, %.5f GB-s at %.0f MB, %.1f SNS publishes",
			fn, msgs, batchSize, ms(cpu), mean(float64(fw.sum.db.Calls)), mean(fw.sum.db.Read), mean(fw.sum.db.Write), mean(float64(fw.sum.logBytes)),
			w.SQSRequests-sqsBefore, inv.Count*mem/1024*inv.Duration.Seconds(), mem, msgs*mean(fw.sum.snsPublishes)))
		notes = append(notes, keyUnits(fw.sum.db.Heat, s.emails)...)
	}
	return w, notes
}

// costReport writes the cost table: per 1,000 emails, by service.
func costReport(out io.Writer) {
	costResults.Lock()
	defer costResults.Unlock()
	if len(costResults.scenarios) == 0 {
		return
	}
	p := cost.USEast1
	fmt.Fprintf(out, "\nInfrastructure cost per 1,000 emails (10 KB newsletter; us-east-1 list prices; AWS's billing rules;\n")
	fmt.Fprintf(out, "batches at %.0f email/s; modelled waits: DynamoDB %v, SES %v, SQS %v, webhook endpoint %v a call)\n",
		emailsPerSecond, latency.dynamo, latency.ses, latency.sqs, latency.webhook)
	fmt.Fprintf(out, "  %-44s %9s %9s %9s %11s %11s %9s %9s %8s\n", "scenario", "DynamoDB", "SQS", "Lambda", "API Gateway", "SNS", "Logs", "total", "% of SES")
	var details []string
	for _, s := range costResults.scenarios {
		w, notes := s.price()
		bill := p.Price(w.Times(1000))
		fmt.Fprintf(out, "  %-44s %9.5f %9.5f %9.5f %11.5f %11.5f %9.5f %9.5f %7.1f%%\n", s.name,
			bill.DynamoDB, bill.SQS, bill.Lambda, bill.APIGateway, bill.SNS, bill.Logs, bill.Total(), 100*p.ShareOfSES(bill))
		details = append(details, fmt.Sprintf("  %s (%d emails): %.0f B of logs, %.0f B-months stored per email", s.name, s.emails, w.LogBytes, w.ItemByteMonths))
		for _, n := range notes {
			details = append(details, "    "+n)
		}
	}
	fmt.Fprintf(out, "  SNS: SES's events published to the topic, $0.50 per million 64 KB chunks (delivery to SQS is free, its SendMessage is SQS's);\n")
	fmt.Fprintf(out, "  SES's own $%.2f is not in the total. Per 1,000 emails: $ of each service.\n", p.SESPer1000)
	fmt.Fprintf(out, "Per function, per email:\n%s\n", strings.Join(details, "\n"))
}
