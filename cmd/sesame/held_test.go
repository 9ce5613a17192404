package main

import (
	"errors"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/devstack"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/emulatortest"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/queue/queuetest"
	"github.com/sesame-mail/sesame/internal/review"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/ses"
)

// heldEmails puts held emails into a workspace as the send path does.
type heldEmails struct {
	t     *testing.T
	c     *consoleTable
	ws    string
	seen  map[string]bool // templates already held
	token string          // makes subjects unique in the shared SES emulator
}

// hold holds an email with body html; it returns the email's id.
func (h *heldEmails) hold(subject, html string) string {
	h.t.Helper()
	id := uuid.Must(uuid.NewV7()).String()
	fp := review.Fingerprint(html)
	he := sending.HeldEmail{
		Email: email.Email{
			ID: id, WorkspaceID: h.ws, To: "bob@example.org", Subject: subject + " " + h.token,
			Status: email.StatusHeld, Type: email.TypeTransactional, Environment: apikey.Live,
			SentAt: time.Now(), TrackingMode: email.TrackingFull,
		},
		Fingerprint: fp,
		Request:     sending.Request{To: "bob@example.org", Subject: subject + " " + h.token, HTML: html},
		From:        `"Acme" <hello@example.com>`,
		ReplyTo:     []string{"help@example.com"},
	}
	if _, err := h.c.store.Sends.HoldEmail(h.t.Context(), he, !h.seen[fp], nil); err != nil {
		h.t.Fatal(err)
	}
	h.seen[fp] = true
	return id
}

func (h *heldEmails) email(id string) email.Email {
	h.t.Helper()
	e, err := h.c.store.Emails.GetEmail(h.t.Context(), h.ws, id)
	if err != nil {
		h.t.Fatal(err)
	}
	return e
}

