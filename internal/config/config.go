// Package config is the typed environment configuration of Sesame's
// functions and tools: one struct per kind of function, composed of the
// small structs of what it uses, and the console's.
package config

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"net/url"
	"reflect"
	"strings"
	"time"

	"github.com/sethvargo/go-envconfig"
)

// Each Lambda function reads its own config struct (Public, Read, List,
// Send, Review, Status, Dispatch below), composed by embedding the small
// structs of what it uses. LoadFunction refuses a config whose required
// variable is unset or empty, naming it.

// Logging is what every function reads.
type Logging struct {
	// LogLevel is debug, info, warn or error.
	LogLevel slog.Level `env:"LOG_LEVEL, default=info"`
}

// Level is the function's log level.
func (l Logging) Level() slog.Level { return l.LogLevel }

// DynamoDB names the table of a function that reads or writes it.
type DynamoDB struct {
	Table string `env:"SESAME_TABLE, required"`
}

// Paging is the secret that signs a list route's cursors.
type Paging struct {
	CursorSecret string `env:"SESAME_CURSOR_SECRET, required"`
}

// Unsubscribing is the secret that signs unsubscribe links
// (internal/unsubscribe). A secret of its own, not the cursor secret:
// rotating it breaks every link already sent, which a cursor rotation
// must not do.
type Unsubscribing struct {
	UnsubscribeSecret string `env:"SESAME_UNSUBSCRIBE_SECRET, required"`
}

// SES are the configuration sets of a function that sends email, one per
// open-tracking mode.
type SES struct {
	ConfigSetFull      string `env:"SESAME_CONFIG_SET_FULL, required"`
	ConfigSetEssential string `env:"SESAME_CONFIG_SET_ESSENTIAL, required"`
	ConfigSetOff       string `env:"SESAME_CONFIG_SET_OFF, required"`
}

// ReviewQueue is the queue of held emails awaiting the security review.
type ReviewQueue struct {
	ReviewQueueURL string `env:"SESAME_REVIEW_QUEUE_URL, required"`
}

// WebhooksQueue is the queue of webhook deliveries: the fan-out sends to
// it, the dispatcher schedules retries on it.
type WebhooksQueue struct {
	WebhooksQueueURL string `env:"SESAME_WEBHOOKS_QUEUE_URL, required"`
}

// Delivery tunes webhook POSTs.
type Delivery struct {
	// WebhookTimeout bounds one delivery POST; 0 means 10 s.
	WebhookTimeout time.Duration `env:"SESAME_WEBHOOK_TIMEOUT"`
	// WebhookAllowedPrefixes lets webhook deliveries reach these networks
	// despite the SSRF guard. The local stack allows loopback; production
	// never sets it.
	WebhookAllowedPrefixes []netip.Prefix `env:"SESAME_WEBHOOK_ALLOWED_PREFIXES"`
}

// SDK bounds every AWS SDK call of a function: a service that stalls is
// a fault answered in time (503 with Retry-After on a route, a retried
// message on a queue), never a request held until API Gateway gives up at
// 29 s or the function is ended. A zero field means its default.
type SDK struct {
	// ConnectTimeout bounds dialing and the TLS handshake; default 1 s.
	ConnectTimeout time.Duration `env:"SESAME_AWS_CONNECT_TIMEOUT"`
	// AttemptTimeout bounds the wait for an answer once a request is
	// written; the SDK retries an attempt that runs out. Default 3 s.
	AttemptTimeout time.Duration `env:"SESAME_AWS_ATTEMPT_TIMEOUT"`
	// CallTimeout bounds one SDK call, its retries included; default 6 s,
	// under the 10 s of the shortest function timeout (infra).
	CallTimeout time.Duration `env:"SESAME_AWS_CALL_TIMEOUT"`
	// SESCallTimeout bounds an SES call and its wait for an answer; a
	// raw send of up to 40 MB must not be cut short, and the send
	// handler's deadline margin still answers in time. Default 12 s.
	SESCallTimeout time.Duration `env:"SESAME_SES_CALL_TIMEOUT"`
}

