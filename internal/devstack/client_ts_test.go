package devstack_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
)

// The TypeScript client's tests (clients/typescript/test) under Node's own
// runner, the stack tests among them against this stack: a send
// workspace's key, a key that has used its minute (the clock moves through
// SESAME_CLOCK_URL), and an endpoint at SESAME_WEBHOOK_PORT on 127.0.0.2
// that the Node test itself serves. The status and webhook consumers run
// in the background meanwhile.
func TestTypeScriptClientAgainstTheStack(t *testing.T) {
	t.Parallel()
	dir, err := filepath.Abs(filepath.Join("..", "..", "clients", "typescript"))
	if err != nil {
		t.Fatal(err)
	}
	tsc := filepath.Join(dir, "node_modules", ".bin", "tsc")
	if _, err := os.Stat(tsc); errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%s is not installed: run `make deps` (npm ci in clients/typescript)", tsc)
	}
	p := startPipeline(t)
	p.store.Table.Now = p.clock.Now // the rate limit's minute
	s := newSendWS(t, p.env, defaultSender())
	limited := s.scopedKey(t, p.env, apikey.FullAccess...)
	exhaust(t, p, limited)
	port := freePort(t, "127.0.0.2")
	ep := p.endpoint(t, s.id, "http://127.0.0.2:"+port+"/hooks/sesame", "email.delivered")
	clock := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ms, err := strconv.Atoi(r.URL.Query().Get("ms"))
		if r.Method != http.MethodPost || err != nil {
			http.Error(w, "POST /advance?ms=<n>", http.StatusBadRequest)
			return
		}
		p.clock.Set(p.clock.Now().Add(time.Duration(ms) * time.Millisecond))
		w.WriteHeader(http.StatusNoContent)
	}))
	defer clock.Close()
	stop := p.runInBackground(t)
	defer stop()

	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(),
			"SESAME_URL="+p.url, "SESAME_KEY="+s.key, "SESAME_LIMITED_KEY="+limited,
			"SESAME_CLOCK_URL="+clock.URL, "SESAME_WEBHOOK_PORT="+port, "SESAME_WEBHOOK_SECRET="+ep.Secret,
			"SESAME_HTML="+plainHTML)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out.Bytes())
		}
		return out.String()
	}
	run(tsc, "-p", ".")
	out := run("node", "--test", "--test-reporter=tap", "dist/test/")
	for _, want := range []string{"# fail 0", "# skipped 0", "# cancelled 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("node --test did not report %q:\n%s", want, out)
		}
	}
}

// runInBackground runs the status and webhook consumers until stop.
func (p *pipeline) runInBackground(t *testing.T) (stop func()) {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			_, _ = p.status.PollOnce(ctx)
			_, _ = p.webhooks.PollOnce(ctx)
		}
	}()
	return func() { cancel(); <-done }
}

// freePort is a TCP port free on host a moment ago.
func freePort(t *testing.T, host string) string {
	t.Helper()
	ln, err := net.Listen("tcp", host+":0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}