// emulatedSubjects counts the messages the SES emulator captured, by subject.
func emulatedSubjects(t *testing.T) map[string]int {
	t.Helper()
	all, err := ses.ReadEmulatorStore(t.Context(), os.Getenv("AWS_ENDPOINT_URL_SESV2"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, m := range all {
		out[m.Subject]++
	}
	return out
}

func TestHeldCommands(t *testing.T) {
	ctx := t.Context()
	emulatortest.Require(t, "AWS_ENDPOINT_URL_SESV2")
	c := newConsoleTable(t)
	// The console records the owner's decision and queues the review of
	// each email held with the template, as it does against a deployed
	// stack; the review function (here: the same consumer, driven by the
	// test) sends them through SES, the emulator.
	for _, name := range []string{"SESAME_CONFIG_SET_FULL", "SESAME_CONFIG_SET_ESSENTIAL", "SESAME_CONFIG_SET_OFF", "SESAME_WEBHOOKS_QUEUE_URL"} {
		t.Setenv(name, "")
	}
	queues := queuetest.New(t, queue.Review)
	t.Setenv("SESAME_REVIEW_QUEUE_URL", queues.URL(t, queue.Review.Name))
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	clients := api.NewClients(awsCfg, config.SDK{})
	clients.DynamoDB, clients.SQS = c.store.Table.DB, queuetest.Client(t)
	deps := api.NewDeps(config.API{DynamoDB: config.DynamoDB{Table: c.name}, ReviewQueue: config.ReviewQueue{ReviewQueueURL: queues.URL(t, queue.Review.Name)}}, clients, api.NewLogger(8))
	reviews := queues.Poller(t, queue.Review.Name, queue.NewConsumer(deps.Reviewer.Handle))
	reviewAll := func() {
		t.Helper()
		for range 10 {
			n, err := reviews.PollOnce(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				return
			}
		}
	}
	ws := c.createWorkspace("Acme")
	h := &heldEmails{t: t, c: c, ws: ws, seen: map[string]bool{}, token: uuid.NewString()}
	denyHTML := `<table><tr><td>Your code is <b>1234</b></td></tr></table>`
	clearHTML := `<div><p>Hello %s, your order has shipped.</p><a href="https://example.com/o">Track it</a></div>`
	denied := h.hold("Your code", denyHTML)
	cleared := h.hold("Order shipped", strings.Replace(clearHTML, "%s", "Bob", 1))
	sameTemplate := h.hold("Order shipped again", strings.Replace(clearHTML, "%s", "Ann", 1))
	// Same layout, but it names a brand the workspace does not own: only
	// the email the owner cleared by hand skips the brand check.
	foreign := h.hold("Your PayPal order", strings.Replace(clearHTML, "%s", "PayPal customer", 1))
	live := uuid.Must(uuid.NewV7()).String()
	if err := c.store.Emails.PutEmail(ctx, email.Email{ID: live, WorkspaceID: ws, To: "zed@example.org", Subject: "Not held",
		Status: email.StatusSent, Type: email.TypeTransactional, Environment: apikey.Live, SentAt: time.Now()}); err != nil {
		t.Fatal(err)
	}

	list := c.must("held", "list", "--workspace", ws)
	for _, id := range []string{denied, cleared, sameTemplate, foreign} {
		if !regexp.MustCompile(`(?m)^` + id + `\s+\S+\s+held\s+live\s+bob@example\.org\s+\S.*\snew template: its first security review is pending`).MatchString(list) {
			t.Errorf("held list does not show %s held for its new template:\n%s", id, list)
		}
	}
	if strings.Contains(list, live) || strings.Contains(list, "Not held") {
		t.Errorf("held list shows a sent email:\n%s", list)
	}
	views, _ := mustJSON[[]email.View](c, "held", "list", "--workspace", ws)
	var ids []string
	for _, v := range views {
		ids = append(ids, v.ID)
		if v.Status != email.StatusHeld {
			t.Errorf("held list --output json has %s with status %s", v.ID, v.Status)
		}
	}
	if want := []string{foreign, sameTemplate, cleared, denied}; !slices.Equal(ids, want) {
		t.Errorf("held list --output json ids = %v, want %v (newest first)", ids, want)
	}

	// deny: the email fails with the owner's reason; the template is denied.
	if out := c.must("held", "deny", denied, "--workspace", ws); !strings.HasPrefix(out, "denied "+denied) {
		t.Errorf("held deny printed %q", out)
	}
	reviewAll()
	if e := h.email(denied); e.Status != email.StatusFailed || !strings.Contains(e.Error, "denied by the workspace owner") {
		t.Errorf("denied email = status %s, error %q; want failed naming the owner", e.Status, e.Error)
	}
	if tpl, err := c.store.Held.GetTemplate(ctx, ws, review.Fingerprint(denyHTML)); err != nil || tpl.State != sending.TemplateDenied {
		t.Errorf("denied template = %+v (err %v)", tpl, err)
	}
	if _, err := c.store.Held.GetHeld(ctx, ws, denied); !errors.Is(err, sending.ErrNotHeld) {
		t.Errorf("denied email's held content: err = %v, want ErrNotHeld", err)
	}
	if e := h.email(cleared); e.Status != email.StatusHeld {
		t.Errorf("denying one template released another's email: %s", e.Status)
	}

	// clear: the email and the others held with its template are sent
	// through SES (the emulator).
	res, _ := mustJSON[map[string]string](c, "held", "clear", cleared, "--workspace", ws)
	if res["cleared"] != cleared {
		t.Errorf("held clear --output json = %v", res)
	}
	reviewAll()
	for _, id := range []string{cleared, sameTemplate} {
		if e := h.email(id); e.Status != email.StatusSent || e.Error != "" {
			t.Errorf("email %s after clear = status %s, error %q; want sent", id, e.Status, e.Error)
		}
	}
	// The email naming a foreign brand was not the one the owner looked at:
	// it stays held for a decision of its own.
	if e := h.email(foreign); e.Status != email.StatusHeld {
		t.Errorf("email naming a foreign brand after clear = status %s, error %q; want still held", e.Status, e.Error)
	}
	if tpl, err := c.store.Held.GetTemplate(ctx, ws, review.Fingerprint(clearHTML)); err != nil || tpl.State != sending.TemplateCleared {
		t.Errorf("cleared template = %+v (err %v)", tpl, err)
	}
	got := emulatedSubjects(t)
	for subject, want := range map[string]int{"Order shipped": 1, "Order shipped again": 1, "Your PayPal order": 0, "Your code": 0} {
		if n := got[subject+" "+h.token]; n != want {
			t.Errorf("SES emulator has %d messages %q, want %d", n, subject, want)
		}
	}
	if after := c.must("held", "list", "--workspace", ws); strings.Count(after, "\n") != 2 || !strings.Contains(after, foreign) ||
		!strings.Contains(after, "names a brand the workspace does not own: paypal") {
		t.Errorf("held list after the decisions should show only the foreign-brand email, and why:\n%s", after)
	}
	reasons, _ := mustJSON[[]struct {
		ID          string   `json:"id"`
		HeldBecause []string `json:"held_because"`
	}](c, "held", "list", "--workspace", ws)
	if len(reasons) != 1 || reasons[0].ID != foreign || !slices.Equal(reasons[0].HeldBecause, []string{"names a brand the workspace does not own: paypal"}) {
		t.Errorf("held list --output json = %+v, want the foreign-brand email and its reason", reasons)
	}
	// The owner denies it: that email alone fails; the template stays cleared.
	c.must("held", "deny", foreign, "--workspace", ws)
	reviewAll()
	if e := h.email(foreign); e.Status != email.StatusFailed || !strings.Contains(e.Error, "denied by the workspace owner") {
		t.Errorf("denied foreign-brand email = status %s, error %q", e.Status, e.Error)
	}
	if tpl, err := c.store.Held.GetTemplate(ctx, ws, review.Fingerprint(clearHTML)); err != nil || tpl.State != sending.TemplateCleared {
		t.Errorf("denying one email changed its cleared template: %+v (err %v)", tpl, err)
	}
	if e := h.email(live); e.Status != email.StatusSent {
		t.Errorf("a sent email was changed to %s", e.Status)
	}

	cases := map[string]struct {
		args    []string
		wantIs  error
		wantMsg string
	}{
		"clear an unknown id":        {args: []string{"held", "clear", uuid.NewString(), "--workspace", ws}, wantIs: sending.ErrNotHeld},
		"deny an unknown id":         {args: []string{"held", "deny", uuid.NewString(), "--workspace", ws}, wantIs: sending.ErrNotHeld},
		"clear a sent email":         {args: []string{"held", "clear", cleared, "--workspace", ws}, wantIs: sending.ErrNotHeld, wantMsg: cleared},
		"deny a released email":      {args: []string{"held", "deny", sameTemplate, "--workspace", ws}, wantIs: sending.ErrNotHeld},
		"clear in another workspace": {args: []string{"held", "clear", cleared, "--workspace", c.createWorkspace("Other")}, wantIs: sending.ErrNotHeld},
		"clear without workspace":    {args: []string{"held", "clear", cleared}, wantMsg: "--workspace is required"},
		"list without workspace":     {args: []string{"held", "list"}, wantMsg: "--workspace is required"},
		"clear without an id":        {args: []string{"held", "clear", "--workspace", ws}, wantMsg: "accepts 1 arg"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := c.run(tc.args...)
			checkFails(t, tc.args, out, err, tc.wantIs, tc.wantMsg)
		})
	}
	// Without the review queue nothing can release held email: the console
	// says what to set.
	t.Setenv("SESAME_REVIEW_QUEUE_URL", "")
	noQueue := []string{"held", "clear", h.hold("Queued nowhere", "<p>Nowhere</p>"), "--workspace", ws}
	out, err := c.run(noQueue...)
	checkFails(t, noQueue, out, err, nil, "SESAME_REVIEW_QUEUE_URL is not set")
	if n := emulatedSubjects(t)["Order shipped "+h.token]; n != 1 {
		t.Errorf("after the failed commands the cleared email was sent %d times, want once", n)
	}
	if e := h.email(sameTemplate); e.Status != email.StatusSent {
		t.Errorf("deny of a released email changed it to %s", e.Status)
	}
}

func TestCapturedList(t *testing.T) {
	ctx := t.Context()
	c := newConsoleTable(t)
	ws := c.createWorkspace("Acme")
	other := c.createWorkspace("Other")
	put := func(workspaceID string, env apikey.Environment, status email.Status, subject string) string {
		t.Helper()
		id := uuid.Must(uuid.NewV7()).String()
		if err := c.store.Emails.PutEmail(ctx, email.Email{ID: id, WorkspaceID: workspaceID, To: "bob@example.org", Subject: subject,
			Status: status, Type: email.TypeTransactional, Environment: env, SentAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
		return id
	}
	first := put(ws, apikey.Test, email.StatusSent, "Captured one")
	liveID := put(ws, apikey.Live, email.StatusSent, "Live one")
	second := put(ws, apikey.Test, email.StatusDelivered, "Captured two")
	foreign := put(other, apikey.Test, email.StatusSent, "Other workspace")

	list := c.must("captured", "list", "--workspace", ws)
	for id, subject := range map[string]string{first: "Captured one", second: "Captured two"} {
		if !regexp.MustCompile(`(?m)^` + id + `\s+\S+\s+\w+\s+test\s+bob@example\.org\s+` + subject + `\s*$`).MatchString(list) {
			t.Errorf("captured list does not show %s:\n%s", id, list)
		}
	}
	for _, absent := range []string{liveID, "Live one", foreign, "Other workspace"} {
		if strings.Contains(list, absent) {
			t.Errorf("captured list shows %q:\n%s", absent, list)
		}
	}
	views, _ := mustJSON[[]email.View](c, "captured", "list", "--workspace", ws)
	var ids []string
	for _, v := range views {
		ids = append(ids, v.ID)
		if v.Environment != string(apikey.Test) {
			t.Errorf("captured list --output json has %s in environment %q", v.ID, v.Environment)
		}
	}
	if want := []string{second, first}; !slices.Equal(ids, want) {
		t.Errorf("captured list --output json ids = %v, want %v (newest first)", ids, want)
	}
	if empty := c.must("captured", "list", "--workspace", c.createWorkspace("Empty"), "--output", "json"); strings.TrimSpace(empty) != "[]" {
		t.Errorf("captured list of an empty workspace = %q, want []", empty)
	}
	if _, err := c.run("captured", "list"); err == nil || !strings.Contains(err.Error(), "--workspace is required") {
		t.Errorf("captured list without --workspace: err = %v", err)
	}
}

// `captured show ID --raw` prints the exact MIME a test key's send built,
// which the local stack keeps (SESAME_LOCAL_DATA, from .sesame/dev.env).
func TestCapturedShow(t *testing.T) {
	ctx := t.Context()
	c := newConsoleTable(t)
	ws := c.createWorkspace("Acme")
	other := c.createWorkspace("Other")
	put := func(env apikey.Environment, subject string) string {
		t.Helper()
		id := uuid.Must(uuid.NewV7()).String()
		if err := c.store.Emails.PutEmail(ctx, email.Email{ID: id, WorkspaceID: ws, To: "bob@example.org", Subject: subject,
			Status: email.StatusSent, Type: email.TypeTransactional, Environment: env, SentAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
		return id
	}
	captured, noCopy, live := put(apikey.Test, "Captured"), put(apikey.Test, "Captured before"), put(apikey.Live, "Live")
	dataDir := t.TempDir()
	raw := []byte("From: hello@acme.test\r\nTo: bob@example.org\r\nSubject: Captured\r\n\r\nHi Bob \xe2\x80\x94 exactly these bytes\r\n")
	kept := &devstack.RawMessages{Dir: devstack.MIMEDir(dataDir)}
	if err := kept.Capture(ctx, sending.SendInput{Raw: raw, Tags: map[string]string{"email_id": captured, "workspace_id": ws}}); err != nil {
		t.Fatal(err)
	}

	out := c.must("captured", "show", captured, "--workspace", ws)
	for _, re := range []string{`(?m)^id\s+` + captured + `$`, `(?m)^environment\s+test$`, `(?m)^subject\s+Captured$`, `(?m)^to\s+bob@example\.org$`} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("captured show does not match %s:\n%s", re, out)
		}
	}
	if v, _ := mustJSON[email.View](c, "captured", "show", strings.ToUpper(captured), "--workspace", ws); v.ID != captured {
		t.Errorf("captured show --output json = %+v", v)
	}
	args := []string{"captured", "show", captured, "--raw", "--workspace", ws}
	out, err := c.run(args...)
	checkFails(t, args, out, err, email.ErrNoRawMessages, "source its settings")

	t.Setenv("SESAME_LOCAL_DATA", dataDir)
	if out := c.must("captured", "show", captured, "--raw", "--workspace", ws); out != string(raw) {
		t.Errorf("captured show --raw printed %q, want the kept bytes %q", out, raw)
	}
	cases := map[string]struct {
		args   []string
		wantIs error
	}{
		"a live email":                {[]string{"captured", "show", live, "--raw", "--workspace", ws}, email.ErrNotCaptured},
		"another workspace's":         {[]string{"captured", "show", captured, "--raw", "--workspace", other}, email.ErrNotFound},
		"not an id":                   {[]string{"captured", "show", "../../etc/passwd", "--raw", "--workspace", ws}, email.ErrNotFound},
		"captured before it was kept": {[]string{"captured", "show", noCopy, "--raw", "--workspace", ws}, devstack.ErrNoRawMessage},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := c.run(tc.args...)
			checkFails(t, tc.args, out, err, tc.wantIs, "")
			if out != "" {
				t.Errorf("a failed show printed %q", out)
			}
		})
	}
}
