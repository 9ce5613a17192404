package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/devstack"
	"github.com/sesame-mail/sesame/internal/identity"
)

// `sesame dev seed` puts the demo workspace of `sesame dev` into a table
// the console is pointed at (as localstack/smoke.sh does against a stack
// on LocalStack): its keys work on that table, its domain is verified, and
// a second run reuses them.
func TestDevSeed(t *testing.T) {
	c := newConsoleTable(t)
	envFile := filepath.Join(t.TempDir(), "localstack.env")
	out := c.must("dev", "seed", "--env-file", envFile)

	env, err := devstack.ReadEnv(envFile)
	if err != nil {
		t.Fatal(err)
	}
	ws := env["SESAME_WORKSPACE_ID"]
	if ws == "" || env["SESAME_TABLE"] != c.name {
		t.Fatalf("env file %v, want the workspace and table %s", env, c.name)
	}
	if !strings.Contains(out, ws) || !strings.Contains(out, envFile) {
		t.Errorf("output %q, want the workspace id and the env file", out)
	}
	for _, name := range []string{"SESAME_LIVE_KEY", "SESAME_TEST_KEY"} {
		key := env[name]
		if strings.Contains(out, key) {
			t.Errorf("%s printed; keys go only to the env file", name)
		}
		kind, ok := apikey.Parse(key)
		if !ok {
			t.Fatalf("%s = %q, not a key", name, key)
		}
		p, err := c.store.Keys.Authenticate(t.Context(), key, kind)
		if err != nil || p.WorkspaceID != ws {
			t.Errorf("%s: authenticates as %+v, %v; want workspace %s", name, p, err, ws)
		}
	}
	d, err := c.store.Domains.GetDomain(t.Context(), ws, devstack.DemoDomain)
	if err != nil || d.Status != identity.DomainVerified {
		t.Errorf("demo domain %+v, %v; want %s verified", d, err, devstack.DemoDomain)
	}
	if fi, err := os.Stat(envFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("env file mode %v, %v; want 0600 (it holds keys)", fi.Mode().Perm(), err)
	}

	c.must("dev", "seed", "--env-file", envFile)
	again, err := devstack.ReadEnv(envFile)
	if err != nil {
		t.Fatal(err)
	}
	if again["SESAME_WORKSPACE_ID"] != ws || again["SESAME_LIVE_KEY"] != env["SESAME_LIVE_KEY"] || again["SESAME_TEST_KEY"] != env["SESAME_TEST_KEY"] {
		t.Errorf("second seed wrote %v, want the first run's workspace and keys", again)
	}
}

// The seed marks a domain verified without SES: never against DynamoDB
// in AWS.
func TestDevSeedRefusesRemoteEndpoint(t *testing.T) {
	c := newConsoleTable(t)
	for name, env := range map[string][2]string{
		"AWS DynamoDB endpoint": {"https://dynamodb.us-east-1.amazonaws.com", ""},
		"no endpoint at all":    {"", ""},
		"global AWS endpoint":   {"", "https://example.org"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", env[0])
			t.Setenv("AWS_ENDPOINT_URL", env[1])
			envFile := filepath.Join(t.TempDir(), "localstack.env")
			args := []string{"dev", "seed", "--env-file", envFile}
			out, err := c.run(args...)
			checkFails(t, args, out, err, nil, "needs a local DynamoDB")
			if _, err := os.Stat(envFile); !os.IsNotExist(err) {
				t.Errorf("env file written (%v)", err)
			}
		})
	}
}
