package devstack_test

// Sending helpers: a workspace ready to send, send requests and answers,
// what reached SES and the review, the attachment file server, batches.

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/attachment/fetch"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/review"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/ses"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// plainHTML is the layout every send test pre-clears: the fingerprint
// ignores text, so any "<p>…</p>" body is this template.
const plainHTML = "<p>Hello there</p>"

// held is the owner's side of the review, as the console and the
// dashboard reach it.
func (e *env) held() *sending.Held {
	return &sending.Held{Emails: e.deps.Repos.Emails, Store: e.deps.Repos.Held, Workspaces: e.deps.Repos.Workspaces, Review: e.deps.Sending.Review}
}

// withService serves the env's routes on a second server whose send
// service is a copy changed by change. The running server is left
// untouched, so no field is written while its goroutines may read it.
func (e *env) withService(t *testing.T, change func(*sending.Service)) string {
	t.Helper()
	svc := *e.deps.Sending
	change(&svc)
	deps := e.deps
	deps.Sending = &svc
	h, err := api.Handler(deps)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// setFail sets the transport's fault under its lock.
func (f *fakeTransport) setFail(fail func(sending.SendInput) error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Fail = fail
}

// sendsTo returns what was handed to SES for recipient to.
func (f *fakeTransport) sendsTo(to string) []sending.SendInput {
	var out []sending.SendInput
	for _, s := range f.Sends() {
		if strings.EqualFold(s.To, to) {
			out = append(out, s)
		}
	}
	return out
}

// sendWS is a workspace ready to send: a verified domain with a default
// sender, a live and a test key.
type sendWS struct {
	id, key, testKey string
	sender           identity.Sender
}

const sendDomain = "acme.test"

func newSendWS(t *testing.T, e *env, defaultSender identity.Sender) *sendWS {
	t.Helper()
	ctx := t.Context()
	ws, err := e.store.Workspaces.CreateWorkspace(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := e.store.Keys.CreateKey(ctx, ws.ID, apikey.Live, "", apikey.FullAccess)
	if err != nil {
		t.Fatal(err)
	}
	testKey, _, err := e.store.Keys.CreateKey(ctx, ws.ID, apikey.Test, "", apikey.FullAccess)
	if err != nil {
		t.Fatal(err)
	}
	domain := sendDomain
	if n := e.sendWorkspaces.Add(1); n > 1 {
		// A domain belongs to one workspace; later ones send from their own.
		domain = fmt.Sprintf("ws%d.%s", n, sendDomain)
		defaultSender.Email = strings.Replace(defaultSender.Email, "@"+sendDomain, "@"+domain, 1)
	}
	if _, err := e.store.Domains.AddDomain(ctx, ws.ID, domain, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Domains.SetDomainStatus(ctx, ws.ID, domain, identity.DomainVerified, nil); err != nil {
		t.Fatal(err)
	}
	s := &sendWS{id: ws.ID, key: key, testKey: testKey}
	if defaultSender.Email != "" {
		if s.sender, err = e.store.Senders.AddSender(ctx, ws.ID, defaultSender, true); err != nil {
			t.Fatal(err)
		}
	}
	clearTemplate(t, e, ws.ID, plainHTML)
	return s
}

func defaultSender() identity.Sender {
	return identity.Sender{Name: "Acme", Email: "hello@" + sendDomain}
}

func clearTemplate(t *testing.T, e *env, workspaceID, html string) {
	t.Helper()
	if _, err := e.store.Held.DecideTemplate(t.Context(), workspaceID, review.Fingerprint(html), sending.TemplateCleared, nil, false); err != nil {
		t.Fatal(err)
	}
}

func (s *sendWS) update(t *testing.T, e *env, set workspace.Settings) {
	t.Helper()
	if _, err := e.store.Workspaces.UpdateWorkspace(t.Context(), s.id, set); err != nil {
		t.Fatal(err)
	}
}

func (s *sendWS) scopedKey(t *testing.T, e *env, scopes ...apikey.Scope) string {
	t.Helper()
	k, _, err := e.store.Keys.CreateKey(t.Context(), s.id, apikey.Live, "", scopes)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// rcpt is a unique recipient: the SES emulator's store is shared by every
// test of the process.
func rcpt(tag string) string { return tag + "-" + uuid.NewString()[:13] + "@example.com" }

// msg is a send request to a fresh recipient with the pre-cleared layout.
func msg(tag string, extra map[string]any) map[string]any {
	m := map[string]any{"to": rcpt(tag), "subject": "Order " + uuid.NewString(), "html": plainHTML}
	for k, v := range extra {
		if v == nil {
			delete(m, k)
			continue
		}
		m[k] = v
	}
	return m
}

type warning struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type sendResp struct {
	Success  *bool     `json:"success"`
	ID       string    `json:"id"`
	Status   string    `json:"status"`
	Message  string    `json:"message"`
	Error    *string   `json:"error"`
	Warnings []warning `json:"warnings"`
}

// sent checks a send answer's status code and shape.
func (r response) sent(t *testing.T, status int) sendResp {
	t.Helper()
	var b sendResp
	r.decode(t, status, &b)
	if b.Success == nil || b.Message == "" || b.Status == "" {
		t.Errorf("send answer lacks success, status or message: %s", r.body)
	}
	if _, err := uuid.Parse(b.ID); err != nil {
		t.Errorf("id %q is not a UUID", b.ID)
	}
	if r.header.Get("X-Request-Id") == "" {
		t.Error("no X-Request-Id")
	}
	return b
}

func (b sendResp) want(t *testing.T, success bool, status string) {
	t.Helper()
	if b.Success == nil || *b.Success != success || b.Status != status {
		t.Errorf("answer = success %v status %q, want %v %q (%+v)", deref(b.Success), b.Status, success, status, b)
	}
}

// emulated returns the messages the SES emulator captured with subject.
func emulated(t *testing.T, subject string) []ses.StoredEmail {
	t.Helper()
	all, err := ses.ReadEmulatorStore(t.Context(), os.Getenv("AWS_ENDPOINT_URL_SESV2"))
	if err != nil {
		t.Fatal(err)
	}
	var out []ses.StoredEmail
	for _, m := range all {
		if m.Subject == subject {
			out = append(out, m)
		}
	}
	return out
}

// reviewHeld runs the review consumer until it has taken n messages.
func (e *env) reviewHeld(t *testing.T, n int) {
	t.Helper()
	p := e.queues.Poller(t, queue.Review.Name, api.Consumers(e.deps)[routes.Review])
	got := 0
	for i := 0; got < n && i < 10; i++ {
		k, err := p.PollOnce(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		got += k
	}
	if got < n {
		t.Fatalf("review queue gave %d messages, want %d", got, n)
	}
}

func parseRaw(t *testing.T, raw []byte) *mail.Message {
	t.Helper()
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("raw message: %v", err)
	}
	return m
}

func addresses(t *testing.T, h mail.Header, name string) []string {
	t.Helper()
	if h.Get(name) == "" {
		return nil
	}
	list, err := h.AddressList(name)
	if err != nil {
		t.Fatalf("%s %q: %v", name, h.Get(name), err)
	}
	var out []string
	for _, a := range list {
		out = append(out, a.Address)
	}
	return out
}

// fileServer serves attachment test files on 127.0.0.2, the one address
// the test fetcher's guard lets through.
func fileServer(t *testing.T, redirectTo string) string {
	t.Helper()
	big := bytes.Repeat([]byte("%PDF-0123456789abcdef"), (8<<20)/21)
	mux := http.NewServeMux()
	mux.HandleFunc("/missing.pdf", http.NotFound)
	mux.HandleFunc("/slow.pdf", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	mux.HandleFunc("/redirect.pdf", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, redirectTo, http.StatusFound)
	})
	mux.HandleFunc("/big.pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		_, _ = w.Write(big)
	})
	return allowedServer(t, mux)
}

// allowedFetcher is an attachment fetcher that reaches allowedServer's
// address and gives up after timeout.
func allowedFetcher(timeout time.Duration) *fetch.Fetcher {
	allowed := []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}
	return fetch.New(fetch.Options{AllowedPrefixes: allowed, Timeout: timeout})
}

// withFileServerFetcher serves the env's routes with an attachment fetcher
// that reaches fileServer's address and gives up after timeout.
func (e *env) withFileServerFetcher(t *testing.T, timeout time.Duration) string {
	t.Helper()
	return e.withService(t, func(s *sending.Service) {
		s.Attachments = allowedFetcher(timeout)
	})
}

type batchItem struct {
	Index   int    `json:"index"`
	Success *bool  `json:"success"`
	ID      string `json:"id"`
	Status  string `json:"status"`
	Message string `json:"message"`
	Error   *struct {
		Code    string  `json:"code"`
		Message string  `json:"message"`
		Param   *string `json:"param"`
	} `json:"error"`
}

func (r response) batch(t *testing.T, n int) []batchItem { return indexedItems[batchItem](t, r, n) }

// indexed is an item of a per-item answer (a batch send, a list of
// addresses added), which says its place in the request.
type indexed interface{ itemIndex() int }

func (b batchItem) itemIndex() int { return b.Index }

// indexedItems decodes a per-item answer of n items, each at its index.
func indexedItems[T indexed](t *testing.T, r response, n int) []T {
	t.Helper()
	var b struct {
		Data []T `json:"data"`
	}
	r.decode(t, http.StatusOK, &b)
	if len(b.Data) != n {
		t.Fatalf("%d items, want %d: %.300s", len(b.Data), n, r.body)
	}
	for i, it := range b.Data {
		if it.itemIndex() != i {
			t.Errorf("item %d has index %d", i, it.itemIndex())
		}
	}
	return b.Data
}
