package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/google/uuid"

	automationrunner "github.com/sesame-mail/sesame/internal/api/automations/runner"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/queue/batch"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// A test key's run, executed by the runner: `automations runs` lists it,
// `automations run` shows its step log, `captured list` shows the email
// it captured, type automation.
func TestAutomationRunCommands(t *testing.T) {
	c := newConsoleTable(t)
	ws := c.createWorkspace("Acme")
	a := newRunWorkspace(t, c, ws)
	steps := []automation.Step{
		{Type: automation.StepSend, Subject: `Your {{ event.product_name | "items" }} wait`, HTML: `<p>Still there?</p>`},
		{Type: automation.StepTag, Add: []string{"reminded"}},
	}
	run := a.run(steps, map[string]string{"product_name": "Linen shirt"})

	list := c.automations("runs", a.automation, "--workspace", ws)
	if !regexp.MustCompile(`(?m)^` + run.ID + `\s+` + run.ContactID + `\s+completed\s+2\s+-\s+\S+\s*$`).MatchString(list) {
		t.Errorf("runs does not show the completed run:\n%s", list)
	}
	var page automation.RunList
	if err := json.Unmarshal([]byte(c.automations("runs", a.automation, "--workspace", ws, "--output", "json")), &page); err != nil || len(page.Runs) != 1 || page.Runs[0].ID != run.ID {
		t.Errorf("runs --output json = %+v, %v", page, err)
	}

	shown := c.automations("run", strings.ToUpper(run.ID), "--workspace", ws)
	emailID := automation.EmailID(run, 0)
	for _, line := range []string{
		`status\s+completed`, `payload\.product_name\s+Linen shirt`, `environment\s+test`,
		`0\s+send\s+\S+\s+captured\s+` + emailID, `1\s+tag\s+\S+\s+\S+\s+-`,
	} {
		if !regexp.MustCompile(`(?m)^` + line).MatchString(shown) {
			t.Errorf("run does not show %q:\n%s", line, shown)
		}
	}

	captured := c.must("captured", "list", "--workspace", ws)
	if !regexp.MustCompile(`(?m)^` + emailID + `\s+\S+\s+\w+\s+test\s+ada@example\.org\s+Your Linen shirt wait\s*$`).MatchString(captured) {
		t.Errorf("captured list does not show the automation's email %s:\n%s", emailID, captured)
	}
	views, _ := mustJSON[[]email.View](c, "captured", "list", "--workspace", ws)
	if len(views) != 1 || views[0].Type != email.TypeAutomation {
		t.Errorf("captured list --output json = %+v, want the one automation email", views)
	}

	for args, want := range map[string]string{
		"run " + uuid.NewString():                "is not a run of the workspace",
		"runs not-an-id":                         "is not an automation id",
		"runs " + a.automation + " --limit 101":  "--limit must be between 1 and 100",
		"runs " + a.automation + " --after junk": "--after \"junk\" is not a run id",
	} {
		argv := append(strings.Fields(args), "--workspace", ws)
		out, err := c.run(append([]string{"automations"}, argv...)...)
		checkFails(t, argv, out, err, nil, want)
	}
}

// A run whose send step could not send (its sender's domain is no
// longer verified) is listed failed, and `automations run` shows why.
func TestAutomationRunCommandsShowAFailedRun(t *testing.T) {
	c := newConsoleTable(t)
	ws := c.createWorkspace("Acme")
	a := newRunWorkspace(t, c, ws)
	domain := "acme-" + strings.ToLower(ws[len(ws)-8:]) + ".example"
	if _, err := c.store.Domains.SetDomainStatus(t.Context(), ws, domain, identity.DomainFailed, nil); err != nil {
		t.Fatal(err)
	}
	run := a.runEnding([]automation.Step{{Type: automation.StepSend, Subject: "Hello", HTML: "<p>Hello</p>"}}, nil, automation.RunFailed)
	list := c.automations("runs", a.automation, "--workspace", ws)
	if !regexp.MustCompile(`(?m)^` + run.ID + `\s+` + run.ContactID + `\s+failed\s+0\s+-\s+\S+\s*$`).MatchString(list) {
		t.Errorf("runs does not show the failed run:\n%s", list)
	}
	shown := c.automations("run", run.ID, "--workspace", ws)
	for _, line := range []string{`status\s+failed`, `reason\s+the default sender cannot send: hello@` + regexp.QuoteMeta(domain) + ` is not on a verified domain`, `0\s+send\s+\S+\s+failed\s+-\s+the default sender cannot send`} {
		if !regexp.MustCompile(`(?m)^` + line).MatchString(shown) {
			t.Errorf("run does not show %q:\n%s", line, shown)
		}
	}
}

