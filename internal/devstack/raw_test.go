package devstack_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/devstack"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/queue/queuetest"
)

// startRaw is a dev server that keeps raw messages as `sesame dev` does: in
// front of SES and as the send service's capture.
func startRaw(t *testing.T) (*env, *devstack.RawMessages) {
	t.Helper()
	var raw *devstack.RawMessages
	dir := t.TempDir()
	e := newEnv(t, func(deps api.Deps, _ *queuetest.Set) (api.Deps, []httpapi.Route) {
		raw = &devstack.RawMessages{Dir: dir, Next: deps.Sending.Transport, Emails: deps.Repos.Emails}
		deps.Sending.Transport = raw
		deps.Sending.Captures = raw
		return deps, raw.Routes()
	})
	return e, raw
}

// wantRaw reads an email's raw message through the dev route and returns it.
func (e *env) wantRaw(t *testing.T, key, id string) []byte {
	t.Helper()
	r := e.get(bearer(key), "/dev/emails/"+id+"/raw")
	if r.status != http.StatusOK {
		t.Fatalf("GET raw of %s = %d %s", id, r.status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "message/rfc822" {
		t.Errorf("Content-Type = %q, want message/rfc822", ct)
	}
	return r.body
}

// The local stack keeps the exact MIME of what it hands to SES or captures
// from a test key, and serves it to a key of the email's workspace.
func TestDevRawMessage(t *testing.T) {
	t.Parallel()
	e, raw := startRaw(t)
	s := newSendWS(t, e, defaultSender())

	// Live: the bytes handed to SES.
	live := msg("raw", nil)
	id := e.post(s.key, "/api/v1/send", live).sent(t, http.StatusOK).ID
	sends := e.ses.sendsTo(live["to"].(string))
	if len(sends) != 1 {
		t.Fatalf("%d SES sends, want 1", len(sends))
	}
	if got := e.wantRaw(t, s.key, id); !bytes.Equal(got, sends[0].Raw) {
		t.Errorf("raw message (%d bytes) is not what SES was handed (%d bytes)", len(got), len(sends[0].Raw))
	}
	if got := e.wantRaw(t, s.testKey, strings.ToUpper(id)); !bytes.Equal(got, sends[0].Raw) {
		t.Error("the test key of the workspace, with the id in capitals, read another message")
	}

	// Test key: the captured message, never handed to SES.
	captured := msg("rawtest", nil)
	testID := e.post(s.testKey, "/api/v1/send", captured).sent(t, http.StatusOK).ID
	got := e.wantRaw(t, s.testKey, testID)
	if m := parseRaw(t, got); m.Header.Get("Subject") != captured["subject"] || !strings.Contains(m.Header.Get("To"), captured["to"].(string)) {
		t.Errorf("captured message has Subject %q, To %q", m.Header.Get("Subject"), m.Header.Get("To"))
	}
	if len(e.ses.sendsTo(captured["to"].(string))) != 0 {
		t.Error("the test-mode email was handed to SES")
	}
	// Kept on disk: a restarted stack serves it too.
	if again, err := (&devstack.RawMessages{Dir: raw.Dir}).Raw(s.id, testID); err != nil || !bytes.Equal(again, got) {
		t.Errorf("the kept file = %d bytes, %v; want the served message", len(again), err)
	}

	// A held email has none until the review hands it to SES.
	heldReq := msg("rawheld", map[string]any{"html": "<ul><li>raw " + uuid.NewString() + "</li></ul>"})
	heldID := e.post(s.key, "/api/v1/send", heldReq).sent(t, http.StatusAccepted).ID
	e.bad().get(bearer(s.key), "/dev/emails/"+heldID+"/raw").wantError(t, http.StatusNotFound, "not_found", "")
	e.reviewHeld(t, 1)
	heldSends := e.ses.sendsTo(heldReq["to"].(string))
	if len(heldSends) != 1 {
		t.Fatalf("%d SES sends of the held email after review, want 1", len(heldSends))
	}
	if got := e.wantRaw(t, s.key, heldID); !bytes.Equal(got, heldSends[0].Raw) {
		t.Error("the released held email's raw message is not what SES was handed")
	}

	// 404 for another workspace's key, an unknown id, an email without one.
	other := newSendWS(t, e, defaultSender())
	stored := e.putEmail(s.id, nil)
	for name, tc := range map[string]struct{ key, id string }{
		"another workspace's key":      {other.key, id},
		"another workspace's test key": {other.testKey, testID},
		"unknown id":                   {s.key, uuid.NewString()},
		"not an id":                    {s.key, "..%2F..%2Fetc"},
		"no message kept":              {s.key, stored.ID},
	} {
		t.Run(name, func(t *testing.T) {
			e.bad().get(bearer(tc.key), "/dev/emails/"+tc.id+"/raw").wantError(t, http.StatusNotFound, "not_found", "")
		})
	}
	e.bad().get("", "/dev/emails/"+id+"/raw").wantError(t, http.StatusUnauthorized, "unauthorized", "")
}
