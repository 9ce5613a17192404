package post_test

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/webhook"
	"github.com/sesame-mail/sesame/internal/webhook/post"
)

// receiver is an httptest server on a chosen loopback address that keeps
// the last request's headers and body.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	header http.Header
	body   string
}

func newReceiver(t *testing.T, addr string, answer http.HandlerFunc) *receiver {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	rc := &receiver{}
	rc.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := new(strings.Builder)
		_, _ = io.Copy(b, r.Body)
		rc.mu.Lock()
		rc.header, rc.body = r.Header.Clone(), b.String()
		rc.mu.Unlock()
		answer(w, r)
	}))
	rc.Listener.Close()
	rc.Listener = l
	rc.Start()
	t.Cleanup(rc.Close)
	return rc
}

var testPrefixes = []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}

// Success is a 2xx within 10 s: a client built without a timeout uses
// DefaultTimeout, which is 10 s.
func TestNewClientDefaultTimeout(t *testing.T) {
	if webhook.DefaultTimeout != 10*time.Second {
		t.Fatalf("DefaultTimeout = %v, want 10s", webhook.DefaultTimeout)
	}
	cases := map[string]struct {
		timeout time.Duration
		want    time.Duration
	}{
		"no timeout":       {timeout: 0, want: webhook.DefaultTimeout},
		"negative timeout": {timeout: -time.Second, want: webhook.DefaultTimeout},
		"own timeout":      {timeout: 3 * time.Second, want: 3 * time.Second},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := post.NewClient(post.Options{Timeout: tc.timeout})
			if c.HTTP.Timeout != tc.want {
				t.Errorf("client timeout = %v, want %v", c.HTTP.Timeout, tc.want)
			}
		})
	}
}

func TestNewClientRefusesPrivateAddresses(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, "127.0.0.2:0", func(w http.ResponseWriter, _ *http.Request) {})
	cases := map[string]struct {
		allowed []netip.Prefix
		wantOK  bool
	}{
		"production guard":          {wantOK: false},
		"test receiver allowed":     {allowed: testPrefixes, wantOK: true},
		"another loopback allowed":  {allowed: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, wantOK: false},
		"dev stack allows loopback": {allowed: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, wantOK: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := post.NewClient(post.Options{AllowedPrefixes: tc.allowed, Timeout: 2 * time.Second})
			_, err := c.Post(t.Context(), rc.URL, map[string]string{"Content-Type": "application/json"}, []byte("{}"))
			if (err == nil) != tc.wantOK {
				t.Errorf("POST err = %v, want ok %v", err, tc.wantOK)
			}
			if err != nil && fail.MessageOf(err) != "endpoint is not publicly reachable" {
				t.Errorf("message = %q", fail.MessageOf(err))
			}
		})
	}
}

// The POST carries the given headers and the body byte for byte; a
// redirect comes back as it is.
func TestPost(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, "127.0.0.2:0", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	})
	c := post.NewClient(post.Options{AllowedPrefixes: testPrefixes, Timeout: 2 * time.Second})
	body := `{"a":"zoë \u2028"}`
	status, err := c.Post(t.Context(), rc.URL+"/hook", map[string]string{webhook.HeaderEventID: "evt_1"}, []byte(body))
	if err != nil || status != http.StatusAccepted {
		t.Fatalf("Post = %d, %v", status, err)
	}
	rc.mu.Lock()
	if rc.body != body || rc.header.Get(webhook.HeaderEventID) != "evt_1" {
		t.Errorf("received %q with %v", rc.body, rc.header)
	}
	rc.mu.Unlock()
	if status, err := c.Post(t.Context(), rc.URL+"/moved", nil, nil); err != nil || status != http.StatusFound {
		t.Errorf("redirect: Post = %d, %v; want the 302 itself", status, err)
	}
}

// No answer is an error whose message names no address, with the cause
// kept for logs.
func TestPostFailures(t *testing.T) {
	t.Parallel()
	c := post.NewClient(post.Options{AllowedPrefixes: testPrefixes, Timeout: 2 * time.Second})
	_, err := c.Post(t.Context(), "http://127.0.0.2:1/hook", nil, nil)
	if got := fail.MessageOf(err); got != "endpoint refused the connection or is unreachable" {
		t.Errorf("refused: message %q", got)
	}
	var opErr *net.OpError
	if !errors.As(err, &opErr) {
		t.Errorf("refused: cause lost: %v", err)
	}
	_, err = c.Post(t.Context(), "http://bad host/", nil, nil)
	if got := fail.MessageOf(err); got != "invalid endpoint URL" {
		t.Errorf("bad URL: message %q", got)
	}
}
