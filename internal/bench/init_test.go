package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/sethvargo/go-envconfig"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/api/sdk"
	"github.com/sesame-mail/sesame/internal/config"
)

// DESIGN's init budget: a function starts in at most 1.2× the time of a
// binary that only builds the SDK clients it uses.
const initBudget = 1.2

// starts is how many times each binary is started, alternating with its
// baseline so both see the same load. The median is compared with the
// budget; the lower quartile, less disturbed by whatever else the machine
// runs, is shown beside it.
const starts = 61

// sdkClients are the SDK clients a function may build, by the service
// package that a binary building one links.
var sdkClients = []struct {
	name, pkg string
	build     func(aws.Config) any
}{
	{"dynamodb", "github.com/aws/aws-sdk-go-v2/service/dynamodb", func(c aws.Config) any { return dynamodb.NewFromConfig(c) }},
	{"sqs", "github.com/aws/aws-sdk-go-v2/service/sqs", func(c aws.Config) any { return sqs.NewFromConfig(c) }},
	{"sesv2", "github.com/aws/aws-sdk-go-v2/service/sesv2", func(c aws.Config) any { return sesv2.NewFromConfig(c) }},
}

// initResult is what BenchmarkInit measured of one function.
type initResult struct {
	function string
	clients  []string
	// Process start to lambda.Start (which, outside Lambda, exits at
	// once), median and lower quartile of starts: the function and its
	// baseline.
	start, baseStart time.Duration
	q1Start, q1Base  time.Duration
	// Package initialization (GODEBUG=inittrace=1): allocations, which
	// unlike times do not vary between runs.
	initAllocs, baseInitAllocs int
	// In process, from a loaded SDK configuration: config, clients,
	// services and handler, against the clients alone.
	wiring, baseWiring time.Duration
}

var initResults struct {
	sync.Mutex
	all []initResult
}

// BenchmarkInit measures each function's start against a baseline binary
// that only loads the AWS configuration and builds the SDK clients the
// function links (internal/bench/testdata/baseline), both built as `make
// build` builds them (for this machine). It fails if a start makes a
// network call or does not reach lambda.Start; the times are reported,
// not held (see initReport).
func BenchmarkInit(b *testing.B) {
	bins := buildBinaries(b)
	trap := newTrap(b)
	for _, f := range api.Functions {
		fn := f.FunctionName()
		b.Run(fn, func(b *testing.B) {
			clients := bins.clients[fn]
			env := append(trap.env(), "LOG_LEVEL=info")
			cfg := map[string]string{"LOG_LEVEL": "info"}
			for _, v := range config.Vars(f.Config()) {
				if v.Required {
					env = append(env, v.Name+"="+requiredValue(v.Name))
					cfg[v.Name] = requiredValue(v.Name)
				}
			}
			bin, base := filepath.Join(bins.dir, fn), bins.baseline(b, clients)
			// The binary runs this function's wiring: without a config it
			// refuses to start, naming the function.
			if out := run(b, bin, append(trap.env(), "LOG_LEVEL=loud")); !strings.Contains(out, "function="+fn+" ") {
				b.Fatalf("functions/%s does not start as %s:\n%s", fn, fn, out)
			}
			r := initResult{function: fn, clients: clients}
			var fnTimes, baseTimes []time.Duration
			for range starts {
				fnTimes = append(fnTimes, timedStart(b, bin, env))
				baseTimes = append(baseTimes, timedStart(b, base, trap.env()))
			}
			r.start, r.baseStart = quantile(fnTimes, 0.5), quantile(baseTimes, 0.5)
			r.q1Start, r.q1Base = quantile(fnTimes, 0.25), quantile(baseTimes, 0.25)
			r.initAllocs = initAllocs(b, bin, env)
			r.baseInitAllocs = initAllocs(b, base, trap.env())
			if n := trap.calls.Load(); n > 0 {
				b.Fatalf("%d network connections while starting", n)
			}

			// In process, the SDK configuration loaded once: what main
			// builds against the clients alone.
			awsCfg, err := sdk.Load(b.Context())
			if err != nil {
				b.Fatal(err)
			}
			wired := f.WithAWS(func(context.Context) (aws.Config, error) { return awsCfg, nil })
			var wiring, baseWiring time.Duration
			for b.Loop() {
				start := time.Now()
				if _, err := wired.Handler(b.Context(), envconfig.MapLookuper(cfg)); err != nil {
					b.Fatal(err)
				}
				mid := time.Now()
				for _, s := range sdkClients {
					if slices.Contains(clients, s.name) {
						s.build(awsCfg)
					}
				}
				wiring += mid.Sub(start)
				baseWiring += time.Since(mid)
			}
			r.wiring, r.baseWiring = wiring/time.Duration(b.N), baseWiring/time.Duration(b.N)

			b.ReportMetric(ms(r.start), "start-ms")
			b.ReportMetric(ms(r.baseStart), "baseline-start-ms")
			b.ReportMetric(float64(r.start)/float64(r.baseStart), "start-ratio")
			b.ReportMetric(float64(r.initAllocs), "init-allocs")
			b.ReportMetric(us(r.wiring), "wiring-µs")
			b.ReportMetric(us(r.baseWiring), "clients-µs")
			initResults.Lock()
			initResults.all = append(initResults.all, r)
			initResults.Unlock()
		})
	}
}

