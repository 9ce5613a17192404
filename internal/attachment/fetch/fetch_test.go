package fetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"code.dny.dev/ssrf"

	"github.com/sesame-mail/sesame/internal/attachment"
	"github.com/sesame-mail/sesame/internal/attachment/attachmenttest"
	"github.com/sesame-mail/sesame/internal/fail"
)

// server is an httptest server bound to a chosen address that counts the
// connections it accepted, so a test can prove the guard never connected.
type server struct {
	*httptest.Server
	conns atomic.Int64
}

func (s *server) port() int { return s.Listener.Addr().(*net.TCPAddr).Port }

func serve(t *testing.T, network, addr string, h http.Handler) *server {
	t.Helper()
	l, err := net.Listen(network, addr)
	if err != nil {
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	s := &server{Server: httptest.NewUnstartedServer(h)}
	s.Listener.Close()
	s.Listener = l
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// fileServer answers the paths the fetch tests use.
func fileServer(t *testing.T, loopback *server) (*server, *atomic.Value) {
	var ua atomic.Value
	mux := http.NewServeMux()
	mux.HandleFunc("/file.pdf", func(w http.ResponseWriter, r *http.Request) {
		ua.Store(r.Header.Get("User-Agent"))
		w.Header().Set("Content-Type", "application/pdf")
		w.Write(attachmenttest.PDF)
	})
	mux.HandleFunc("/octet", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(attachmenttest.PDF)
	})
	mux.HandleFunc("/named-type", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", `application/pdf; name="payload.exe"`)
		w.Write(attachmenttest.PDF)
	})
	mux.HandleFunc("/bad-type", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "nonsense")
		w.Write(attachmenttest.PDF)
	})
	mux.HandleFunc("/missing", http.NotFound)
	mux.HandleFunc("/empty", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select { // until the client gives up
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	mux.HandleFunc("/bytes/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		w.Header().Set("Content-Length", strconv.Itoa(n))
		w.Write(bytes.Repeat([]byte("x"), n))
	})
	mux.HandleFunc("/chunked/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		for range n / 256 {
			w.Write(bytes.Repeat([]byte("x"), 256))
			w.(http.Flusher).Flush() // no Content-Length: the cap must hold while reading
		}
	})
	mux.HandleFunc("/r/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		if n == 0 {
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("landed"))
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/r/%d", n-1), http.StatusFound)
	})
	mux.HandleFunc("/status/{code}", func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(r.PathValue("code"))
		w.WriteHeader(code)
	})
	mux.HandleFunc("/to-loopback", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, fmt.Sprintf("http://127.0.0.1:%d/x", loopback.port()), http.StatusFound)
	})
	mux.HandleFunc("/to-ftp", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "ftp://127.0.0.2/x.pdf", http.StatusFound)
	})
	return serve(t, "tcp", "127.0.0.2:0", mux), &ua
}

var testPrefixes = []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}

// fetchOne resolves one URL attachment.
func fetchOne(t *testing.T, f *Fetcher, filename, url string) (attachment.File, error) {
	files, err := f.Resolve(t.Context(), []attachment.Input{{Filename: filename, URL: &url}})
	if err != nil {
		return attachment.File{}, err
	}
	return files[0], nil
}

// noLeak asserts a client message carries no address or Go error text.
func noLeak(t *testing.T, err error) {
	t.Helper()
	e, ok := fail.As(err)
	if !ok {
		return
	}
	for _, s := range []string{"127.0.0.", "::1", "169.254", "dial", "tcp", "prohibited", "context", "Get \""} {
		if strings.Contains(e.Message, s) {
			t.Errorf("message %q leaks %q", e.Message, s)
		}
	}
}

