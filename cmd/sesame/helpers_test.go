package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/dynamo/repositories"
	"github.com/sesame-mail/sesame/internal/ses"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// consoleTable is a fresh table on DynamoDB Local that the console is
// pointed at with --table; the console builds its own client from the AWS
// environment, as it does for an operator.
type consoleTable struct {
	t     *testing.T
	name  string
	store repositories.Set // the same table, read directly
}

func newConsoleTable(t *testing.T) *consoleTable {
	t.Helper()
	// The console's settings come from these; keep the tests hermetic.
	for _, name := range []string{"SESAME_TABLE", "SESAME_WORKSPACE_ID", "SESAME_REVIEW_QUEUE_URL", "SESAME_CONFIG_SET_FULL", "SESAME_LOCAL_DATA"} {
		t.Setenv(name, "")
	}
	name := dynamotest.NewTable(t)
	return &consoleTable{t: t, name: name, store: repositories.New(&dynamo.Table{DB: dynamotest.Client(t), Name: name})}
}

// runConsole runs the console on args as given, in process, and returns what
// it printed.
func runConsole(t *testing.T, api ses.API, args ...string) (string, error) {
	t.Helper()
	root := (&console{out: os.Stdout, sesAPI: api}).rootCommand()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := execute(t.Context(), root)
	return out.String(), err
}

// run executes one console command in process and returns what it printed.
func (c *consoleTable) run(args ...string) (string, error) {
	c.t.Helper()
	return c.runSES(nil, args...)
}

// must runs a command that has to succeed.
func (c *consoleTable) must(args ...string) string {
	c.t.Helper()
	return c.mustSES(nil, args...)
}

// runSES runs one console command on the table in process with api as
// its SES client (nil: the console builds its own).
func (c *consoleTable) runSES(api ses.API, args ...string) (string, error) {
	c.t.Helper()
	return runConsole(c.t, api, append([]string{"--table", c.name}, args...)...)
}

// mustSES runs a command that has to succeed.
func (c *consoleTable) mustSES(api ses.API, args ...string) string {
	c.t.Helper()
	out, err := c.runSES(api, args...)
	if err != nil {
		c.t.Fatalf("sesame %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// mustJSON runs a command with --output json and decodes what it printed.
func mustJSON[T any](c *consoleTable, args ...string) (T, string) {
	c.t.Helper()
	return sesJSON[T](c, nil, args...)
}

// sesJSON runs a command with --output json and api as its SES client
// (nil: the console builds its own), and decodes what it printed.
func sesJSON[T any](c *consoleTable, api ses.API, args ...string) (T, string) {
	c.t.Helper()
	out := c.mustSES(api, append(args, "--output", "json")...)
	var v T
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		c.t.Fatalf("sesame %s printed invalid JSON: %v\n%s", strings.Join(args, " "), err, out)
	}
	return v, out
}

// checkFails asserts a command failed with an error that is wantIs (when
// set) and says wantMsg.
func checkFails(t *testing.T, args []string, out string, err, wantIs error, wantMsg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("sesame %s succeeded:\n%s", strings.Join(args, " "), out)
	}
	if wantIs != nil && !errors.Is(err, wantIs) {
		t.Errorf("err = %v, want %v", err, wantIs)
	}
	if !strings.Contains(err.Error(), wantMsg) {
		t.Errorf("err = %q, want it to say %q", err, wantMsg)
	}
}

// idLine is the "id" line of what `keys create` and `webhooks add` print.
var idLine = regexp.MustCompile(`(?m)^id\s+(\S+)$`)

// createWorkspace creates a workspace through the console; it returns the id.
func (c *consoleTable) createWorkspace(name string) string {
	c.t.Helper()
	ws, _ := mustJSON[workspace.Workspace](c, "workspace", "create", "--name", name)
	return ws.ID
}

// workspace reads a workspace from the table.
func (c *consoleTable) workspace(id string) workspace.Workspace {
	c.t.Helper()
	ws, err := c.store.Workspaces.GetWorkspace(c.t.Context(), id)
	if err != nil {
		c.t.Fatal(err)
	}
	return ws
}