// The SDK bounds' defaults.
const (
	DefaultConnectTimeout = 1 * time.Second
	DefaultAttemptTimeout = 3 * time.Second
	DefaultCallTimeout    = 6 * time.Second
	DefaultSESCallTimeout = 12 * time.Second
)

// SDKBounds is s with each zero field set to its default.
func (s SDK) SDKBounds() SDK {
	or := func(d, def time.Duration) time.Duration {
		if d <= 0 {
			return def
		}
		return d
	}
	return SDK{
		ConnectTimeout: or(s.ConnectTimeout, DefaultConnectTimeout),
		AttemptTimeout: or(s.AttemptTimeout, DefaultAttemptTimeout),
		CallTimeout:    or(s.CallTimeout, DefaultCallTimeout),
		SESCallTimeout: or(s.SESCallTimeout, DefaultSESCallTimeout),
	}
}

// Public configures a route served without a key that reads nothing
// (get-openapi).
type Public struct {
	Logging
}

// Read configures a read route that does not page (get-email,
// list-clicks, get-metrics): the key lookup and its repository.
type Read struct {
	Logging
	SDK
	DynamoDB
}

// List configures a read route that pages (list-emails, list-events,
// list-domains).
type List struct {
	Read
	Paging
}

// Send configures POST /send and /send/batch: held email goes to the
// review queue, the rest to SES; a failure is fanned out to webhooks.
type Send struct {
	Logging
	SDK
	DynamoDB
	SES
	ReviewQueue
	WebhooksQueue
}

// Review configures the review consumer: it sends what it clears and
// fans out the failure of what it does not.
type Review struct {
	Logging
	SDK
	DynamoDB
	SES
	WebhooksQueue
}

// Status configures the status consumer, whose events fan out to webhooks.
type Status struct {
	Logging
	SDK
	DynamoDB
	WebhooksQueue
}

// Dispatch configures the webhook-dispatch consumer: retries are
// scheduled on its own queue.
type Dispatch struct {
	Logging
	SDK
	DynamoDB
	WebhooksQueue
	Delivery
}

// Unsubscribe configures the unsubscribe pages (GET and POST
// /unsubscribe/{token}): the secret that checks their token and the table
// they write the contact's subscription or the suppression to.
type Unsubscribe struct {
	Logging
	SDK
	DynamoDB
	Unsubscribing
}

// SendsQueue is the queue of campaign chunks: the starter and the tick
// fill it, the campaign sender continues a chunk on it.
type SendsQueue struct {
	SendsQueueURL string `env:"SESAME_SENDS_QUEUE_URL, required"`
}

// AutomationsQueue is the queue of automation runs' wake-ups: the event
// route and the tick fill it, the runner consumes it and wakes itself
// again after a short wait.
type AutomationsQueue struct {
	AutomationsQueueURL string `env:"SESAME_AUTOMATIONS_QUEUE_URL, required"`
}

// PublicURL is where recipients reach the stack (the API stage, or a
// custom domain): campaign emails' unsubscribe links are built on it.
type PublicURL struct {
	PublicURL string `env:"SESAME_PUBLIC_URL, required"`
}

// checkPublicURL refuses a public URL that is not https: RFC 8058 wants
// a one-click unsubscribe link over https. The local stack alone serves
// http, and only ever on a loopback host, so that is what it may use; a
// deployed function refuses to start rather than send links that mail
// providers ignore.
func (p PublicURL) checkPublicURL() error {
	u, err := url.Parse(p.PublicURL)
	switch {
	case err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "":
		return errors.New("not an absolute URL without credentials, query or fragment")
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && loopbackHost(u.Hostname()):
		return nil
	}
	return fmt.Errorf("%s URL: must be https (http only on a loopback host, for the local stack)", u.Scheme)
}

// loopbackHost reports whether host is localhost or a loopback address.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// publicURLChecked is a config with a PublicURL (promoted from it).
type publicURLChecked interface{ checkPublicURL() error }

