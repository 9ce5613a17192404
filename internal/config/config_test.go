package config

import (
	"errors"
	"log/slog"
	"maps"
	"net/netip"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sethvargo/go-envconfig"

	"github.com/sesame-mail/sesame/internal/sending/capacity"
)

func TestLoadConsole(t *testing.T) {
	stack := map[string]string{
		"SESAME_TABLE": "sesame-Table1", "AWS_REGION": "eu-west-1", "SESAME_WORKSPACE_ID": "ws-env",
		"SESAME_REVIEW_QUEUE_URL": "https://sqs/review", "SESAME_CONFIG_SET_FULL": "sesame-full",
	}
	fromStack := Console{Table: "sesame-Table1", Region: "eu-west-1", WorkspaceID: "ws-env",
		ReviewQueueURL: "https://sqs/review", ConfigSetFull: "sesame-full"}
	cases := map[string]struct {
		env, flags map[string]string
		want       Console
		wantErr    error // of RequireTable
	}{
		"all from the environment": {env: stack, want: fromStack},
		"flags win over the environment": {
			env:   stack,
			flags: map[string]string{"SESAME_TABLE": "other", "AWS_REGION": "us-east-1", "SESAME_WORKSPACE_ID": "ws-flag"},
			want: Console{Table: "other", Region: "us-east-1", WorkspaceID: "ws-flag",
				ReviewQueueURL: "https://sqs/review", ConfigSetFull: "sesame-full"},
		},
		"a flag given empty empties the variable": {
			env: stack, flags: map[string]string{"SESAME_WORKSPACE_ID": ""},
			want: Console{Table: "sesame-Table1", Region: "eu-west-1", ReviewQueueURL: "https://sqs/review", ConfigSetFull: "sesame-full"},
		},
		"table from the flag alone": {flags: map[string]string{"SESAME_TABLE": "t"}, want: Console{Table: "t"}},
		// No default table: a guessed name would act on the wrong one.
		"nothing set":       {want: Console{}, wantErr: ErrNoTable},
		"table set empty":   {env: map[string]string{"SESAME_TABLE": ""}, want: Console{}, wantErr: ErrNoTable},
		"table flag empty":  {env: stack, flags: map[string]string{"SESAME_TABLE": ""}, want: func() Console { c := fromStack; c.Table = ""; return c }(), wantErr: ErrNoTable},
		"API settings only": {env: map[string]string{"SESAME_CURSOR_SECRET": "s", "LOG_LEVEL": "debug"}, want: Console{}, wantErr: ErrNoTable},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got Console
			if err := loadOverriding(t.Context(), tc.flags, envconfig.MapLookuper(tc.env), &got); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			table, err := got.RequireTable()
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("RequireTable err = %v, want %v", err, tc.wantErr)
			}
			if err == nil && table != tc.want.Table {
				t.Errorf("RequireTable = %q, want %q", table, tc.want.Table)
			}
		})
	}
	// The error says what to set.
	if _, err := (Console{}).RequireTable(); !strings.Contains(err.Error(), "SESAME_TABLE") || !strings.Contains(err.Error(), "--table") {
		t.Errorf("no-table error %q does not name SESAME_TABLE and --table", err)
	}
}

