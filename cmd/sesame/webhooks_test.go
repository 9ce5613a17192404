package main

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/webhook"
)

var webhookSecretLine = regexp.MustCompile(`(?m)^secret\s+(whsec_\S+)$`)

func TestWebhooksCommands(t *testing.T) {
	ctx := t.Context()
	c := newConsoleTable(t)
	ws := c.createWorkspace("Acme")
	other := c.createWorkspace("Other")

	// add prints the id and the secret once, and where to find it again.
	out := c.must("webhooks", "add", "--workspace", ws, "--url", "https://hooks.example.com/in", "--events", "email.delivered,email.bounced")
	idm, secm := idLine.FindStringSubmatch(out), webhookSecretLine.FindStringSubmatch(out)
	if idm == nil || secm == nil {
		t.Fatalf("add printed no id or secret:\n%s", out)
	}
	id, secret := idm[1], secm[1]
	if strings.Count(out, secret) != 1 || !strings.Contains(out, "sesame webhooks secret "+id) {
		t.Errorf("add should print the secret once and name `webhooks secret`:\n%s", out)
	}
	stored, err := c.store.Webhooks.GetEndpoint(ctx, ws, id)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Secret != secret || !stored.Enabled || !slices.Equal(stored.Events, []event.Type{event.Delivered, event.Bounced}) {
		t.Errorf("stored endpoint = %+v", stored)
	}

	// JSON output of add carries the secret beside the endpoint.
	t.Setenv("SESAME_WORKSPACE_ID", ws) // --workspace defaults to it
	local, _ := mustJSON[webhookCreated](c, "webhooks", "add", "--url", "http://localhost:9000/hook", "--allow-insecure-http")
	if !strings.HasPrefix(local.Secret, "whsec_") || local.Endpoint.ID == "" || local.Endpoint.Events != nil || local.Endpoint.WorkspaceID != ws {
		t.Errorf("add --output json = %+v", local)
	}

	// secret gives it back; list never shows secrets.
	if got := strings.TrimSpace(c.must("webhooks", "secret", id)); got != secret {
		t.Errorf("secret printed %q, want %q", got, secret)
	}
	list := c.must("webhooks", "list")
	for _, want := range []string{"ID", "URL", "EVENTS", "STATE", id, "https://hooks.example.com/in", "email.delivered,email.bounced", "enabled", "never", local.Endpoint.ID, "all"} {
		if !strings.Contains(list, want) {
			t.Errorf("list lacks %q:\n%s", want, list)
		}
	}
	listJSON, raw := mustJSON[[]webhook.Endpoint](c, "webhooks", "list")
	if len(listJSON) != 2 || strings.Contains(list+raw, "whsec_") {
		t.Errorf("list shows %d endpoints or a secret:\n%s\n%s", len(listJSON), list, raw)
	}

	// disable and enable; enable clears the failure count and reason.
	for range 2 {
		if err := c.store.Webhooks.EndpointFailed(ctx, ws, id); err != nil {
			t.Fatal(err)
		}
	}
	if out := c.must("webhooks", "disable", id); !strings.Contains(out, "disabled ("+webhook.OwnerDisableReason+") "+id) {
		t.Errorf("disable printed %q", out)
	}
	if ep, _ := c.store.Webhooks.GetEndpoint(ctx, ws, id); ep.Enabled || ep.DisabledReason != webhook.OwnerDisableReason {
		t.Errorf("after disable: %+v", ep)
	}
	if out := c.must("webhooks", "enable", id); strings.TrimSpace(out) != "enabled "+id {
		t.Errorf("enable printed %q", out)
	}
	if ep, _ := c.store.Webhooks.GetEndpoint(ctx, ws, id); !ep.Enabled || ep.DisabledReason != "" || ep.ConsecutiveFailures != 0 {
		t.Errorf("after enable: %+v", ep)
	}

	// deliveries: the attempt log, newest first.
	base := time.Now().UTC().Truncate(time.Second)
	for i, a := range []webhook.Attempt{
		{EventID: "evt_old", Number: 1, At: base.Add(-time.Minute), StatusCode: 0, LatencyMS: 10000, Error: "timed out"},
		{EventID: "evt_new", Number: 2, At: base, StatusCode: 200, LatencyMS: 42},
	} {
		a.WorkspaceID, a.EndpointID, a.EventType = ws, id, event.Delivered
		if err := c.store.Webhooks.RecordAttempt(ctx, a); err != nil {
			t.Fatalf("attempt %d: %v", i, err)
		}
	}
	log := c.must("webhooks", "deliveries", id)
	lines := strings.Split(strings.TrimSpace(log), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], "TIME") ||
		!regexp.MustCompile(`evt_new\s+2\s+200\s+42ms`).MatchString(lines[1]) ||
		!regexp.MustCompile(`evt_old\s+1\s+-\s+10000ms\s+timed out`).MatchString(lines[2]) {
		t.Errorf("deliveries printed:\n%s", log)
	}
	attempts, _ := mustJSON[[]webhook.Attempt](c, "webhooks", "deliveries", id, "--limit", "1")
	if len(attempts) != 1 || attempts[0].EventID != "evt_new" || attempts[0].StatusCode != 200 || attempts[0].LatencyMS != 42 {
		t.Errorf("deliveries --limit 1 --output json = %+v", attempts)
	}

	// Another workspace sees none of it.
	for _, verb := range []string{"secret", "disable", "enable", "deliveries", "remove"} {
		if _, err := c.run("webhooks", verb, id, "--workspace", other); !errors.Is(err, webhook.ErrEndpointNotFound) {
			t.Errorf("webhooks %s from another workspace: err = %v, want not found", verb, err)
		}
	}
	if l := c.must("webhooks", "list", "--workspace", other); strings.Contains(l, id) {
		t.Errorf("another workspace lists the endpoint:\n%s", l)
	}

	// remove.
	if out := c.must("webhooks", "remove", id); strings.TrimSpace(out) != "removed "+id {
		t.Errorf("remove printed %q", out)
	}
	if _, err := c.store.Webhooks.GetEndpoint(ctx, ws, id); !errors.Is(err, webhook.ErrEndpointNotFound) {
		t.Errorf("after remove: err = %v", err)
	}
	if _, err := c.run("webhooks", "secret", id); !errors.Is(err, webhook.ErrEndpointNotFound) {
		t.Errorf("secret of a removed endpoint: err = %v", err)
	}
}