func TestResolveURL(t *testing.T) {
	t.Parallel()
	loopback := serve(t, "tcp", "127.0.0.1:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(attachmenttest.PDF)
	}))
	files, ua := fileServer(t, loopback)
	base := files.URL

	tests := map[string]struct {
		opts      Options
		url       string
		want      string // content type of a success
		wantData  []byte
		wantErr   string
		wantGuard bool // the raw cause is the guard's refusal
		transient bool // the same fetch may work later
	}{
		"200":                  {url: base + "/file.pdf", want: "application/pdf", wantData: attachmenttest.PDF},
		"redirects within cap": {url: base + "/r/3", want: "text/plain", wantData: []byte("landed")},
		"exactly max bytes":    {opts: Options{MaxBytes: 1024}, url: base + "/bytes/1024", wantData: bytes.Repeat([]byte("x"), 1024), want: "text/plain; charset=utf-8"},
		"404":                  {url: base + "/missing", wantErr: "URL answered 404"},
		"empty body":           {url: base + "/empty", wantErr: "URL returned an empty file"},
		"slow":                 {opts: Options{Timeout: 200 * time.Millisecond}, url: base + "/slow", wantErr: "URL timed out", transient: true},
		"oversize declared":    {opts: Options{MaxBytes: 1024}, url: base + "/bytes/2048", wantErr: "URL exceeds 1 KB"},
		"oversize chunked":     {opts: Options{MaxBytes: 1024}, url: base + "/chunked/4096", wantErr: "URL exceeds 1 KB"},
		"redirect to loopback": {url: base + "/to-loopback", wantErr: "URL is not publicly reachable", wantGuard: true},
		"redirect chain":       {url: base + "/r/4", wantErr: "URL redirected more than 3 times"},
		"redirects disabled":   {opts: Options{MaxRedirects: -1}, url: base + "/r/1", wantErr: "redirects are not followed"},
		"redirect to ftp":      {url: base + "/to-ftp", wantErr: "URL redirected to a non-HTTP URL"},
		"localhost":            {url: fmt.Sprintf("http://localhost:%d/file.pdf", files.port()), wantErr: "URL is not publicly reachable", wantGuard: true},
		"refused":              {url: "http://127.0.0.2:1/file.pdf", wantErr: "URL refused the connection or is unreachable", transient: true},
		"403":                  {url: base + "/status/403", wantErr: "URL answered 403"},
		"410":                  {url: base + "/status/410", wantErr: "URL answered 410"},
		"408":                  {url: base + "/status/408", wantErr: "URL answered 408", transient: true},
		"429":                  {url: base + "/status/429", wantErr: "URL answered 429", transient: true},
		"500":                  {url: base + "/status/500", wantErr: "URL answered 500", transient: true},
		"503":                  {url: base + "/status/503", wantErr: "URL answered 503", transient: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			opts := tc.opts
			opts.AllowedPrefixes = testPrefixes
			if opts.Timeout == 0 {
				opts.Timeout = 5 * time.Second
			}
			f := New(opts)
			got, err := fetchOne(t, f, "file.pdf", tc.url)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Resolve: %v", err)
				}
				if !bytes.Equal(got.Data, tc.wantData) || got.ContentType != tc.want || got.Filename != "file.pdf" {
					t.Fatalf("file = %q %q %q, want %q %q", got.Filename, got.ContentType, got.Data, tc.want, tc.wantData)
				}
				return
			}
			attachmenttest.WantError(t, err, fail.KindInvalid, `attachments[0] ("file.pdf")`, tc.wantErr)
			noLeak(t, err)
			// A review retries what may work later and fails the rest.
			if got := fail.IsTransient(err); got != tc.transient {
				t.Errorf("transient = %v, want %v (%v)", got, tc.transient, err)
			}
			if tc.wantGuard {
				var left atomic.Int64
				left.Store(1 << 30)
				if _, _, err := f.fetch(t.Context(), tc.url, &left); !errors.Is(err, ssrf.ErrProhibitedIP) {
					t.Errorf("fetch error = %v, want the guard's ErrProhibitedIP", err)
				}
			}
		})
	}
	t.Run("user agent", func(t *testing.T) {
		if _, err := fetchOne(t, New(Options{AllowedPrefixes: testPrefixes}), "f.pdf", base+"/file.pdf"); err != nil {
			t.Fatal(err)
		}
		if got := ua.Load(); got != "Sesame-Attachment-Fetcher/1" {
			t.Errorf("User-Agent = %v", got)
		}
	})
	// Runs after the parallel subtests above have finished.
	t.Cleanup(func() {
		if n := loopback.conns.Load(); n != 0 {
			t.Errorf("the 127.0.0.1 server accepted %d connections; the guard must refuse before connecting", n)
		}
	})
}