// automations runs a command of `sesame automations` that has to succeed.
func (c *consoleTable) automations(args ...string) string {
	c.t.Helper()
	return c.must(append([]string{"automations"}, args...)...)
}

// runWorkspace is a workspace that sends automation email: a verified
// default sender and a postal address, one automation and a contact.
type runWorkspace struct {
	t                            *testing.T
	c                            *consoleTable
	ws, automation, contactEmail string
	contactID                    string
}

func newRunWorkspace(t *testing.T, c *consoleTable, ws string) *runWorkspace {
	t.Helper()
	ctx := t.Context()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	domain := "acme-" + strings.ToLower(ws[len(ws)-8:]) + ".example"
	_, err := c.store.Domains.AddDomain(ctx, ws, domain, nil)
	must(err)
	_, err = c.store.Domains.SetDomainStatus(ctx, ws, domain, identity.DomainVerified, nil)
	must(err)
	_, err = c.store.Senders.AddSender(ctx, ws, identity.Sender{Name: "Acme", Email: "hello@" + domain}, true)
	must(err)
	postal := "1 Main Street, Springfield"
	_, err = c.store.Workspaces.UpdateWorkspace(ctx, ws, workspace.Settings{PostalAddress: &postal})
	must(err)
	now := time.Now().UTC()
	ct := contact.Contact{ID: uuid.Must(uuid.NewV7()).String(), WorkspaceID: ws, Email: "ada@example.org", Subscribed: true, CreatedAt: now, UpdatedAt: now}
	must(c.store.Contacts.CreateContact(ctx, ct))
	return &runWorkspace{t: t, c: c, ws: ws, automation: uuid.Must(uuid.NewV7()).String(), contactEmail: ct.Email, contactID: ct.ID}
}

// run keeps steps as the automation's version 1 (the items the
// definitions write), starts a test key's run of it and has the runner
// execute it; it returns the run, which must have completed.
func (w *runWorkspace) run(steps []automation.Step, payload map[string]string) automation.Run {
	return w.runEnding(steps, payload, automation.RunCompleted)
}

// runEnding is run for a run that must end as want.
func (w *runWorkspace) runEnding(steps []automation.Step, payload map[string]string, want automation.RunStatus) automation.Run {
	t, ctx, store := w.t, w.t.Context(), w.c.store
	t.Helper()
	js, err := json.Marshal(steps)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	prefix := "WS#" + w.ws + "#"
	for _, item := range []map[string]string{
		{"pk": prefix + "AUTOMATION", "sk": w.automation, "id": w.automation},
		{"pk": prefix + "AUTOVER#" + w.automation, "sk": "000001", "steps": string(js), "created_at": now.Format(time.RFC3339Nano)},
	} {
		av, err := attributevalue.MarshalMap(item)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.Table.DB.PutItem(ctx, &dynamodb.PutItemInput{TableName: &store.Table.Name, Item: av}); err != nil {
			t.Fatal(err)
		}
	}
	r := automation.Run{ID: uuid.Must(uuid.NewV7()).String(), WorkspaceID: w.ws, AutomationID: w.automation, Version: 1,
		ContactID: w.contactID, Event: "cart_abandoned", EventKey: uuid.NewString(), Environment: apikey.Test, Payload: payload,
		Status: automation.RunActive, DueAt: now, StartedAt: now, UpdatedAt: now}
	if out, err := store.AutomationRuns.StartRun(ctx, r); err != nil || out != automation.OutcomeStarted {
		t.Fatalf("start run: %s, %v", out, err)
	}
	// A test key's run never reaches SES nor the queues: no clients.
	runner := automationrunner.NewRunner(store.Table, config.AutomationRunner{
		PublicURL: config.PublicURL{PublicURL: "https://mail.acme.example"}, Unsubscribing: config.Unsubscribing{UnsubscribeSecret: "s"},
	}, automationrunner.Deps{})
	body, err := json.Marshal(automation.WakeMessage{WorkspaceID: w.ws, AutomationID: w.automation, RunID: r.ID})
	if err != nil {
		t.Fatal(err)
	}
	if retry := runner.Handle(ctx, []batch.Message{{ID: "m", Body: string(body), ReceiveCount: 1}}); len(retry) > 0 {
		t.Fatal("the runner asked for the run again")
	}
	ended, err := store.AutomationRuns.GetRun(ctx, w.ws, w.automation, r.ID)
	if err != nil || ended.Status != want {
		t.Fatalf("run = %+v, %v; want %s", ended, err, want)
	}
	return ended
}