// Each function's config: what the full environment gives it, the
// variables it requires, and a refusal naming each one unset or empty.
func TestLoadFunction(t *testing.T) {
	full := map[string]string{
		"LOG_LEVEL": "debug", "SESAME_TABLE": "t", "SESAME_CURSOR_SECRET": "s",
		"SESAME_CONFIG_SET_FULL": "full", "SESAME_CONFIG_SET_ESSENTIAL": "essential", "SESAME_CONFIG_SET_OFF": "off",
		"SESAME_REVIEW_QUEUE_URL": "https://sqs/review", "SESAME_WEBHOOKS_QUEUE_URL": "https://sqs/webhooks",
		"SESAME_WEBHOOK_TIMEOUT": "5s", "SESAME_WEBHOOK_ALLOWED_PREFIXES": "127.0.0.2/32",
		"SESAME_AWS_CONNECT_TIMEOUT": "100ms", "SESAME_AWS_ATTEMPT_TIMEOUT": "200ms", "SESAME_AWS_CALL_TIMEOUT": "500ms",
		"SESAME_UNSUBSCRIBE_SECRET": "u",
	}
	logging := Logging{LogLevel: slog.LevelDebug}
	table := DynamoDB{Table: "t"}
	bounds := SDK{ConnectTimeout: 100 * time.Millisecond, AttemptTimeout: 200 * time.Millisecond, CallTimeout: 500 * time.Millisecond}
	sets := SES{ConfigSetFull: "full", ConfigSetEssential: "essential", ConfigSetOff: "off"}
	webhooks := WebhooksQueue{WebhooksQueueURL: "https://sqs/webhooks"}
	cases := map[string]struct {
		want     Function
		required []string
	}{
		"get-openapi": {want: &Public{logging}},
		"get-email": {
			want:     &Read{logging, bounds, table},
			required: []string{"SESAME_TABLE"},
		},
		"list-emails": {
			want:     &List{Read{logging, bounds, table}, Paging{CursorSecret: "s"}},
			required: []string{"SESAME_TABLE", "SESAME_CURSOR_SECRET"},
		},
		"send": {
			want: &Send{logging, bounds, table, sets, ReviewQueue{ReviewQueueURL: "https://sqs/review"}, webhooks},
			required: []string{"SESAME_TABLE", "SESAME_CONFIG_SET_FULL", "SESAME_CONFIG_SET_ESSENTIAL", "SESAME_CONFIG_SET_OFF",
				"SESAME_REVIEW_QUEUE_URL", "SESAME_WEBHOOKS_QUEUE_URL"},
		},
		"review": {
			want: &Review{logging, bounds, table, sets, webhooks},
			required: []string{"SESAME_TABLE", "SESAME_CONFIG_SET_FULL", "SESAME_CONFIG_SET_ESSENTIAL", "SESAME_CONFIG_SET_OFF",
				"SESAME_WEBHOOKS_QUEUE_URL"},
		},
		"status": {
			want:     &Status{logging, bounds, table, webhooks},
			required: []string{"SESAME_TABLE", "SESAME_WEBHOOKS_QUEUE_URL"},
		},
		"unsubscribe": {
			want:     &Unsubscribe{logging, bounds, table, Unsubscribing{UnsubscribeSecret: "u"}},
			required: []string{"SESAME_TABLE", "SESAME_UNSUBSCRIBE_SECRET"},
		},
		"webhook-dispatch": {
			want: &Dispatch{logging, bounds, table, webhooks,
				Delivery{WebhookTimeout: 5 * time.Second, WebhookAllowedPrefixes: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}}},
			required: []string{"SESAME_TABLE", "SESAME_WEBHOOKS_QUEUE_URL"},
		},
	}
	for fn, tc := range cases {
		t.Run(fn, func(t *testing.T) {
			empty := func() any { return reflect.New(reflect.TypeOf(tc.want).Elem()).Interface() }
			got := empty()
			if err := LoadFunction(t.Context(), fn, envconfig.MapLookuper(full), got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			var required []string
			for _, v := range Vars(got) {
				if v.Required {
					required = append(required, v.Name)
				}
			}
			if !slices.Equal(required, tc.required) {
				t.Errorf("required %v, want %v", required, tc.required)
			}
			for _, name := range tc.required {
				for how, env := range map[string]map[string]string{"unset": without(full, name), "empty": with(full, name, "")} {
					err := LoadFunction(t.Context(), fn, envconfig.MapLookuper(env), empty())
					if want := "config: " + name + " is required by " + fn; err == nil || err.Error() != want {
						t.Errorf("%s %s: err = %v, want %q", name, how, err, want)
					}
				}
			}
			// The log level defaults to info and must be one.
			got = empty()
			if err := LoadFunction(t.Context(), fn, envconfig.MapLookuper(without(full, "LOG_LEVEL")), got); err != nil || got.(Function).Level() != slog.LevelInfo {
				t.Errorf("without LOG_LEVEL: level %v, err %v; want info", got.(Function).Level(), err)
			}
			err := LoadFunction(t.Context(), fn, envconfig.MapLookuper(with(full, "LOG_LEVEL", "loud")), empty())
			if want := "config: LOG_LEVEL of " + fn + ": invalid syntax"; err == nil || err.Error() != want {
				t.Errorf("LOG_LEVEL=loud: err = %v, want %q", err, want)
			}
		})
	}
	// A value that does not parse is named by its variable too.
	err := LoadFunction(t.Context(), "webhook-dispatch", envconfig.MapLookuper(with(full, "SESAME_WEBHOOK_TIMEOUT", "10")), &Dispatch{})
	if err == nil || !strings.HasPrefix(err.Error(), "config: SESAME_WEBHOOK_TIMEOUT of webhook-dispatch: ") {
		t.Errorf("SESAME_WEBHOOK_TIMEOUT=10: err = %v, want one naming the variable", err)
	}
	// Every missing variable is named at once.
	err = LoadFunction(t.Context(), "send", envconfig.MapLookuper(map[string]string{"SESAME_TABLE": "t",
		"SESAME_CONFIG_SET_FULL": "f", "SESAME_CONFIG_SET_ESSENTIAL": "e", "SESAME_CONFIG_SET_OFF": "o"}), &Send{})
	if want := "config: SESAME_REVIEW_QUEUE_URL, SESAME_WEBHOOKS_QUEUE_URL are required by send"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}

