package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/queue/queuetest"
)

// `sesame invoke` runs a route's handler on an API Gateway event and a
// consumer's handler on an SES event, as Lambda would.
func TestInvoke(t *testing.T) {
	ctx := t.Context()
	c := newConsoleTable(t)
	t.Setenv("SESAME_CURSOR_SECRET", "invoke-test")
	ws := c.createWorkspace("Acme")
	key, _, err := c.store.Keys.CreateKey(ctx, ws, apikey.Test, "", apikey.FullAccess)
	if err != nil {
		t.Fatal(err)
	}
	id := uuid.Must(uuid.NewV7()).String()
	err = c.store.Emails.PutEmail(ctx, email.Email{ID: id, WorkspaceID: ws, To: "ann@example.org", Subject: "Hi",
		Status: email.StatusSent, Type: email.TypeTransactional, Environment: apikey.Test, SentAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"SESAME_TEST_KEY": key, "EMAIL_ID": id, "WORKSPACE_ID": ws, "RECIPIENT": "ann@example.org"} {
		t.Setenv(k, v)
	}
	repo := filepath.Join("..", "..")
	// --table is enough: the function's own settings need no SESAME_TABLE.
	t.Setenv("SESAME_TABLE", "") // restored after the test
	if err := os.Unsetenv("SESAME_TABLE"); err != nil {
		t.Fatal(err)
	}

	out := c.must("invoke", "get-email", filepath.Join(repo, "events", "apigw", "get-email.json"))
	if !strings.Contains(out, `"statusCode": 200`) || !strings.Contains(out, id) {
		t.Errorf("invoke get-email printed:\n%s", out)
	}
	// A function starts only with its own settings, as in Lambda: status
	// fans its events out to the webhooks queue.
	delivery := filepath.Join(repo, "events", "ses", "delivery.json")
	t.Setenv("SESAME_WEBHOOKS_QUEUE_URL", "")
	if _, err := c.run("invoke", "status", delivery); err == nil || !strings.Contains(err.Error(), "SESAME_WEBHOOKS_QUEUE_URL is required by status") {
		t.Errorf("invoke status without SESAME_WEBHOOKS_QUEUE_URL: err = %v, want it named", err)
	}
	t.Setenv("SESAME_WEBHOOKS_QUEUE_URL", queuetest.New(t, queue.Webhooks).URL(t, queue.Webhooks.Name))
	out = c.must("invoke", "status", delivery)
	if !strings.Contains(out, `"batchItemFailures": null`) {
		t.Errorf("invoke status printed:\n%s", out)
	}
	if e, err := c.store.Emails.GetEmail(ctx, ws, id); err != nil || e.Status != email.StatusDelivered {
		t.Errorf("after the Delivery event the email is %+v (err %v), want delivered", e, err)
	}

	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte("not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"unknown function": {"invoke", "no-such-fn", bad},
		"missing file":     {"invoke", "get-email", filepath.Join(t.TempDir(), "absent.json")},
		"not an event":     {"invoke", "get-email", bad},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := c.run(args...); err == nil {
				t.Errorf("sesame %v succeeded", args)
			}
		})
	}
}
