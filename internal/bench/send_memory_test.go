package bench

// The send functions' memory, measured: each of the largest requests our
// limits let through runs the send route as its function builds it (API
// Gateway event in, the real handler, attachment fetches, MIME build and
// the SDK's serialisation of SendEmail to a stand-in SES that reads every
// message back) in a child process, whose peak resident set the kernel
// reports (VmHWM). The peak, plus what Lambda's environment holds beside
// the process, times a margin must fit the memory the stack gives the
// function (internal/sizing). The review consumer's largest work is
// measured alike: the largest /send content, held because its layout is
// new, released by the review function's handler from its stored form.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/mail"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	reviewfn "github.com/sesame-mail/sesame/internal/api/emails/review"
	"github.com/sesame-mail/sesame/internal/api/emails/send"
	"github.com/sesame-mail/sesame/internal/api/statusfeed"
	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/attachment"
	"github.com/sesame-mail/sesame/internal/attachment/fetch"
	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/compose/raw"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/cost"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/sending/sendinghttp"
	"github.com/sesame-mail/sesame/internal/sizing"
)

const (
	// lambdaOverheadMB is what a Lambda execution environment counts
	// beside the function's own process in "Max Memory Used": the
	// provided.al2023 runtime's bootstrap and any extension. Reported
	// figures run 20-40 MB; the stack adds no extension, and we take the
	// high end.
	lambdaOverheadMB = 40
	// memoryMargin is the headroom the largest request keeps: its
	// measured peak plus the overhead, times this, within the memory.
	memoryMargin = 1.5
	// rounds is how many times the child serves its request, one after
	// the other, as a warm instance serves a client's repeated sends: the
	// garbage of one is still around while the next runs.
	rounds = 2
	// quiet is how long the stand-in SES holds a batch's SendEmail calls
	// after the last one arrived, so every send the batch has in flight
	// holds its message at once (SES may take seconds to answer).
	quiet = 1500 * time.Millisecond

	peakCaseEnv = "SESAME_PEAK_CASE"
	peakLine    = "peak-memory "
)

// peakCase is one of the largest requests a send function takes.
type peakCase struct {
	name  string
	route routes.Route
	// emails is how many emails the request carries: 1 for /send, a
	// batch's items otherwise.
	emails int
	// html is the bytes of html of each email.
	html int
	// files is how many URL attachments each email has, and fetched the
	// bytes they hold together; 0 fills the encoded message to the 20 MB
	// it may reach.
	files   int
	fetched int
	// status is the answer to the request, and of each batch item.
	status int
	// hold makes SES answer only once the batch has every send it runs
	// at once in flight.
	hold bool
	// review holds the request's email (its layout new) and measures the
	// review function releasing it instead of the send route.
	review bool
}

// function is the function that serves c, and sizing how the stack
// runs it.
func (c peakCase) function() string {
	if c.review {
		return routes.Review.Function
	}
	return c.route.Function
}

func (c peakCase) sizing() sizing.Sizing {
	if c.review {
		return sizing.Consumer(routes.Review)
	}
	return sizing.Route(c.route)
}

// maxHTML is about the largest html a /send body of 5 MB carries.
const maxHTML = httpapi.MaxBodyBytes - 64<<10

// fetchCap is what URL attachments of one email may hold together: more
// is refused before it is all fetched.
const fetchCap = 20 << 20