func without(env map[string]string, name string) map[string]string {
	out := maps.Clone(env)
	delete(out, name)
	return out
}

func with(env map[string]string, name, value string) map[string]string {
	out := maps.Clone(env)
	out[name] = value
	return out
}

// The SDK bounds default field by field, and stay well under the 10 s of
// the shortest function timeout (infra's defaultSizing) and API Gateway's
// 29 s, retries included.
func TestSDKBounds(t *testing.T) {
	def := SDK{}.SDKBounds()
	if def != (SDK{ConnectTimeout: DefaultConnectTimeout, AttemptTimeout: DefaultAttemptTimeout, CallTimeout: DefaultCallTimeout, SESCallTimeout: DefaultSESCallTimeout}) {
		t.Errorf("defaults = %+v", def)
	}
	if !(def.ConnectTimeout < def.AttemptTimeout && def.AttemptTimeout < def.CallTimeout && def.CallTimeout < 10*time.Second) {
		t.Errorf("defaults %+v: want connect < attempt < call < 10 s", def)
	}
	if def.SESCallTimeout >= 29*time.Second/2 {
		t.Errorf("SES call timeout %v: want well under API Gateway's 29 s", def.SESCallTimeout)
	}
	set := SDK{AttemptTimeout: time.Second}.SDKBounds()
	if set.AttemptTimeout != time.Second || set.ConnectTimeout != DefaultConnectTimeout || set.CallTimeout != DefaultCallTimeout {
		t.Errorf("one field set: %+v", set)
	}
}

