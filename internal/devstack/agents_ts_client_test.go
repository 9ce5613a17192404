package devstack_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/account"
)

// tsClientOut is a line the TypeScript client writes (localstack/mcp-ts-client.mjs).
type tsClientOut struct {
	Step     string   `json:"step"`
	URL      string   `json:"url"`
	Message  string   `json:"message"`
	ClientID string   `json:"client_id"`
	Scope    string   `json:"scope"`
	Tools    []string `json:"tools"`
	Sent     struct {
		ID, Subject, HTML string
	} `json:"sent"`
	Got struct {
		IsError bool `json:"isError"`
		Email   struct {
			Data struct{ ID, To, Subject, Status string }
		} `json:"email"`
	} `json:"got"`
	Denied struct {
		IsError bool      `json:"isError"`
		Error   toolError `json:"error"`
	} `json:"denied"`
}

// An assistant nobody here wrote: the official TypeScript SDK's client,
// with its own OAuth flow (discovery from the 401, dynamic registration,
// PKCE, a loopback redirect URI), connects to the stack. The owner
// consents in Chromium, signing in on the way and unticking
// contacts:write; the client lists the tools, sends an email, reads it
// back, and a tool it was not granted fails as a tool error carrying
// insufficient_scope. The recipient got exactly the email it sent.
func TestMCPTypeScriptClient(t *testing.T) {
	script, err := filepath.Abs(filepath.Join("..", "..", "localstack", "mcp-ts-client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join("..", "..", "localstack", "node_modules", "@modelcontextprotocol", "sdk")); errors.Is(err, fs.ErrNotExist) {
		t.Fatal("@modelcontextprotocol/sdk is not installed: run `make deps` (npm ci in localstack)")
	}
	tab := newTab(t)
	k := startKept(t, nil)
	s := newSendWS(t, k.env, defaultSender())
	owner := "owner-" + uuid.NewString()[:8] + "@example.com"
	if _, err := (&account.Owners{Store: k.store.Owners}).Add(t.Context(), s.id, owner); err != nil {
		t.Fatal(err)
	}
	to := rcpt("ts-agent")

	cmd := exec.CommandContext(t.Context(), "node", script, k.url+"/mcp", to, s.sender.Email)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 1<<20)
	next := func() tsClientOut {
		t.Helper()
		if !lines.Scan() {
			cmd.Wait()
			t.Fatalf("the client ended without a line (%v); stderr:\n%s", lines.Err(), stderr.Bytes())
		}
		var out tsClientOut
		if err := json.Unmarshal(lines.Bytes(), &out); err != nil {
			t.Fatalf("client line %q: %v", lines.Text(), err)
		}
		if out.Step == "error" {
			t.Fatalf("the client failed: %s\nstderr:\n%s", out.Message, stderr.Bytes())
		}
		return out
	}

	authorize := next()
	u, err := url.Parse(authorize.URL)
	if authorize.Step != "authorize" || err != nil || !strings.HasPrefix(authorize.URL, k.url+"/dashboard/connect?") {
		t.Fatalf("first line %+v: want the consent screen's URL", authorize)
	}
	if q := u.Query(); q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("client_id") == "" {
		t.Errorf("authorization URL %s: want PKCE S256 and a registered client", authorize.URL)
	}
	run(t, tab, chromedp.Navigate(authorize.URL), chromedp.WaitVisible(css("#email")))
	run(t, tab, chromedp.SendKeys(css("#email"), owner), click(css("main button[type=submit]")),
		chromedp.WaitVisible(css("main [role=status]")))
	links := signInLinks(t, owner)
	if len(links) != 1 {
		t.Fatalf("the SES emulator has %d links for the owner, want 1", len(links))
	}
	run(t, tab, chromedp.Navigate(links[0]), chromedp.WaitVisible(css("main button[type=submit]")))
	run(t, tab, click(css("main button[type=submit]")), chromedp.WaitVisible(css("#approve")))
	if got := eval[string](t, tab, `document.querySelector("#client-name").innerText`); got != "TypeScript SDK assistant" {
		t.Errorf("consent names %q, want the client's registered name", got)
	}
	box := css(`input[name=grant][value="contacts:write"]`)
	run(t, tab, chromedp.Steps(chromedp.Focus(box), chromedp.KeyEvent(" ")))
	if eval[bool](t, tab, `document.querySelector('input[name=grant][value="contacts:write"]').checked`) {
		t.Fatal("contacts:write is still ticked")
	}
	run(t, tab, click(css("#approve")), chromedp.WaitVisible(css("#done")))

	done := next()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("client: %v\n%s", err, stderr.Bytes())
	}
	if done.Step != "done" {
		t.Fatalf("last line %+v", done)
	}
	scopes := strings.Fields(done.Scope)
	if !slices.Contains(scopes, "email:send") || !slices.Contains(scopes, "emails:read") || slices.Contains(scopes, "contacts:write") {
		t.Errorf("token scope %q: want what the owner kept, without contacts:write", done.Scope)
	}
	for _, want := range []string{"send_email", "get_email", "create_contact", "list_segments"} {
		if !slices.Contains(done.Tools, want) {
			t.Errorf("tools %v lack %s", done.Tools, want)
		}
	}
	if got := done.Got.Email.Data; done.Got.IsError || got.ID != done.Sent.ID || got.To != to || got.Subject != done.Sent.Subject {
		t.Errorf("get_email answered %+v, want email %s to %s", done.Got, done.Sent.ID, to)
	}
	if e := done.Denied.Error; !done.Denied.IsError || e.Code != "insufficient_scope" || !strings.Contains(e.Message, "contacts:write") {
		t.Errorf("create_contact without contacts:write: %+v", done.Denied)
	}
	k.box(t, s.id).Check(t, sentHTML(to, done.Sent.Subject, done.Sent.HTML))
}