var peakCases = []peakCase{
	{name: "send: one 15 MB attachment, 20 MB message", route: routes.Send, emails: 1, html: 10 << 10, files: 1, status: 200},
	{name: "send: 4.9 MB html and 4 attachments, 20 MB message", route: routes.Send, emails: 1, html: maxHTML, files: 4, status: 200},
	{name: "send: 4.9 MB html and 20 MB fetched, over 20 MB encoded", route: routes.Send, emails: 1, html: maxHTML, files: 1, fetched: fetchCap, status: 413},
	{name: "send-batch: 10 messages of 20 MB", route: routes.SendBatch, emails: 10, html: 10 << 10, files: 1, status: 200, hold: true},
	{name: "send-batch: 10 emails fetching 20 MB, over 20 MB encoded", route: routes.SendBatch, emails: 10, html: 10 << 10, files: 1, fetched: fetchCap, status: 413, hold: true},
	// A held email keeps its request and refetches its URL attachments
	// when released (sendingdb HoldEmail, sending.Reviewer).
	{name: "review: held 4.9 MB html and 4 attachments, 20 MB message", route: routes.Send, emails: 1, html: maxHTML, files: 4, status: 200, review: true},
	{name: "review: held one 15 MB attachment, 20 MB message", route: routes.Send, emails: 1, html: 10 << 10, files: 1, status: 200, review: true},
}

// sendMemoryPeaks are the peaks the one measurement found, in MB, by
// function.
var sendMemoryPeaks map[string]float64

// BenchmarkSendMemory holds that the largest requests of the send routes
// fit the memory the stack gives their functions, with lambdaOverheadMB
// beside them and memoryMargin of headroom: measured as peak resident
// memory, never as time, once whatever b.N. A benchmark, not a test:
// make test runs under the race detector, which multiplies memory.
func BenchmarkSendMemory(b *testing.B) {
	if name := os.Getenv(peakCaseEnv); name != "" {
		servePeakCase(b, name)
		return
	}
	if runtime.GOOS != "linux" {
		b.Skip("VmHWM is read from /proc/self/status")
	}
	if sendMemoryPeaks == nil {
		sendMemoryPeaks = measureSendMemory(b)
	}
	for fn, peak := range sendMemoryPeaks {
		b.ReportMetric(peak, fn+"-peak-MB")
	}
}

// measureSendMemory runs every case in a child process and checks its
// answers, what SES received and its peak against its function's memory.
func measureSendMemory(b *testing.B) map[string]float64 {
	files := newFileServer(b)
	ses := newStandInSES(b, files)
	peaks := map[string]float64{}
	for _, c := range peakCases {
		event, held := c.event(b, files)
		ses.reset(c.hold)
		got := runPeakChild(b, c.name, event, held, ses.url)
		checkAnswers(b, c, got)
		wantSent := 0
		if c.status == 200 {
			wantSent = rounds * c.emails
		}
		sent, sizes, problems := ses.received()
		for _, p := range problems {
			b.Errorf("%s: %s", c.name, p)
		}
		if sent != wantSent {
			b.Errorf("%s: SES received %d whole messages, want %d", c.name, sent, wantSent)
		}
		for _, n := range sizes {
			if n < sending.MaxMessageBytes-256<<10 || n > sending.MaxMessageBytes {
				b.Errorf("%s: SES received a message of %d bytes; the case wants one just under the %d it may reach", c.name, n, sending.MaxMessageBytes)
			}
		}
		fn, mem := c.function(), c.sizing().MemoryMB
		peaks[fn] = max(peaks[fn], mb(got.Peak))
		need := (mb(got.Peak) + lambdaOverheadMB) * memoryMargin
		// Reported, not held: CPU on this machine's core, and stretched by
		// the function's share of a vCPU (cost.Duration's rule).
		b.Logf("%s: peak RSS %.0f MB (%.0f MB at start), %d SendEmail calls in flight at most; (peak + %d MB) × %.1f = %.0f MB of the %.0f MB of %s; %.0f ms CPU a request, %.0f ms at its share of a vCPU",
			c.name, mb(got.Peak), mb(got.Start), ses.mostHeld(), lambdaOverheadMB, memoryMargin, need, mem, fn,
			ms(got.CPU), ms(cost.Duration(got.CPU, mem, 0)))
		if need > mem {
			b.Errorf("%s needs %.0f MB ((%.0f MB peak + %d MB) × %.1f), over the %.0f MB of function %s (internal/sizing)",
				c.name, need, mb(got.Peak), lambdaOverheadMB, memoryMargin, mem, fn)
		}
	}
	return peaks
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }

// peakResult is what the child reports: its peak and starting resident
// memory, the CPU a request took and the answers it gave; for a review,
// the messages handed back to the queue and the status each held email
// was released to.
type peakResult struct {
	Peak, Start int64
	CPU         time.Duration
	Answers     []events.APIGatewayProxyResponse
	Retried     int
	Released    []email.Status
}

// runPeakChild serves event in a fresh process of this test binary, as
// production runs it: no GOGC, GOMEMLIMIT or GODEBUG. held, if any, is the
// held email as the table stores it.
func runPeakChild(t testing.TB, name string, event, held []byte, sesURL string) peakResult {
	t.Helper()
	dir := t.TempDir()
	path, heldPath := filepath.Join(dir, "event.json"), filepath.Join(dir, "held.json.gz")
	if err := os.WriteFile(path, event, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(heldPath, held, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$", "-test.bench=^BenchmarkSendMemory$", "-test.benchtime=1x")
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GOGC", "GOMEMLIMIT", "GODEBUG":
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	cmd.Env = append(cmd.Env, peakCaseEnv+"="+name, "PEAK_EVENT="+path, "PEAK_HELD="+heldPath, "PEAK_SES_URL="+sesURL)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v\n%s\n%s", err, out, stderr.Bytes())
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), peakLine); ok {
			var r peakResult
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatal(err)
			}
			return r
		}
	}
	t.Fatalf("child reported no peak:\n%s\n%s", out, stderr.Bytes())
	return peakResult{}
}