// Every function that builds links on SESAME_PUBLIC_URL refuses to start
// with an http URL, naming the variable, unless the host is loopback (the
// local stack): RFC 8058 one-click links are https.
func TestLoadFunctionPublicURLIsHTTPS(t *testing.T) {
	env := map[string]string{
		"SESAME_TABLE": "t", "SESAME_CONFIG_SET_FULL": "full", "SESAME_CONFIG_SET_ESSENTIAL": "essential", "SESAME_CONFIG_SET_OFF": "off",
		"SESAME_WEBHOOKS_QUEUE_URL": "https://sqs/webhooks", "SESAME_SENDS_QUEUE_URL": "https://sqs/sends",
		"SESAME_AUTOMATIONS_QUEUE_URL": "https://sqs/automations", "SESAME_REVIEW_QUEUE_URL": "https://sqs/review",
		"SESAME_UNSUBSCRIBE_SECRET": "u", "SESAME_DASHBOARD_SECRET": "d",
	}
	configs := map[string]func() any{
		"campaign-sender":   func() any { return &CampaignSender{} },
		"automation-runner": func() any { return &AutomationRunner{} },
		"dashboard":         func() any { return &Dashboard{} },
	}
	cases := map[string]struct {
		url     string
		refused bool
	}{
		"https API stage":           {url: "https://abc123.execute-api.eu-west-1.amazonaws.com/v1"},
		"https custom domain":       {url: "https://mail.example.com"},
		"http custom domain":        {url: "http://mail.example.com", refused: true},
		"http API stage":            {url: "http://abc123.execute-api.eu-west-1.amazonaws.com/v1", refused: true},
		"http loopback (local)":     {url: "http://127.0.0.1:8080"},
		"http localhost (local)":    {url: "http://localhost:8080"},
		"http IPv6 loopback":        {url: "http://[::1]:8080"},
		"http private address":      {url: "http://10.0.0.5", refused: true},
		"no scheme":                 {url: "mail.example.com", refused: true},
		"ftp":                       {url: "ftp://mail.example.com", refused: true},
		"https with a query":        {url: "https://mail.example.com/?a=b", refused: true},
		"https with credentials":    {url: "https://u:p@mail.example.com", refused: true},
		"loopback name in a domain": {url: "http://localhost.example.com", refused: true},
	}
	for fn, cfg := range configs {
		for name, tc := range cases {
			t.Run(fn+"/"+name, func(t *testing.T) {
				err := LoadFunction(t.Context(), fn, envconfig.MapLookuper(with(env, "SESAME_PUBLIC_URL", tc.url)), cfg())
				switch {
				case tc.refused && (err == nil || !strings.HasPrefix(err.Error(), "config: SESAME_PUBLIC_URL of "+fn+": ")):
					t.Errorf("%s: err = %v, want a refusal naming SESAME_PUBLIC_URL", tc.url, err)
				case !tc.refused && err != nil:
					t.Errorf("%s: %v", tc.url, err)
				}
			})
		}
	}
}

// The shares default when unset, and a share that is not a part of the
// rate, or an automation share past the bulk share, keeps the function
// from starting, naming the variable.
func TestLoadFunctionShares(t *testing.T) {
	base := map[string]string{
		"SESAME_TABLE": "t", "SESAME_CONFIG_SET_FULL": "f", "SESAME_CONFIG_SET_ESSENTIAL": "e", "SESAME_CONFIG_SET_OFF": "o",
		"SESAME_WEBHOOKS_QUEUE_URL": "https://sqs/w", "SESAME_SENDS_QUEUE_URL": "https://sqs/s",
		"SESAME_UNSUBSCRIBE_SECRET": "u", "SESAME_PUBLIC_URL": "https://mail.example",
	}
	for name, tc := range map[string]struct {
		env     map[string]string
		want    Shares
		wantErr string
	}{
		"defaults":             {base, Shares{Bulk: 0.8, Automation: 0.2}, ""},
		"set":                  {with(with(base, "SESAME_BULK_SHARE", "0.7"), "SESAME_AUTOMATION_SHARE", "0.1"), Shares{Bulk: 0.7, Automation: 0.1}, ""},
		"bulk over one":        {with(base, "SESAME_BULK_SHARE", "1.5"), Shares{}, "SESAME_BULK_SHARE 1.5"},
		"bulk negative":        {with(base, "SESAME_BULK_SHARE", "-0.1"), Shares{}, "SESAME_BULK_SHARE -0.1"},
		"automation past bulk": {with(with(base, "SESAME_BULK_SHARE", "0.3"), "SESAME_AUTOMATION_SHARE", "0.5"), Shares{}, "SESAME_AUTOMATION_SHARE 0.5"},
		"not a number":         {with(base, "SESAME_BULK_SHARE", "most"), Shares{}, "SESAME_BULK_SHARE of campaign-sender"},
	} {
		var cfg CampaignSender
		err := LoadFunction(t.Context(), "campaign-sender", envconfig.MapLookuper(tc.env), &cfg)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: %v", name, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: err = %v, want one naming %q", name, err, tc.wantErr)
		case tc.wantErr == "" && cfg.Shares() != tc.want:
			t.Errorf("%s: shares %+v, want %+v", name, cfg.Shares(), tc.want)
		}
	}
}

// An unset share is the pacer's default.
func TestDefaultSharesAreThePacers(t *testing.T) {
	if capacity.Shares(DefaultShares) != capacity.DefaultShares {
		t.Errorf("config's default shares %+v, the pacer's %+v", DefaultShares, capacity.DefaultShares)
	}
}