// Pacing shares the SES maximum send rate among senders (capacity):
// campaigns and automations together take at most BulkShare of it, the
// rest is transactional email's headroom; AutomationShare of it is kept
// for automations when they want it. A zero share is its default
// (DefaultShares: 0.8 and 0.2). MaxSendRate zero reads the SES
// account's rate (GetAccount); a value overrides it (the local stack's).
type Pacing struct {
	MaxSendRate     float64 `env:"SESAME_MAX_SEND_RATE"`
	BulkShare       float64 `env:"SESAME_BULK_SHARE"`
	AutomationShare float64 `env:"SESAME_AUTOMATION_SHARE"`
}

// Shares are parts of the SES rate: the fields of capacity.Shares, which
// the wiring converts them to, so that config (linked by every function)
// does not link the pacer.
type Shares struct {
	Bulk       float64
	Automation float64
}

// DefaultShares are the shares of an unset variable: the pacer's
// capacity.DefaultShares (TestDefaultSharesAreThePacers holds them equal).
var DefaultShares = Shares{Bulk: 0.8, Automation: 0.2}

// Shares are the configured shares, each unset one at its default.
func (p Pacing) Shares() Shares {
	s := DefaultShares
	if p.BulkShare != 0 {
		s.Bulk = p.BulkShare
	}
	if p.AutomationShare != 0 {
		s.Automation = p.AutomationShare
	}
	return s
}

// checkShares refuses shares that are not parts of the rate, or an
// automation share larger than the bulk share it lies within.
func (p Pacing) checkShares() error {
	s := p.Shares()
	switch {
	case s.Bulk <= 0 || s.Bulk > 1:
		return fmt.Errorf("SESAME_BULK_SHARE %v: must be above 0 and at most 1", p.BulkShare)
	case s.Automation < 0 || s.Automation > s.Bulk:
		return fmt.Errorf("SESAME_AUTOMATION_SHARE %v: must be above 0 and at most the bulk share (%v)", s.Automation, s.Bulk)
	}
	return nil
}

// sharesChecked is a config with Pacing (promoted from it).
type sharesChecked interface{ checkShares() error }

// Breaker tunes the reputation circuit breaker; zero fields take the
// defaults of engine.DefaultThresholds (4 %, 0.08 %, 500 sends, 24 h).
type Breaker struct {
	BreakerBounceRate    float64       `env:"SESAME_BREAKER_BOUNCE_RATE"`
	BreakerComplaintRate float64       `env:"SESAME_BREAKER_COMPLAINT_RATE"`
	BreakerMinSample     int           `env:"SESAME_BREAKER_MIN_SAMPLE"`
	BreakerWindow        time.Duration `env:"SESAME_BREAKER_WINDOW"`
}

// CampaignSender configures the sends consumer: campaign emails through
// SES with their unsubscribe links, a refusal fanned out to webhooks.
type CampaignSender struct {
	Logging
	SDK
	DynamoDB
	SES
	WebhooksQueue
	SendsQueue
	Unsubscribing
	PublicURL
	Pacing
	Breaker
}

// CampaignTick configures the one-minute tick that starts scheduled
// campaigns.
type CampaignTick struct {
	Logging
	SDK
	DynamoDB
	SendsQueue
}

// AutomationRunner configures the automations consumer: automation
// emails through SES with their unsubscribe links, a refusal fanned out
// to webhooks, short waits as delayed wake-ups on its own queue.
type AutomationRunner struct {
	Logging
	SDK
	DynamoDB
	SES
	WebhooksQueue
	AutomationsQueue
	Unsubscribing
	PublicURL
	Pacing
}

// AutomationTick configures the one-minute tick that wakes the runs
// whose long wait ended.
type AutomationTick struct {
	Logging
	SDK
	DynamoDB
	AutomationsQueue
	// ReviewQueue takes the scheduled emails that are due.
	ReviewQueue
}

// AutomationEvents configures POST /automations/events: runs started in
// the table, their first wake-up on the automations queue.
type AutomationEvents struct {
	Logging
	SDK
	DynamoDB
	AutomationsQueue
}

