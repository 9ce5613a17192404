package config

import (
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/sethvargo/go-envconfig"
)

func TestLoadAPI(t *testing.T) {
	cases := map[string]struct {
		env     map[string]string
		want    API
		wantErr bool
	}{
		"all set": {
			env:  map[string]string{"SESAME_TABLE": "t", "SESAME_CURSOR_SECRET": "s", "LOG_LEVEL": "debug"},
			want: API{Table: "t", CursorSecret: "s", LogLevel: slog.LevelDebug},
		},
		"default log level": {
			env:  map[string]string{"SESAME_TABLE": "t", "SESAME_CURSOR_SECRET": "s"},
			want: API{Table: "t", CursorSecret: "s", LogLevel: slog.LevelInfo},
		},
		"missing table":             {env: map[string]string{"SESAME_CURSOR_SECRET": "s"}, wantErr: true},
		"consumer without a secret": {env: map[string]string{"SESAME_TABLE": "t"}, want: API{Table: "t", LogLevel: slog.LevelInfo}},
		"bad log level":             {env: map[string]string{"SESAME_TABLE": "t", "SESAME_CURSOR_SECRET": "s", "LOG_LEVEL": "loud"}, wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got API
			err := LoadFrom(t.Context(), envconfig.MapLookuper(tc.env), &got)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if !tc.wantErr && !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

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
