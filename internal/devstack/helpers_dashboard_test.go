package devstack_test

// The dashboard's harness: a workspace with an owner on the dev server,
// sign-in links read back from the SES emulator, plain HTTP clients with a
// cookie jar, and one headless Chromium shared by the package's tests.

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp/kb"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/ses"
)

// dash is a workspace of the dev server and its owner's address.
type dash struct {
	*env
	ws, owner string
}

// startDashboard starts a dev server with a workspace owned by a fresh
// address (the SES emulator's store is shared: each test reads its own).
func startDashboard(t *testing.T) *dash {
	t.Helper()
	e := startDev(t)
	address := "owner-" + uuid.NewString()[:8] + "@example.com"
	return &dash{env: e, ws: e.ownedWorkspace(t, address), owner: address}
}

// ownedWorkspace creates a workspace (with a live key) owned by address.
func (e *env) ownedWorkspace(t *testing.T, address string) string {
	t.Helper()
	ws, _ := e.workspace(apikey.Live)
	if _, err := (&account.Owners{Store: e.store.Owners}).Add(t.Context(), ws, address); err != nil {
		t.Fatal(err)
	}
	return ws
}

// noRedirects is a client that keeps cookies and shows redirects as they
// are.
func noRedirects() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// page is an answer of the dashboard.
type page struct {
	status int
	header http.Header
	body   string
}

// dashDo sends a request to the dashboard path with c; form, when not
// nil, is POSTed.
func (e *env) dashDo(t *testing.T, c *http.Client, path string, form url.Values, header ...string) page {
	t.Helper()
	method, body := http.MethodGet, io.Reader(nil)
	if form != nil {
		method, body = http.MethodPost, strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(t.Context(), method, e.url+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return page{status: res.StatusCode, header: res.Header, body: string(b)}
}

var signInLinkRE = regexp.MustCompile(`https?://\S+/dashboard/sign-in/[A-Za-z0-9_-]+`)

// signInLinks are the links the SES emulator captured for address, oldest
// first.
func signInLinks(t *testing.T, address string) []string {
	t.Helper()
	all, err := ses.ReadEmulatorStore(t.Context(), os.Getenv("AWS_ENDPOINT_URL_SESV2"))
	if err != nil {
		t.Fatal(err)
	}
	var links []string
	for _, m := range all {
		for _, to := range m.Destination.To {
			if strings.Contains(to, address) {
				links = append(links, signInLinkRE.FindString(m.Body.Text))
			}
		}
	}
	return links
}

// requestLink asks for a link for address with c and returns the newest
// link the emulator got for it.
func (e *env) requestLink(t *testing.T, c *http.Client, address string) string {
	t.Helper()
	before := len(signInLinks(t, address))
	if p := e.dashDo(t, c, "/dashboard/sign-in", url.Values{"email": {address}}); p.status != http.StatusOK {
		t.Fatalf("POST sign-in: %d %s", p.status, p.body)
	}
	links := signInLinks(t, address)
	if len(links) != before+1 {
		t.Fatalf("the SES emulator has %d links for %s, want %d", len(links), address, before+1)
	}
	return links[len(links)-1]
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// signIn signs address in with a new client; it returns the client and
// the session's CSRF token.
func (e *env) signIn(t *testing.T, address string) (*http.Client, string) {
	t.Helper()
	c := noRedirects()
	link := e.requestLink(t, c, address)
	p := e.dashDo(t, c, strings.TrimPrefix(link, e.url), url.Values{})
	if p.status != http.StatusSeeOther {
		t.Fatalf("POST link: %d %s", p.status, p.body)
	}
	home := e.dashDo(t, c, "/dashboard/", nil)
	m := csrfRE.FindStringSubmatch(home.body)
	if home.status != http.StatusOK || m == nil {
		t.Fatalf("overview after sign-in: %d %s", home.status, home.body)
	}
	return c, m[1]
}

// The browser the package's tests share (closed by TestMain).
var chrome struct {
	once   sync.Once
	ctx    context.Context
	err    error
	closer func()
}

// chromiumPath is Debian's Chromium, installed by make test
// (localstack/chromium.sh).
func chromiumPath(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("SESAME_REQUIRE_EMULATORS") != "" {
			t.Fatal("chromium is not installed: make test installs it (localstack/chromium.sh)")
		}
		t.Skip("chromium is not installed; make test installs it")
	}
	return path
}

// newTab is a tab of the shared browser in a browser context of its own
// (its own cookies), closed when the test ends.
func newTab(t *testing.T) context.Context {
	t.Helper()
	path := chromiumPath(t)
	chrome.once.Do(func() {
		dir, err := os.MkdirTemp("", "sesame-chromium-")
		if err != nil {
			chrome.err = err
			return
		}
		opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.UserDataDir(dir),
			chromedp.Flag("disable-gpu", true), chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true),
			chromedp.WindowSize(1280, 900))
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		var copts []chromedp.ContextOption
		if os.Getenv("SESAME_CDP_DEBUG") != "" { // every DevTools message, to diagnose a hung step
			copts = append(copts, chromedp.WithDebugf(func(f string, a ...any) { fmt.Fprintf(os.Stderr, time.Now().Format("15:04:05.000 ")+f+"\n", a...) }))
		}
		ctx, cancel := chromedp.NewContext(alloc, copts...)
		chrome.ctx, chrome.err = ctx, chromedp.Do(ctx)
		chrome.closer = func() { cancel(); cancelAlloc(); os.RemoveAll(dir) }
	})
	if chrome.err != nil {
		t.Fatalf("start chromium: %v", chrome.err)
	}
	tab, cancel := chromedp.NewContext(chrome.ctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	// chromedp binds a tab's event loop to the context of its first run: it
	// is attached here, with the tab's own context, so that the steps'
	// time limits end a step and never the tab.
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	return tab
}

// closeBrowser ends the shared browser, if one started.
func closeBrowser() {
	if chrome.closer != nil {
		chrome.closer()
	}
}

// stepLimit guards each browser step against a hung page; it is not a
// speed check, and it is generous, since a 2-core machine runs other
// packages' tests beside the browser.
const stepLimit = 90 * time.Second

// do runs a in the tab within stepLimit, failing t with what the tab shows
// on an error.
func do[T any](t *testing.T, tab context.Context, a chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, stepLimit)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%v; the tab shows: %s", err, showPage(tab))
	}
	return v
}

