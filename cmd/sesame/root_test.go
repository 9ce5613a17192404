package main

import (
	"strings"
	"testing"
)

// The table comes from --table or SESAME_TABLE, the flag first; with
// neither the console says what to set instead of guessing a name.
func TestConsoleTableSetting(t *testing.T) {
	c := newConsoleTable(t)
	cases := map[string]struct {
		env     string
		args    []string
		wantMsg string // "" when the command succeeds
	}{
		"neither":                {args: []string{"workspace", "list"}, wantMsg: "no table: set SESAME_TABLE or pass --table (the stack's TableName output)"},
		"--table given empty":    {env: c.name, args: []string{"--table", "", "workspace", "list"}, wantMsg: "no table"},
		"SESAME_TABLE":           {env: c.name, args: []string{"workspace", "list"}},
		"--table":                {args: []string{"--table", c.name, "workspace", "list"}},
		"--table over the env":   {env: "absent-" + c.name, args: []string{"--table", c.name, "workspace", "list"}},
		"the env's absent table": {env: "absent-" + c.name, args: []string{"workspace", "list"}, wantMsg: `there is no DynamoDB table "absent-`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Setenv("SESAME_TABLE", tc.env)
			out, err := runConsole(t, nil, tc.args...)
			if tc.wantMsg == "" {
				if err != nil {
					t.Fatalf("sesame %s: %v\n%s", strings.Join(tc.args, " "), err, out)
				}
				return
			}
			checkFails(t, tc.args, out, err, nil, tc.wantMsg)
		})
	}
}