func TestWebhooksAddRefusals(t *testing.T) {
	c := newConsoleTable(t)
	ws := c.createWorkspace("Acme")
	cases := map[string]struct {
		args    []string
		wantIs  error
		wantMsg string
	}{
		"metadata address":            {args: []string{"--url", "http://169.254.169.254/"}, wantIs: webhook.ErrInvalidURL},
		"metadata address with flag":  {args: []string{"--url", "http://169.254.169.254/", "--allow-insecure-http"}, wantIs: webhook.ErrInvalidURL, wantMsg: "not publicly reachable"},
		"ftp":                         {args: []string{"--url", "ftp://x"}, wantIs: webhook.ErrInvalidURL},
		"no host":                     {args: []string{"--url", "https://"}, wantIs: webhook.ErrInvalidURL, wantMsg: "no host"},
		"http without the flag":       {args: []string{"--url", "http://hooks.example.com/"}, wantIs: webhook.ErrInvalidURL, wantMsg: "--allow-insecure-http"},
		"private address":             {args: []string{"--url", "https://192.168.1.10/"}, wantIs: webhook.ErrInvalidURL},
		"credentials in the URL":      {args: []string{"--url", "https://u:p@hooks.example.com/"}, wantIs: webhook.ErrInvalidURL},
		"unknown event type":          {args: []string{"--url", "https://hooks.example.com/", "--events", "email.sent"}, wantIs: webhook.ErrUnknownEventType},
		"one unknown among known":     {args: []string{"--url", "https://hooks.example.com/", "--events", "email.delivered,email.sent"}, wantIs: webhook.ErrUnknownEventType},
		"no URL":                      {args: []string{}, wantMsg: "--url is required"},
		"no workspace":                {args: []string{"--url", "https://hooks.example.com/", "--workspace", ""}, wantMsg: "--workspace is required"},
		"workspace that is not there": {args: []string{"--url", "https://hooks.example.com/", "--workspace", uuid.NewString()}, wantMsg: "workspace"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			args := append([]string{"webhooks", "add", "--workspace", ws}, tc.args...)
			out, err := c.run(args...)
			checkFails(t, args, out, err, tc.wantIs, tc.wantMsg)
		})
	}
	if eps, err := c.store.Webhooks.ListEndpoints(t.Context(), ws); err != nil || len(eps) != 0 {
		t.Errorf("refused adds stored %v (err %v)", eps, err)
	}
}

