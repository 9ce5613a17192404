package main

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/workspace"
)

// TestMain runs the console's main instead of the tests when the test
// binary is started as the console (TestExitCodes).
func TestMain(m *testing.M) {
	if os.Getenv("SESAME_TEST_RUN_MAIN") == "1" {
		os.Args = append([]string{"sesame"}, os.Args[1:]...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A command line the console cannot run is a usage error: it says what is
// wrong and exits 2. `sesame suppressions purge` printed the help and
// succeeded.
func TestUsageErrors(t *testing.T) {
	c := newConsoleTable(t)
	cases := map[string]struct {
		args    []string
		wantMsg string
	}{
		"unknown subcommand":         {[]string{"suppressions", "purge"}, `unknown command "purge" for "sesame suppressions"; its commands: add, list, remove`},
		"misspelt subcommand":        {[]string{"held", "lst"}, `unknown command "lst" for "sesame held"; its commands: clear, deny, list; did you mean list?`},
		"unknown command":            {[]string{"bogus"}, `unknown command "bogus" for "sesame"`},
		"unknown subcommand, nested": {[]string{"webhooks", "frobnicate", "x"}, `unknown command "frobnicate" for "sesame webhooks"`},
		"missing argument":           {[]string{"approvals", "show"}, "sesame approvals show: accepts 1 arg(s), received 0 (see sesame approvals show --help)"},
		"no workspace named":         {[]string{"workspace", "show"}, "name the workspace: give its id, or set SESAME_WORKSPACE_ID"},
		"extra argument":             {[]string{"workspace", "list", "extra"}, `sesame workspace list: unknown command "extra" for "sesame workspace list"`},
		"unknown flag":               {[]string{"workspace", "list", "--colour"}, "unknown flag: --colour (see sesame workspace list --help)"},
		"flag not a number":          {[]string{"workspace", "set", uuid.NewString(), "--monthly-allowance", "lots"}, "invalid argument"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := c.run(tc.args...)
			checkFails(t, tc.args, out, err, nil, tc.wantMsg)
			if code := exitCode(err); code != 2 {
				t.Errorf("exit code %d, want 2", code)
			}
		})
	}
	// A group alone prints its help, and succeeds.
	out, err := c.run("suppressions")
	if err != nil || !strings.Contains(out, "Available Commands:") || !strings.Contains(out, "add ") {
		t.Errorf("sesame suppressions = %v, printed:\n%s", err, out)
	}
	// A command that ran and failed exits 1.
	_, err = c.run("workspace", "show", uuid.NewString())
	if !errors.Is(err, workspace.ErrNotFound) || exitCode(err) != 1 {
		t.Errorf("a failed command: err %v, exit code %d; want workspace.ErrNotFound and 1", err, exitCode(err))
	}
	if exitCode(nil) != 0 {
		t.Error("success does not exit 0")
	}
}

// The process's exit status, from main.
func TestExitCodes(t *testing.T) {
	for args, want := range map[string]int{"suppressions purge": 2, "suppressions": 0, "workspace show": 2} {
		cmd := exec.Command(os.Args[0], strings.Fields(args)...)
		cmd.Env = append(os.Environ(), "SESAME_TEST_RUN_MAIN=1")
		out, err := cmd.CombinedOutput()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != want {
			t.Errorf("sesame %s exited %d, want %d:\n%s", args, code, want, out)
		}
	}
}
