package config

import (
	"context"
	"log/slog"
	"reflect"
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
			err := LoadFrom(context.Background(), envconfig.MapLookuper(tc.env), &got)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if !tc.wantErr && !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