// DashboardSecret signs the dashboard's session cookies and CSRF tokens
// (internal/signin): a secret of its own, so rotating it signs every owner
// out and nothing else.
type DashboardSecret struct {
	DashboardSecret string `env:"SESAME_DASHBOARD_SECRET, required"`
}

// DashboardMail is the From address of the dashboard's sign-in emails, an
// address of a domain verified in SES. Empty: sign-in links cannot be
// sent, and asking for one is logged as the fault it is.
type DashboardMail struct {
	DashboardFrom string `env:"SESAME_DASHBOARD_FROM"`
}

// Dashboard configures the owner's dashboard (ANY /dashboard/…): the owner
// service over the table and queues, sign-in mail through SES, links on
// the public URL.
type Dashboard struct {
	Logging
	SDK
	DynamoDB
	PublicURL
	DashboardSecret
	DashboardMail
	// The owner's verdicts on held email go to the review queue, approved
	// campaigns to the sends queue (as the console's).
	ReviewQueue
	SendsQueue
}

// OAuth configures the authorization server (ANY /oauth/…, its
// well-known metadata): the table, and the public URL it names as issuer.
type OAuth struct {
	Logging
	SDK
	DynamoDB
	PublicURL
}

// MCP configures the MCP endpoint (ANY /mcp): its tools are the /api/v1
// routes called in-process, so it reads what those routes read (the send
// routes' and POST /automations/events').
type MCP struct {
	Logging
	SDK
	DynamoDB
	Paging
	SES
	ReviewQueue
	WebhooksQueue
	AutomationsQueue
}

// API is c as the settings of every function at once (NewDeps's), those
// the MCP endpoint does not use left empty.
func (c MCP) API() API {
	return API{
		LogLevel: c.LogLevel, DynamoDB: c.DynamoDB, Paging: c.Paging, SES: c.SES,
		ReviewQueue: c.ReviewQueue, WebhooksQueue: c.WebhooksQueue, AutomationsQueue: c.AutomationsQueue,
	}
}

// Function is what every function's config has.
type Function interface {
	Level() slog.Level
}

// API is every function's settings at once, for the processes that serve
// every route and queue (`sesame dev`, tests), which set it in code. A
// Lambda function reads its own config from the environment instead. It
// is made of the same small structs, which NewDeps hands to each
// function's builders as they are.
type API struct {
	LogLevel slog.Level
	DynamoDB
	Paging
	SES
	ReviewQueue
	WebhooksQueue
	Delivery
	Unsubscribing
	SendsQueue
	AutomationsQueue
	// PublicURL is where recipients reach the stack (the dev server's
	// URL): unsubscribe links are built on it.
	PublicURL
	// Pacing and Breaker tune the campaign sender (see CampaignSender).
	Pacing
	Breaker
	// DashboardSecret and DashboardMail configure the dashboard.
	DashboardSecret
	DashboardMail
}

// Console configures the operator console (cmd/sesame). Each variable
// has a flag of the same meaning, and a flag given wins.
type Console struct {
	// Table is the stack's DynamoDB table (its TableName output). No
	// default: a guessed name would act on the wrong table. `sesame dev`
	// names its own.
	Table string `env:"SESAME_TABLE"`
	// Region is the AWS region; empty leaves it to the AWS profile.
	Region string `env:"AWS_REGION"`
	// WorkspaceID is the workspace of the commands that act on one.
	WorkspaceID string `env:"SESAME_WORKSPACE_ID"`
	// ReviewQueueURL is where held clear/deny queue the owner's verdict:
	// the review function releases held email (stack output ReviewQueueUrl).
	ReviewQueueURL string `env:"SESAME_REVIEW_QUEUE_URL"`
	// SendsQueueURL is where an approval puts a campaign's chunks for the
	// campaign sender (stack output SendsQueueUrl); empty: approvals are
	// recorded but not started.
	SendsQueueURL string `env:"SESAME_SENDS_QUEUE_URL"`
	// ConfigSetFull is the SES configuration set a new domain identity
	// uses by default.
	ConfigSetFull string `env:"SESAME_CONFIG_SET_FULL"`
}