// requiredValue is what a start gets for a required variable: a URL
// where one is read (a function refuses a public URL that is not
// absolute), a placeholder otherwise.
func requiredValue(name string) string {
	if strings.HasSuffix(name, "_URL") {
		return "https://bench.example/" + strings.ToLower(name)
	}
	return "bench"
}

// binaries are the functions and baselines, built once.
type binaries struct {
	dir string
	// clients are the SDK clients each function links, by function.
	clients map[string][]string
	mu      sync.Mutex
	bases   map[string]string // by clients
}

var (
	binsOnce sync.Once
	bins     *binaries
	binsErr  error
)

func buildBinaries(b *testing.B) *binaries {
	binsOnce.Do(func() { bins, binsErr = doBuild() })
	if binsErr != nil {
		b.Fatal(binsErr)
	}
	return bins
}

// root is the repository root.
const root = "../.."

func doBuild() (*binaries, error) {
	dir, err := os.MkdirTemp("", "sesame-bench-init-")
	if err != nil {
		return nil, err
	}
	if err := goBuild(dir+string(filepath.Separator), "", "./functions/..."); err != nil {
		return nil, err
	}
	bs := &binaries{dir: dir, clients: map[string][]string{}, bases: map[string]string{}}
	for _, f := range api.Functions {
		cmd := exec.Command("go", "list", "-tags", "lambda.norpc", "-deps", "./functions/"+f.FunctionName())
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("go list: %w", err)
		}
		deps := strings.Fields(string(out))
		for _, s := range sdkClients {
			if slices.Contains(deps, s.pkg) {
				bs.clients[f.FunctionName()] = append(bs.clients[f.FunctionName()], s.name)
			}
		}
	}
	return bs, nil
}

// removeBinaries deletes what buildBinaries built.
func removeBinaries() {
	if bins != nil {
		os.RemoveAll(bins.dir)
	}
}

// baseline is the baseline binary that builds clients, built on first use.
func (bs *binaries) baseline(b *testing.B, clients []string) string {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	key := strings.Join(clients, "+")
	if p, ok := bs.bases[key]; ok {
		return p
	}
	var tags []string
	for _, c := range clients {
		tags = append(tags, "baseline_"+c)
	}
	p := filepath.Join(bs.dir, "baseline-"+key)
	if err := goBuild(p, strings.Join(tags, ","), "./internal/bench/testdata/baseline"); err != nil {
		b.Fatal(err)
	}
	bs.bases[key] = p
	return p
}

// goBuild builds as `make build` does, for this machine.
func goBuild(out, tags, pkg string) error {
	cmd := exec.Command("go", "build", "-tags", strings.Trim("lambda.norpc,"+tags, ","), "-trimpath", "-ldflags", "-s -w", "-o", out, pkg)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
	}
	return nil
}