// checkAnswers wants each round answered with c's status: for a batch,
// 200 with every item at c.status (a sent email, or its too-large
// refusal); for a review, the held email released as sent, nothing
// handed back to the queue.
func checkAnswers(t testing.TB, c peakCase, got peakResult) {
	t.Helper()
	if c.review {
		if got.Retried != 0 || len(got.Released) != rounds || slices.ContainsFunc(got.Released, func(s email.Status) bool { return s != email.StatusSent }) {
			t.Errorf("%s: released %v with %d messages retried; want %d released sent", c.name, got.Released, got.Retried, rounds)
		}
		return
	}
	answers := got.Answers
	if len(answers) != rounds {
		t.Fatalf("%d answers, want %d", len(answers), rounds)
	}
	for _, a := range answers {
		if c.route != routes.SendBatch {
			if a.StatusCode != c.status {
				t.Errorf("answered %d, want %d: %.300s", a.StatusCode, c.status, a.Body)
			}
			continue
		}
		var body struct {
			Data []struct {
				Success bool `json:"success"`
				Error   *struct {
					Code string `json:"code"`
				} `json:"error"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(a.Body), &body); err != nil || a.StatusCode != 200 || len(body.Data) != c.emails {
			t.Fatalf("batch answered %d (%v): %.300s", a.StatusCode, err, a.Body)
		}
		for i, it := range body.Data {
			refused := it.Error != nil && it.Error.Code == string(httpapi.CodeMessageTooLarge)
			if (c.status == 200 && !it.Success) || (c.status == 413 && !refused) {
				t.Errorf("%s: item %d answered success %v, error %+v; want status %d", c.name, i, it.Success, it.Error, c.status)
			}
		}
	}
}

// event is c's request as API Gateway hands it to the function, its
// attachments on files; for a review, the review queue's message as SQS
// hands it to the function, and the held email of the request as the
// table stores it (gzip'd JSON, its URL attachments not fetched).
func (c peakCase) event(t testing.TB, files *fileServer) (event, held []byte) {
	t.Helper()
	emails := c.requests(t, files)
	if c.review {
		return heldEvent(t, emails[0])
	}
	var body any = emails[0]
	if c.route == routes.SendBatch {
		body = map[string]any{"emails": emails}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(body); err != nil {
		t.Fatal(err)
	}
	if b.Len() > httpapi.MaxBodyBytes {
		t.Fatalf("%s: body of %d bytes, over the %d the API takes", c.name, b.Len(), httpapi.MaxBodyBytes)
	}
	ev, err := json.Marshal(events.APIGatewayProxyRequest{
		HTTPMethod: c.route.Method, Path: c.route.Path, Body: b.String(),
		Headers: map[string]string{"Authorization": "Bearer " + apikey.Generate(apikey.Live), "Content-Type": "application/json"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return ev, nil
}

// requests are c's emails, their attachments on files.
func (c peakCase) requests(t testing.TB, files *fileServer) []sending.Request {
	t.Helper()
	html := newsletter(c.html)
	fetched := c.fetched
	if fetched == 0 {
		fetched = fillFor(t, html)
	}
	var emails []sending.Request
	for e := range c.emails {
		req := sending.Request{To: fmt.Sprintf("reader%d@example.org", e), Subject: "Your quarterly report", HTML: html}
		for i := range c.files {
			size := fetched / c.files
			if i == 0 {
				size += fetched % c.files
			}
			req.Attachments = append(req.Attachments, attachment.Input{
				Filename: fmt.Sprintf("report-%d-%d.pdf", e, i), URL: new(files.serve(size)),
			})
		}
		emails = append(emails, req)
	}
	return emails
}

// fillFor is the attachment bytes that bring a message with html to just
// under the 20 MB it may reach encoded: base64 writes 57 bytes as a line
// of 78.
func fillFor(t testing.TB, html string) int {
	t.Helper()
	base, err := raw.Build(compose.Message{
		From: mail.Address{Address: "hello@demo.sesame.test"}, To: "reader0@example.org",
		Subject: "Your quarterly report", HTML: html, EmailID: "0190c0de-0000-7000-8000-000000000000",
	})
	if err != nil {
		t.Fatal(err)
	}
	room := sending.MaxMessageBytes - len(base) - 64<<10 // headers of the parts, tags
	return room / 78 * 57
}

// newsletter is about size bytes of html: paragraphs of text with links
// (their attributes unquoted, so JSON adds no escapes).
func newsletter(size int) string {
	var b strings.Builder
	b.WriteString("<html><body><h1>Quarterly report</h1>\n")
	for i := 0; b.Len() < size-200; i++ {
		fmt.Fprintf(&b, "<p>Item %d: the figures for this quarter are in, with notes on each region and a "+
			"<a href=https://reports.example.org/q/%d>link to the details</a>.</p>\n", i, i)
	}
	b.WriteString("</body></html>\n")
	return b.String()
}

// servePeakCase is the child's side: the send function of case name,
// built as its main builds it but for the table (a stand-in holding one
// workspace) and the attachment guard (told to allow the test's file
// server), serving the event rounds times. It prints its peak resident
// memory and its answers.
func servePeakCase(t testing.TB, name string) {
	var c peakCase
	for _, pc := range peakCases {
		if pc.name == name {
			c = pc
		}
	}
	if c.name == "" {
		t.Fatalf("no case %q", name)
	}
	if c.review {
		serveReviewCase(t, c)
		return
	}
	sesURL := os.Getenv("PEAK_SES_URL")
	awsCfg, sdk := peakAWS()
	logger := wire.NewLoggerTo(io.Discard, slog.LevelInfo)
	table, q := dynamo.Open(awsCfg, "sesame"), sqs.NewFromConfig(awsCfg)
	svc := send.Service(table, config.SES{ConfigSetFull: "full", ConfigSetEssential: "essential", ConfigSetOff: "off"},
		send.NewSES(awsCfg, sdk), &queue.Publisher{SQS: q, QueueURL: sesURL + "/review"},
		statusfeed.Processor(table, config.WebhooksQueue{WebhooksQueueURL: sesURL + "/webhooks"}, q, logger), logger)
	svc.Store = oneWorkspace{}
	svc.Attachments = fetch.New(fetch.Options{AllowedPrefixes: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}})
	h, err := wire.Route(logger, liveKey{}, c.route, sendinghttp.Handlers{Service: svc}.Routes())
	if err != nil {
		t.Fatal(err)
	}

	res := peakResult{Start: vmHWM(t)}
	cpu := cpuTime()
	for range rounds {
		a := invoke(t, h, os.Getenv("PEAK_EVENT"), c.sizing().Timeout)
		a.Body = a.Body[:min(len(a.Body), 64<<10)] // all the parent reads
		res.Answers = append(res.Answers, a)
	}
	reportPeak(t, res, cpu)
}

// peakAWS is the SDK configuration of a child: every call to the
// stand-in SES.
func peakAWS() (aws.Config, config.SDK) {
	sdk := config.SDK{}
	return wire.Bound(aws.Config{
		Region: "us-east-1", BaseEndpoint: aws.String(os.Getenv("PEAK_SES_URL")),
		Credentials: credentials.NewStaticCredentialsProvider("AKIDPEAK", "peak", ""),
	}, sdk), sdk
}

// serveReviewCase is the child's side of a review: the review function,
// built as reviewfn.Review builds it but for the table (a stand-in holding
// the held email, its layout pending) and the attachment guard, serving
// the review queue's message rounds times.
func serveReviewCase(t testing.TB, c peakCase) {
	awsCfg, sdk := peakAWS()
	logger := wire.NewLoggerTo(io.Discard, slog.LevelInfo)
	table, q := dynamo.Open(awsCfg, "sesame"), sqs.NewFromConfig(awsCfg)
	failures := statusfeed.Processor(table, config.WebhooksQueue{WebhooksQueueURL: os.Getenv("PEAK_SES_URL") + "/webhooks"}, q, logger)
	svc := send.Service(table, config.SES{ConfigSetFull: "full", ConfigSetEssential: "essential", ConfigSetOff: "off"}, send.NewSES(awsCfg, sdk), nil, failures, logger)
	svc.Attachments = fetch.New(fetch.Options{AllowedPrefixes: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}})
	store := &heldTable{path: os.Getenv("PEAK_HELD")}
	rv := reviewfn.Reviewer(table, svc)
	rv.Held, rv.Workspaces, rv.Suppressions = store, store, store
	h := queue.NewConsumer(rv.Handle)

	res := peakResult{Start: vmHWM(t)}
	cpu := cpuTime()
	for range rounds {
		res.Retried += len(invoke(t, h, os.Getenv("PEAK_EVENT"), c.sizing().Timeout).BatchItemFailures)
	}
	res.Released = store.released
	reportPeak(t, res, cpu)
}

// reportPeak prints res with the peak resident memory and the CPU each
// round took since cpu.
func reportPeak(t testing.TB, res peakResult, cpu time.Duration) {
	res.Peak = vmHWM(t)
	res.CPU = (cpuTime() - cpu) / rounds
	line, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(peakLine + string(line))
}

// invoke does what the Lambda runtime does with one event: reads it,
// decodes it, calls the handler within the function's timeout and
// encodes the answer.
func invoke[E, R any](t testing.TB, h func(context.Context, E) (R, error), path string, timeout time.Duration) R {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ev E
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	res, err := h(ctx, ev)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := json.Marshal(res); err != nil {
		t.Fatal(err)
	}
	return res
}

// vmHWM is this process's peak resident set since it started, as the
// kernel counts it: every page the process touched and held at once,
// heap, stacks and binary alike (the runtime's own figures miss pages it
// returned, and sampling misses spikes).
func vmHWM(t testing.TB) int64 {
	t.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/self/status")
	return 0
}