// TestGuardBlocks uses a production Fetcher (no allowed prefixes). Every
// target is refused by the guard in the dialer's Control hook, i.e. before
// connect(2), so no packet leaves the machine even for 10.0.0.1 or the
// metadata address.
func TestGuardBlocks(t *testing.T) {
	t.Parallel()
	hit := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(attachmenttest.PDF) })
	v4 := serve(t, "tcp4", "127.0.0.1:0", hit)
	// Also on 127.0.0.2: the allowance tests use must not exist by default.
	v4b := serve(t, "tcp4", "127.0.0.2:0", hit)
	targets := []*server{v4, v4b}
	tests := map[string]string{
		"loopback":             fmt.Sprintf("http://127.0.0.1:%d/x", v4.port()),
		"loopback 127.0.0.2":   fmt.Sprintf("http://127.0.0.2:%d/x", v4b.port()),
		"localhost":            fmt.Sprintf("http://localhost:%d/x", v4.port()),
		"ipv4-mapped loopback": fmt.Sprintf("http://[::ffff:127.0.0.1]:%d/x", v4.port()),
		"ipv4-mapped hex":      fmt.Sprintf("http://[::ffff:7f00:1]:%d/x", v4.port()),
		"metadata":             "http://169.254.169.254/latest/meta-data/",
		"metadata v6":          "http://[fd00:ec2::254]/latest/meta-data/",
		"mapped metadata":      "http://[::ffff:169.254.169.254]/latest/meta-data/",
		"private 10":           "http://10.0.0.1/x",
		"private 172":          "http://172.16.0.1/x",
		"private 192":          "http://192.168.1.1/x",
		"mapped private":       "http://[::ffff:10.0.0.1]/x",
		"ula":                  "http://[fc00::1]/x",
		"link-local":           "http://169.254.1.1/x",
		"link-local v6":        "http://[fe80::1]/x",
		"cgnat":                "http://100.64.0.1/",
		"multicast":            "http://224.0.0.1/",
		"multicast v6":         "http://[ff02::1]/",
		"unspecified":          "http://0.0.0.0/",
		"unspecified v6":       "http://[::]/",
		"broadcast":            "http://255.255.255.255/",
		"nat64 loopback":       "http://[64:ff9b::7f00:1]/",
	}
	if v6 := serveV6(t, hit); v6 != nil {
		targets = append(targets, v6)
		tests["loopback v6"] = fmt.Sprintf("http://[::1]:%d/", v6.port())
	}
	f := New(Options{Timeout: 2 * time.Second})
	for name, url := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := fetchOne(t, f, "x.pdf", url)
			attachmenttest.WantError(t, err, fail.KindInvalid, `attachments[0] ("x.pdf")`, "URL is not publicly reachable")
			noLeak(t, err)
			var left atomic.Int64
			left.Store(1 << 30)
			if _, _, err := f.fetch(t.Context(), url, &left); !errors.Is(err, ssrf.ErrProhibitedIP) {
				t.Errorf("fetch error = %v, want the guard's ErrProhibitedIP", err)
			}
		})
	}
	t.Cleanup(func() {
		for _, s := range targets {
			if n := s.conns.Load(); n != 0 {
				t.Errorf("%s accepted %d connections", s.Listener.Addr(), n)
			}
		}
	})
}

