// Package devstack runs Sesame locally on the AWS emulators: it creates the
// table and queues, seeds a demo workspace, serves every /api/v1 route on one
// mux and polls each queue into its consumer.
package devstack

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/dynamo/repositories"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// Env is what .sesame/dev.env holds: enough for a script or the console to
// talk to the local stack, and for a restart to reuse the demo workspace.
type Env map[string]string

// ReadEnv reads a KEY=value file; a missing file is an empty Env.
func ReadEnv(path string) (Env, error) {
	env := Env{}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return env, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			env[k] = strings.Trim(v, `'`)
		}
	}
	return env, sc.Err()
}

// Write saves env as a file that `set -a; . FILE` can source.
func (env Env) Write(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("# Written by `sesame dev`; source with: set -a; . .sesame/dev.env\n")
	for _, k := range env.Keys() {
		fmt.Fprintf(&b, "%s='%s'\n", k, env[k])
	}
	return os.WriteFile(path, []byte(b.String()), 0o600)
}

// Keys returns the variable names in order.
func (env Env) Keys() []string {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// DemoDomain is the verified sending domain of the demo workspace.
const DemoDomain = "demo.sesame.test"

// DemoOwner signs in to the demo workspace's dashboard; DemoSender is
// its default sender, the From of the local dashboard's sign-in links.
const (
	DemoOwner  = "owner@" + DemoDomain
	DemoSender = "Sesame <hello@" + DemoDomain + ">"
)

// Demo is the seeded demo workspace, its keys and its owner.
type Demo struct {
	WorkspaceID string
	LiveKey     string
	TestKey     string
	Owner       string
}

// Seed returns the demo workspace recorded in prev when it still exists and
// its keys still work (a restart of `sesame dev` against running emulators);
// otherwise it creates a new one with a live and a test full-access key, and
// adds its domain as the console does (`sesame domains add` and `status`)
// through identities, the local stack's SES identities (LocalSES).
func Seed(ctx context.Context, store repositories.Set, identities identity.Identities, prev Env) (Demo, error) {
	demo := Demo{WorkspaceID: prev["SESAME_WORKSPACE_ID"], LiveKey: prev["SESAME_LIVE_KEY"], TestKey: prev["SESAME_TEST_KEY"]}
	if demo.WorkspaceID != "" && keyWorks(ctx, store, demo.LiveKey, demo.WorkspaceID) && keyWorks(ctx, store, demo.TestKey, demo.WorkspaceID) {
		return seedOwner(ctx, store, demo)
	}
	ws, err := store.Workspaces.CreateWorkspace(ctx, "Demo")
	if err != nil {
		return Demo{}, err
	}
	domains := &identity.Domains{Store: store.Domains, Identities: identities}
	if _, err := domains.Add(ctx, identity.DomainRequest{WorkspaceID: ws.ID, Name: DemoDomain}); err != nil {
		return Demo{}, fmt.Errorf("demo domain: %w", err)
	}
	if check, err := domains.Status(ctx, ws.ID, DemoDomain); err != nil || check.Domain.Status != identity.DomainVerified {
		return Demo{}, fmt.Errorf("demo domain: not verified (%v)", err)
	}
	sender := identity.Sender{Name: "Sesame Demo", Email: "hello@" + DemoDomain}
	if _, err := store.Senders.AddSender(ctx, ws.ID, sender, true); err != nil {
		return Demo{}, err
	}
	scopes, err := apikey.Resolve(apikey.PresetFull, nil)
	if err != nil {
		return Demo{}, err
	}
	live, _, err := store.Keys.CreateKey(ctx, ws.ID, apikey.Live, "demo live", scopes)
	if err != nil {
		return Demo{}, err
	}
	test, _, err := store.Keys.CreateKey(ctx, ws.ID, apikey.Test, "demo test", scopes)
	if err != nil {
		return Demo{}, err
	}
	return seedOwner(ctx, store, Demo{WorkspaceID: ws.ID, LiveKey: live, TestKey: test})
}

// seedOwner makes DemoOwner an owner of the demo workspace (again: adding
// an owner twice changes nothing).
func seedOwner(ctx context.Context, store repositories.Set, demo Demo) (Demo, error) {
	owners := &account.Owners{Store: store.Owners}
	if _, err := owners.Add(ctx, demo.WorkspaceID, DemoOwner); err != nil {
		return Demo{}, fmt.Errorf("demo owner: %w", err)
	}
	demo.Owner = DemoOwner
	return demo, nil
}

func keyWorks(ctx context.Context, store repositories.Set, key, workspaceID string) bool {
	env, ok := apikey.Parse(key)
	if !ok {
		return false
	}
	if _, err := store.Workspaces.GetWorkspace(ctx, workspaceID); errors.Is(err, workspace.ErrNotFound) || err != nil {
		return false
	}
	p, err := store.Keys.Authenticate(ctx, key, env)
	return err == nil && p.WorkspaceID == workspaceID
}

// NewSecret returns a random hex secret (the dev stack's cursor secret).
func NewSecret() string {
	b := make([]byte, 32)
	rand.Read(b) // never returns an error since Go 1.24
	return hex.EncodeToString(b)
}