// run runs steps in the tab, failing t on an error.
func run(t *testing.T, tab context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	do(t, tab, chromedp.Steps(steps...))
}

// click presses the button sel from the keyboard: focused, then Enter, as
// a keyboard user would (every action must be keyboard reachable). A mouse
// click at the button's coordinates missed now and then: with several tabs
// open, a tab's hit test could lag behind its scroll.
func click(sel css) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(chromedp.Focus(sel), chromedp.KeyEvent(kb.Enter))
}

// showPage is the tab's address, its state and the start of its text.
func showPage(tab context.Context) string {
	ctx, cancel := context.WithTimeout(tab, 10*time.Second)
	defer cancel()
	page, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + " " + document.readyState + ": " + (document.body ? document.body.innerText.slice(0, 600) : "")`))
	if err != nil {
		return "(unreadable: " + err.Error() + ")"
	}
	return page
}

// eval is the value of a script in the tab's page, awaited when it is a
// promise.
func eval[T any](t *testing.T, tab context.Context, script string) T {
	t.Helper()
	return do(t, tab, chromedp.Evaluate[T](script, chromedp.EvalAwaitPromise))
}

// axeSource is axe-core, pinned in localstack/package.json.
var axeSource = sync.OnceValues(func() ([]byte, error) {
	return os.ReadFile(filepath.Join("..", "..", "localstack", "node_modules", "axe-core", "axe.min.js"))
})

// checkA11y runs axe-core on the tab's page: no serious or critical
// violation. DevTools evaluation is not subject to the page's CSP.
func checkA11y(t *testing.T, tab context.Context, name string) {
	t.Helper()
	src, err := axeSource()
	if err != nil {
		t.Fatalf("axe-core (npm, make deps): %v", err)
	}
	run(t, tab, chromedp.Evaluate[chromedp.Void](string(src)))
	violations := eval[[]string](t, tab, `axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations
		.filter(v => v.impact === "serious" || v.impact === "critical")
		.map(v => v.id + " (" + v.impact + "): " + v.help + " at " + v.nodes.map(n => n.target.join(" ")).join(", ")))`)
	for _, v := range violations {
		t.Errorf("%s: %s", name, v)
	}
}

// screenshot writes the tab's page to $SESAME_SCREENSHOTS/<name>.png when
// that folder is set (make screenshots).
func screenshot(t *testing.T, tab context.Context, name string) {
	t.Helper()
	dir := os.Getenv("SESAME_SCREENSHOTS")
	if dir == "" {
		return
	}
	png := do(t, tab, chromedp.FullScreenshot(100))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// visit opens the dashboard path in the tab, checks the page's
// accessibility and takes its screenshot.
func (e *env) visit(t *testing.T, tab context.Context, path, name string) {
	t.Helper()
	run(t, tab, chromedp.Navigate(e.url+path), chromedp.WaitVisible(chromedp.CSS("main h1")))
	checkA11y(t, tab, name)
	screenshot(t, tab, name)
}

// value is the value of the form control sel.
func value(t *testing.T, tab context.Context, sel string) string {
	t.Helper()
	return do(t, tab, chromedp.Value(chromedp.CSS(sel)))
}