// run starts bin with env alone and returns what it wrote.
func run(b *testing.B, bin string, env []string) string {
	cmd := exec.Command(bin)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err == nil {
		b.Fatalf("%s: exited without error outside Lambda", bin)
	}
	return string(out)
}

// timedStart is the time bin takes from exec to its exit at lambda.Start,
// which, with no Lambda runtime to reach, fails at once.
func timedStart(b *testing.B, bin string, env []string) time.Duration {
	start := time.Now()
	out := run(b, bin, env)
	d := time.Since(start)
	if !strings.Contains(out, "expected AWS Lambda environment variables") {
		b.Fatalf("%s did not reach lambda.Start:\n%s", bin, out)
	}
	return d
}

// initAllocs sums the allocations of bin's package initialization.
func initAllocs(b *testing.B, bin string, env []string) int {
	out := run(b, bin, append(env, "GODEBUG=inittrace=1"))
	total := 0
	for line := range strings.Lines(out) {
		// init <pkg> @… ms, … ms clock, N bytes, M allocs
		f := strings.Fields(line)
		if len(f) == 11 && f[0] == "init" && f[10] == "allocs" {
			n, err := strconv.Atoi(f[9])
			if err != nil {
				b.Fatalf("inittrace line %q", line)
			}
			total += n
		}
	}
	if total == 0 {
		b.Fatalf("%s: no inittrace output", bin)
	}
	return total
}

// trap listens where every AWS call of a start would go, and counts them.
type trap struct {
	url   string
	home  string
	calls atomic.Int32
}

func newTrap(b *testing.B) *trap {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	t := &trap{url: "http://" + ln.Addr().String(), home: b.TempDir()}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.calls.Add(1)
			c.Close()
		}
	}()
	return t
}

// env is a start's environment: a region, static credentials, and every
// endpoint (the instance metadata too) at the trap; no shared AWS files.
func (t *trap) env() []string {
	return []string{
		"HOME=" + t.home, "AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=bench", "AWS_SECRET_ACCESS_KEY=bench",
		"AWS_ENDPOINT_URL=" + t.url, "AWS_EC2_METADATA_SERVICE_ENDPOINT=" + t.url,
	}
}

// quantile is the q-quantile of d (0.5: the median).
func quantile(d []time.Duration, q float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[int(float64(len(s)-1)*q)]
}

// initReport writes what BenchmarkInit measured, by function.
func initReport(w io.Writer) {
	initResults.Lock()
	defer initResults.Unlock()
	if len(initResults.all) == 0 {
		return
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "\nFunction init: each binary started %d times (exec to lambda.Start; median, then lower quartile)\n", starts)
	fmt.Fprintf(&b, "against a binary that only builds the same SDK clients; budget %.1f×. Package-init allocations do not vary\n", initBudget)
	fmt.Fprintf(&b, "between runs; wiring is main's work in process after loading the SDK configuration (config,\n")
	fmt.Fprintf(&b, "clients, services, handler), against building the same clients alone.\n")
	fmt.Fprintf(&b, "  %-17s %-19s %9s %9s %6s %8s   %-20s %s\n", "function", "SDK clients", "start ms", "base ms", "ratio", "q1", "init allocs (ratio)", "wiring µs (base)")
	for _, r := range initResults.all {
		ratio := float64(r.start) / float64(r.baseStart)
		flag := ""
		if ratio > initBudget {
			flag = "  over budget"
		}
		clients := strings.Join(r.clients, "+")
		if clients == "" {
			clients = "none"
		}
		fmt.Fprintf(&b, "  %-17s %-19s %9.2f %9.2f %5.2f× %7.2f×   %6d (%4.2f×)        %6.1f (%.1f)%s\n", r.function, clients,
			ms(r.start), ms(r.baseStart), ratio, float64(r.q1Start)/float64(r.q1Base),
			r.initAllocs, float64(r.initAllocs)/float64(r.baseInitAllocs), us(r.wiring), us(r.baseWiring), flag)
	}
	_, _ = w.Write(b.Bytes())
}