func serveV6(t *testing.T, h http.Handler) *server {
	l, err := net.Listen("tcp6", "[::1]:0")
	if err != nil {
		t.Logf("no IPv6 loopback, skipping [::1]: %v", err)
		return nil
	}
	l.Close()
	return serve(t, "tcp6", "[::1]:0", h)
}

func TestResolveContentType(t *testing.T) {
	t.Parallel()
	files, _ := fileServer(t, nil)
	f := New(Options{AllowedPrefixes: testPrefixes, Timeout: 5 * time.Second})
	tests := map[string]struct {
		in   attachment.Input
		want string
	}{
		"input wins over served":  {in: attachment.Input{Filename: "a.bin", URL: attachmenttest.Ptr(files.URL + "/file.pdf"), ContentType: "Application/X-Custom"}, want: "application/x-custom"},
		"served":                  {in: attachment.Input{Filename: "a.bin", URL: attachmenttest.Ptr(files.URL + "/file.pdf")}, want: "application/pdf"},
		"served octet-stream":     {in: attachment.Input{Filename: "a.png", URL: attachmenttest.Ptr(files.URL + "/octet")}, want: "image/png"},
		"served with a name":      {in: attachment.Input{Filename: "a.pdf", URL: attachmenttest.Ptr(files.URL + "/named-type")}, want: "application/pdf"},
		"served unparsable":       {in: attachment.Input{Filename: "a.pdf", URL: attachmenttest.Ptr(files.URL + "/bad-type")}, want: "application/pdf"},
		"nothing known":           {in: attachment.Input{Filename: "a.zzq", URL: attachmenttest.Ptr(files.URL + "/octet")}, want: "application/octet-stream"},
		"inline by extension":     {in: attachment.Input{Filename: "A.PDF", Content: attachmenttest.B64(attachmenttest.PDF)}, want: "application/pdf"},
		"inline given":            {in: attachment.Input{Filename: "a", Content: attachmenttest.B64(attachmenttest.PDF), ContentType: "text/csv; charset=UTF-8"}, want: "text/csv; charset=UTF-8"},
		"inline without anything": {in: attachment.Input{Filename: "data", Content: attachmenttest.B64(attachmenttest.PDF)}, want: "application/octet-stream"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := f.Resolve(t.Context(), []attachment.Input{tc.in})
			if err != nil {
				t.Fatal(err)
			}
			if got[0].ContentType != tc.want {
				t.Errorf("content type = %q, want %q", got[0].ContentType, tc.want)
			}
		})
	}
}

// TestResolveMany checks order, inline/URL mixing and the concurrent path
// (run with -race).
func TestResolveMany(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := serve(t, "tcp", "127.0.0.2:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte(r.URL.Path))
	}))
	f := New(Options{AllowedPrefixes: testPrefixes, Timeout: 5 * time.Second})
	in := make([]attachment.Input, attachment.MaxPerMessage)
	for i := range in {
		name := fmt.Sprintf("f%d.txt", i)
		if i%3 == 0 {
			in[i] = attachment.Input{Filename: name, Content: attachmenttest.B64([]byte("/" + name))}
		} else {
			in[i] = attachment.Input{Filename: name, URL: attachmenttest.Ptr(srv.URL + "/" + name)}
		}
	}
	got, err := f.Resolve(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(in) {
		t.Fatalf("got %d files, want %d", len(got), len(in))
	}
	for i, g := range got {
		if g.Filename != in[i].Filename || string(g.Data) != "/"+in[i].Filename {
			t.Errorf("file %d = %q %q", i, g.Filename, g.Data)
		}
	}
	if n := hits.Load(); n != 13 {
		t.Errorf("server hit %d times, want 13", n)
	}
}