func TestWebhooksRotateSecret(t *testing.T) {
	ctx := t.Context()
	c := newConsoleTable(t)
	ws := c.createWorkspace("Acme")
	other := c.createWorkspace("Other")
	added := webhookSecretLine.FindStringSubmatch(c.must("webhooks", "add", "--workspace", ws, "--url", "https://hooks.example.com/in"))
	eps, err := c.store.Webhooks.ListEndpoints(ctx, ws)
	if added == nil || err != nil || len(eps) != 1 {
		t.Fatalf("add: %v endpoints (err %v)", eps, err)
	}
	id, oldSecret := eps[0].ID, added[1]

	// rotate-secret prints the new secret once and until when the old one signs.
	out := c.must("webhooks", "rotate-secret", id, "--workspace", ws)
	secm := webhookSecretLine.FindStringSubmatch(out)
	if secm == nil {
		t.Fatalf("rotate-secret printed no secret:\n%s", out)
	}
	newSecret := secm[1]
	stored, err := c.store.Webhooks.GetEndpoint(ctx, ws, id)
	if err != nil {
		t.Fatal(err)
	}
	if newSecret == oldSecret || stored.Secret != newSecret || stored.PreviousSecret != oldSecret || stored.PreviousSecretUntil == nil {
		t.Fatalf("after rotate-secret the store has %+v; printed %q, old %q", stored, newSecret, oldSecret)
	}
	until := stored.PreviousSecretUntil.Format(time.RFC3339)
	if strings.Count(out, newSecret) != 1 || strings.Contains(out, oldSecret) || !strings.Contains(out, "Until "+until) ||
		!strings.Contains(out, "both the new and the previous secret") {
		t.Errorf("rotate-secret should print the new secret once, not the old one, and the old one's end %s:\n%s", until, out)
	}
	if got := strings.TrimSpace(c.must("webhooks", "secret", id, "--workspace", ws)); got != newSecret {
		t.Errorf("secret after rotate-secret = %q, want the new one", got)
	}
	// list shows until when the old secret signs, never a secret.
	listed, raw := mustJSON[[]webhook.Endpoint](c, "webhooks", "list", "--workspace", ws)
	if len(listed) != 1 || listed[0].PreviousSecretUntil == nil || !listed[0].PreviousSecretUntil.Equal(*stored.PreviousSecretUntil) ||
		strings.Contains(raw, "whsec_") {
		t.Errorf("list --output json after a rotation:\n%s", raw)
	}

	// JSON output; rotating again makes the secret just replaced the old one.
	again, _ := mustJSON[webhookRotated](c, "webhooks", "rotate-secret", id, "--workspace", ws)
	stored, _ = c.store.Webhooks.GetEndpoint(ctx, ws, id)
	if again.ID != id || again.Secret != stored.Secret || stored.PreviousSecret != newSecret || !again.PreviousSecretUntil.Equal(*stored.PreviousSecretUntil) {
		t.Errorf("rotate-secret --output json = %+v; stored %+v", again, stored)
	}

	// Another workspace's endpoint, or none: not found, nothing changed.
	if _, err := c.run("webhooks", "rotate-secret", id, "--workspace", other); !errors.Is(err, webhook.ErrEndpointNotFound) {
		t.Errorf("rotate-secret from another workspace: err = %v, want not found", err)
	}
	if _, err := c.run("webhooks", "rotate-secret", uuid.NewString(), "--workspace", ws); !errors.Is(err, webhook.ErrEndpointNotFound) {
		t.Errorf("rotate-secret of no endpoint: err = %v, want not found", err)
	}
	if after, _ := c.store.Webhooks.GetEndpoint(ctx, ws, id); after.Secret != again.Secret {
		t.Error("a refused rotate-secret changed the secret")
	}
	out, err = c.run("webhooks", "rotate-secret", "--workspace", ws)
	checkFails(t, []string{"webhooks", "rotate-secret"}, out, err, nil, "accepts 1 arg")
}
