package webhook_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/dynamo/storetest"
	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/fail/failtest"
	"github.com/sesame-mail/sesame/internal/webhook"
	"github.com/sesame-mail/sesame/internal/workspace"
)

func TestWebhooks(t *testing.T) {
	ctx := t.Context()
	store := storetest.New(t)
	ws, other := storetest.Workspace(t, store, "Acme"), storetest.Workspace(t, store, "Other")
	w := &webhook.Service{Endpoints: store.Webhooks, Attempts: store.Webhooks}

	if none, err := w.List(ctx, ws.ID); err != nil || none == nil || len(none) != 0 {
		t.Errorf("List of no endpoints = %#v (err %v), want an empty list", none, err)
	}
	ep, err := w.Add(ctx, webhook.EndpointRequest{WorkspaceID: ws.ID, URL: "https://hooks.example.com/in", Events: []string{"email.bounced", "email.delivered"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ep.Secret, webhook.SecretPrefix) || !ep.Enabled || ep.WorkspaceID != ws.ID ||
		!slices.Equal(ep.Events, []event.Type{event.Delivered, event.Bounced}) {
		t.Errorf("Add = %+v", ep)
	}
	local, err := w.Add(ctx, webhook.EndpointRequest{WorkspaceID: ws.ID, URL: "http://localhost:9000/hook", AllowInsecureHTTP: true})
	if err != nil {
		t.Fatal(err)
	}
	if secret, err := w.Secret(ctx, ws.ID, ep.ID); err != nil || secret != ep.Secret {
		t.Errorf("Secret = %q (err %v), want the one Add made", secret, err)
	}
	if all, err := w.List(ctx, ws.ID); err != nil || len(all) != 2 {
		t.Errorf("List = %+v (err %v), want both endpoints", all, err)
	}

	for range 2 {
		if err := store.Webhooks.EndpointFailed(ctx, ws.ID, ep.ID); err != nil {
			t.Fatal(err)
		}
	}
	if off, err := w.Disable(ctx, ws.ID, ep.ID); err != nil || off.Enabled || off.DisabledReason != webhook.OwnerDisableReason {
		t.Errorf("Disable = %+v (err %v), want disabled by the owner", off, err)
	}
	if on, err := w.Enable(ctx, ws.ID, ep.ID); err != nil || !on.Enabled || on.DisabledReason != "" || on.ConsecutiveFailures != 0 {
		t.Errorf("Enable = %+v (err %v), want enabled with no failures", on, err)
	}

	base := time.Now().UTC().Truncate(time.Second)
	for i := range 3 {
		a := webhook.Attempt{WorkspaceID: ws.ID, EndpointID: ep.ID, EventID: "evt_" + string(rune('a'+i)), EventType: event.Delivered,
			Number: 1, At: base.Add(time.Duration(i) * time.Second), StatusCode: 200, LatencyMS: 10}
		if err := store.Webhooks.RecordAttempt(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	attempts, err := w.Deliveries(ctx, ws.ID, ep.ID, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(attempts) != 2 || attempts[0].EventID != "evt_c" || attempts[1].EventID != "evt_b" {
		t.Errorf("Deliveries(2) = %+v, want the two newest", attempts)
	}
	if none, err := w.Deliveries(ctx, ws.ID, local.ID, webhook.MaxDeliveries); err != nil || none == nil || len(none) != 0 {
		t.Errorf("Deliveries of an endpoint never called = %#v (err %v), want an empty list", none, err)
	}

	// Another workspace reaches none of it.
	notFound := map[string]func() error{
		"Secret":     func() error { _, err := w.Secret(ctx, other.ID, ep.ID); return err },
		"Enable":     func() error { _, err := w.Enable(ctx, other.ID, ep.ID); return err },
		"Disable":    func() error { _, err := w.Disable(ctx, other.ID, ep.ID); return err },
		"Deliveries": func() error { _, err := w.Deliveries(ctx, other.ID, ep.ID, 10); return err },
		"Remove":     func() error { return w.Remove(ctx, other.ID, ep.ID) },
	}
	for name, call := range notFound {
		t.Run(name+" from another workspace", func(t *testing.T) {
			err := call()
			failtest.WantIs(t, err, webhook.ErrEndpointNotFound)
			if err != nil && !strings.Contains(err.Error(), ep.ID) {
				t.Errorf("err = %v, want it to name the endpoint", err)
			}
		})
	}
	if all, err := w.List(ctx, other.ID); err != nil || len(all) != 0 {
		t.Errorf("another workspace lists %+v (err %v)", all, err)
	}

	if err := w.Remove(ctx, ws.ID, ep.ID); err != nil {
		t.Fatal(err)
	}
	_, err = w.Secret(ctx, ws.ID, ep.ID)
	failtest.WantIs(t, err, webhook.ErrEndpointNotFound)
}

func TestWebhooksRefusals(t *testing.T) {
	ctx := t.Context()
	store := storetest.New(t)
	ws := storetest.Workspace(t, store, "Acme")
	w := &webhook.Service{Endpoints: store.Webhooks, Attempts: store.Webhooks}
	add := func(url string, events ...string) webhook.EndpointRequest {
		return webhook.EndpointRequest{WorkspaceID: ws.ID, URL: url, Events: events}
	}
	cases := map[string]struct {
		req   webhook.EndpointRequest
		field string // the input refused, or
		want  error
	}{
		"no workspace":          {req: webhook.EndpointRequest{URL: "https://hooks.example.com/"}, field: "workspace"},
		"no URL":                {req: add(""), field: "url"},
		"absent workspace":      {req: webhook.EndpointRequest{WorkspaceID: uuid.NewString(), URL: "https://hooks.example.com/"}, want: workspace.ErrNotFound},
		"metadata address":      {req: add("http://169.254.169.254/"), want: webhook.ErrInvalidURL},
		"http without the flag": {req: add("http://hooks.example.com/"), want: webhook.ErrInvalidURL},
		"private address":       {req: add("https://192.168.1.10/"), want: webhook.ErrInvalidURL},
		"unknown event type":    {req: add("https://hooks.example.com/", "email.delivered", "email.sent"), want: webhook.ErrUnknownEventType},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := w.Add(t.Context(), tc.req)
			if tc.field != "" {
				failtest.WantInput(t, err, tc.field)
			} else {
				failtest.WantIs(t, err, tc.want)
			}
		})
	}
	if eps, err := store.Webhooks.ListEndpoints(ctx, ws.ID); err != nil || len(eps) != 0 {
		t.Errorf("refused adds stored %+v (err %v)", eps, err)
	}

	ep, err := w.Add(ctx, add("https://hooks.example.com/"))
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int{0, -1, webhook.MaxDeliveries + 1} {
		_, err := w.Deliveries(ctx, ws.ID, ep.ID, limit)
		failtest.WantInput(t, err, "limit")
	}
	_, err = w.Deliveries(ctx, ws.ID, uuid.NewString(), 10)
	failtest.WantIs(t, err, webhook.ErrEndpointNotFound)
	for name, call := range map[string]func() error{
		"Secret":     func() error { _, err := w.Secret(ctx, "", ep.ID); return err },
		"List":       func() error { _, err := w.List(ctx, ""); return err },
		"Enable":     func() error { _, err := w.Enable(ctx, "", ep.ID); return err },
		"Remove":     func() error { return w.Remove(ctx, "", ep.ID) },
		"Deliveries": func() error { _, err := w.Deliveries(ctx, "", ep.ID, 10); return err },
	} {
		t.Run(name+" without a workspace", func(t *testing.T) { failtest.WantInput(t, call(), "workspace") })
	}
}

func TestWebhooksRotateSecret(t *testing.T) {
	ctx := t.Context()
	store := storetest.New(t)
	ws, other := storetest.Workspace(t, store, "Acme"), storetest.Workspace(t, store, "Other")
	clock := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	w := &webhook.Service{Endpoints: store.Webhooks, Attempts: store.Webhooks, Now: func() time.Time { return clock }}
	ep, err := w.Add(ctx, webhook.EndpointRequest{WorkspaceID: ws.ID, URL: "https://hooks.example.com/in"})
	if err != nil {
		t.Fatal(err)
	}

	first, err := w.RotateSecret(ctx, ws.ID, ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(first, webhook.SecretPrefix) || first == ep.Secret {
		t.Errorf("RotateSecret = %q, want a fresh whsec_ secret (was %q)", first, ep.Secret)
	}
	if got, err := w.Secret(ctx, ws.ID, ep.ID); err != nil || got != first {
		t.Errorf("Secret after a rotation = %q (err %v), want the new one", got, err)
	}
	got, err := w.Endpoint(ctx, ws.ID, ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.PreviousSecret != ep.Secret || got.PreviousSecretUntil == nil || !got.PreviousSecretUntil.Equal(clock.Add(24*time.Hour)) {
		t.Errorf("after a rotation the old secret signs until %v (previous %q), want %v (%q)", got.PreviousSecretUntil, got.PreviousSecret, clock.Add(24*time.Hour), ep.Secret)
	}
	if signing := got.SigningSecrets(clock.Add(time.Hour)); !slices.Equal(signing, []string{first, ep.Secret}) {
		t.Errorf("signing an hour later: %v, want the new then the old secret", signing)
	}

	// Again within the 24 h: the secret in use before this rotation is the
	// old one, with 24 h of its own; the first secret stops signing.
	clock = clock.Add(2 * time.Hour)
	second, err := w.RotateSecret(ctx, ws.ID, ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	got, err = w.Endpoint(ctx, ws.ID, ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	if signing := got.SigningSecrets(clock); !slices.Equal(signing, []string{second, first}) {
		t.Errorf("after a second rotation signing: %v, want [%s %s]", signing, second, first)
	}
	if !got.PreviousSecretUntil.Equal(clock.Add(24 * time.Hour)) {
		t.Errorf("second rotation: old secret signs until %v, want %v", got.PreviousSecretUntil, clock.Add(24*time.Hour))
	}

	// Another workspace, no workspace, no such endpoint: nothing rotates.
	_, err = w.RotateSecret(ctx, other.ID, ep.ID)
	failtest.WantIs(t, err, webhook.ErrEndpointNotFound)
	if err != nil && !strings.Contains(err.Error(), ep.ID) {
		t.Errorf("err = %v, want it to name the endpoint", err)
	}
	_, err = w.Endpoint(ctx, other.ID, ep.ID)
	failtest.WantIs(t, err, webhook.ErrEndpointNotFound)
	_, err = w.RotateSecret(ctx, ws.ID, uuid.NewString())
	failtest.WantIs(t, err, webhook.ErrEndpointNotFound)
	_, err = w.RotateSecret(ctx, "", ep.ID)
	failtest.WantInput(t, err, "workspace")
	if now, _ := w.Secret(ctx, ws.ID, ep.ID); now != second {
		t.Errorf("a refused rotation changed the secret to %q", now)
	}
}