func TestResolveTotal(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := serve(t, "tcp", "127.0.0.2:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write(bytes.Repeat([]byte("x"), 1000))
	}))
	f := New(Options{AllowedPrefixes: testPrefixes, MaxBytes: 1000, MaxTotalBytes: 1500, Timeout: 5 * time.Second})
	tests := map[string]struct {
		in       []attachment.Input
		maxHits  int64
		wantKind fail.Kind
	}{
		"urls over total": {
			in:       []attachment.Input{{Filename: "a.txt", URL: attachmenttest.Ptr(srv.URL + "/a")}, {Filename: "b.txt", URL: attachmenttest.Ptr(srv.URL + "/b")}},
			maxHits:  2,
			wantKind: fail.KindTooLarge,
		},
		"inline over total fetches nothing": {
			in:       []attachment.Input{{Filename: "a.txt", Content: attachmenttest.B64(make([]byte, 1600))}, {Filename: "b.txt", URL: attachmenttest.Ptr(srv.URL + "/b")}},
			wantKind: fail.KindTooLarge,
		},
		"invalid input fetches nothing": {
			in:       []attachment.Input{{Filename: "b.txt", URL: attachmenttest.Ptr(srv.URL + "/b")}, {Filename: "c.exe", Content: attachmenttest.B64(attachmenttest.PDF)}},
			wantKind: fail.KindInvalid,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			before := hits.Load()
			_, err := f.Resolve(t.Context(), tc.in)
			attachmenttest.WantError(t, err, tc.wantKind)
			if n := hits.Load() - before; n > tc.maxHits {
				t.Errorf("server hit %d times, want at most %d", n, tc.maxHits)
			}
		})
	}
}

func TestResolveCancelled(t *testing.T) {
	t.Parallel()
	files, _ := fileServer(t, nil)
	f := New(Options{AllowedPrefixes: testPrefixes, Timeout: 5 * time.Second})
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	_, err := f.Resolve(ctx, []attachment.Input{{Filename: "s.pdf", URL: attachmenttest.Ptr(files.URL + "/slow")}})
	// The caller's own deadline is not the client's fault: no client error.
	if _, ok := fail.As(err); ok || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Resolve = %v, want the context's error", err)
	}
}

func TestNewFetcher(t *testing.T) {
	f := New(Options{})
	tr := f.client.Transport.(*http.Transport)
	if tr.Proxy != nil {
		t.Error("transport uses a proxy; the proxy would dial past the guard")
	}
	if f.maxBytes != 20<<20 || f.maxTotal != 20<<20 || f.timeout != 10*time.Second || f.maxRedirects != 3 {
		t.Errorf("defaults = %d %d %s %d", f.maxBytes, f.maxTotal, f.timeout, f.maxRedirects)
	}
	if f.client.Timeout != 10*time.Second {
		t.Errorf("client timeout = %s", f.client.Timeout)
	}
}

// Slow URLs together hit the overall deadline: the client's 400, naming
// attachments, not a context error.
func TestResolveTotalTimeout(t *testing.T) {
	t.Parallel()
	files, _ := fileServer(t, nil)
	f := New(Options{AllowedPrefixes: testPrefixes, Timeout: 5 * time.Second, TotalTimeout: 150 * time.Millisecond})
	_, err := f.Resolve(t.Context(), []attachment.Input{{Filename: "s.pdf", URL: attachmenttest.Ptr(files.URL + "/slow")}})
	attachmenttest.WantError(t, err, fail.KindInvalid, "attachment URLs took more than")
	if !fail.IsTransient(err) {
		t.Errorf("a slow fetch is not transient: %v", err)
	}
}

// Too much data is permanent: the same URLs will not shrink.
func TestResolveTotalIsPermanent(t *testing.T) {
	t.Parallel()
	f := New(Options{AllowedPrefixes: testPrefixes, MaxBytes: 1000, MaxTotalBytes: 1500})
	_, err := f.Resolve(t.Context(), []attachment.Input{{Filename: "a.txt", Content: attachmenttest.B64(make([]byte, 1600))}})
	if fail.KindOf(err) != fail.KindTooLarge || !fail.IsPermanent(err) {
		t.Errorf("err = %v, want a permanent too large", err)
	}
}