// ErrNoTable is the console's answer to a command that needs the table
// when none is named.
var ErrNoTable = errors.New("no table: set SESAME_TABLE or pass --table (the stack's TableName output)")

// RequireTable returns the table, or ErrNoTable.
func (c Console) RequireTable() (string, error) {
	if c.Table == "" {
		return "", ErrNoTable
	}
	return c.Table, nil
}

// LoadOverriding fills cfg from the process environment, except that a
// variable named in overrides takes that value instead (the console's
// flags, keyed by the variable each stands for).
func LoadOverriding(ctx context.Context, overrides map[string]string, cfg any) error {
	return loadOverriding(ctx, overrides, envconfig.OsLookuper(), cfg)
}

func loadOverriding(ctx context.Context, overrides map[string]string, env envconfig.Lookuper, cfg any) error {
	return loadFrom(ctx, envconfig.MultiLookuper(envconfig.MapLookuper(overrides), env), cfg)
}

// loadFrom fills cfg from l.
func loadFrom(ctx context.Context, l envconfig.Lookuper, cfg any) error {
	if err := envconfig.ProcessWith(ctx, &envconfig.Config{Target: cfg, Lookuper: l}); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return nil
}

// Var is an environment variable a config reads.
type Var struct {
	Name     string
	Required bool
	// field is the Go path to it, as envconfig's errors name it
	// ("Logging: LogLevel").
	field string
}

// Vars lists the variables cfg (a config struct, or a pointer to one)
// reads, through its embedded structs, in field order.
func Vars(cfg any) []Var {
	t := reflect.TypeOf(cfg)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return vars(t, "")
}

func vars(t reflect.Type, path string) []Var {
	var out []Var
	for i := range t.NumField() {
		f := t.Field(i)
		tag, ok := f.Tag.Lookup("env")
		if !ok {
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				out = append(out, vars(f.Type, path+f.Name+": ")...)
			}
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		v := Var{Name: strings.TrimSpace(name), field: path + f.Name}
		for o := range strings.SplitSeq(opts, ",") {
			v.Required = v.Required || strings.TrimSpace(o) == "required"
		}
		out = append(out, v)
	}
	return out
}

// LoadFunction fills cfg, the config of the function named function, from
// l. A required variable that is unset or empty is refused by name, so a
// function that lacks one says which and does not start; so is a value
// that does not parse.
func LoadFunction(ctx context.Context, function string, l envconfig.Lookuper, cfg any) error {
	vs := Vars(cfg)
	var missing []string
	for _, v := range vs {
		if val, ok := l.Lookup(v.Name); v.Required && (!ok || val == "") {
			missing = append(missing, v.Name)
		}
	}
	switch len(missing) {
	case 0:
	case 1:
		return fmt.Errorf("config: %s is required by %s", missing[0], function)
	default:
		return fmt.Errorf("config: %s are required by %s", strings.Join(missing, ", "), function)
	}
	err := envconfig.ProcessWith(ctx, &envconfig.Config{Target: cfg, Lookuper: l})
	if err == nil {
		if c, ok := cfg.(publicURLChecked); ok {
			if err := c.checkPublicURL(); err != nil {
				return fmt.Errorf("config: SESAME_PUBLIC_URL of %s: %w", function, err)
			}
		}
		if c, ok := cfg.(sharesChecked); ok {
			if err := c.checkShares(); err != nil {
				return fmt.Errorf("config of %s: %w", function, err)
			}
		}
		return nil
	}
	// envconfig names the Go field; the operator sets the variable.
	for _, v := range vs {
		if rest, ok := strings.CutPrefix(err.Error(), v.field+": "); ok {
			return fmt.Errorf("config: %s of %s: %s", v.Name, function, rest)
		}
	}
	return fmt.Errorf("config of %s: %w", function, err)
}
