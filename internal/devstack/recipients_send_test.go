package devstack_test

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/emulatortest/inbox"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// Every transactional path, read as its recipients get it: /send plain,
// with attachments inline and by URL (non-ASCII names, one long enough
// for RFC 2231 continuations), in each tracking mode, /send/batch, and
// an email held then cleared by the review. Each recipient has exactly
// one message, with its own content, in the kept MIME and in the SES
// emulator, with no defect for a strict reader or Python's email package.
func TestRecipientsOfSend(t *testing.T) {
	t.Parallel()
	k := startKept(t, nil)
	yes := true
	s := newSendWS(t, k.env, defaultSender())
	s.update(t, k.env, workspace.Settings{TrackingOffProvisioned: &yes})
	var wants []inbox.Want
	send := func(tag string, extra map[string]any) inbox.Want {
		t.Helper()
		html := "<p>Hello " + tag + " " + uuid.NewString()[:8] + "</p>" // the cleared layout, its own text
		extra["html"] = html
		req := msg(tag, extra)
		k.post(s.key, "/api/v1/send", req).sent(t, http.StatusOK).want(t, true, "sent")
		return sentHTML(req["to"].(string), req["subject"].(string), html)
	}

	wants = append(wants, send("plain", map[string]any{}))
	for _, mode := range []string{"full", "essential", "off"} {
		wants = append(wants, send("track-"+mode, map[string]any{"tracking": mode}))
	}

	csv := []byte("Straße;Menge\r\nÄpfel;3\r\n")
	long := strings.Repeat("Jahresübersicht ", 6) + "März.csv" // over one RFC 2231 segment
	inline := send("inline", map[string]any{"attachments": []any{
		map[string]any{"filename": "Überblick März.csv", "content": base64.StdEncoding.EncodeToString(csv), "content_type": "text/csv"},
		map[string]any{"filename": long, "content": base64.StdEncoding.EncodeToString(csv), "content_type": "text/csv"},
		map[string]any{"filename": `plain "quoted".txt`, "content": base64.StdEncoding.EncodeToString([]byte("x")), "content_type": "text/plain"},
	}})
	inline.Attachments = []inbox.Attachment{
		{Filename: "Überblick März.csv", ContentType: "text/csv", Data: csv},
		{Filename: long, ContentType: "text/csv", Data: csv},
		{Filename: "plain _quoted_.txt", ContentType: "text/plain", Data: []byte("x")}, // quotes replaced, as go-mail did
	}
	wants = append(wants, inline)

	pdf := []byte("%PDF-1.4 Rechnung\n")
	mux := http.NewServeMux()
	mux.HandleFunc("/rechnung.pdf", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		_, _ = w.Write(pdf)
	})
	files := allowedServer(t, mux)
	viaURL := k.withFileServerFetcher(t, 10*time.Second)
	html := "<p>Hello url " + uuid.NewString()[:8] + "</p>"
	req := msg("byurl", map[string]any{"html": html, "attachments": []any{
		map[string]any{"filename": "Rechnung №5 – Café.pdf", "url": files + "/rechnung.pdf"},
	}})
	k.postTo(t, viaURL, s.key, "/api/v1/send", req).sent(t, http.StatusOK).want(t, true, "sent")
	byURL := sentHTML(req["to"].(string), req["subject"].(string), html)
	byURL.Attachments = []inbox.Attachment{{Filename: "Rechnung №5 – Café.pdf", ContentType: "application/pdf", Data: pdf}}
	wants = append(wants, byURL)

	var batch []any
	for range 3 {
		html := "<p>Hello batch " + uuid.NewString()[:8] + "</p>"
		r := msg("batch", map[string]any{"html": html})
		batch = append(batch, r)
		wants = append(wants, sentHTML(r["to"].(string), r["subject"].(string), html))
	}
	for _, it := range k.post(s.key, "/api/v1/send/batch", map[string]any{"emails": batch}).batch(t, len(batch)) {
		if it.Success == nil || !*it.Success || it.Status != "sent" {
			t.Errorf("batch item %d: %+v", it.Index, it)
		}
	}

	// A new layout is held, then cleared by the review, then sent.
	heldHTML := "<div><h1>Welcome Ann " + uuid.NewString()[:8] + "</h1><p>Glad you joined.</p></div>"
	held := msg("held", map[string]any{"html": heldHTML})
	k.post(s.key, "/api/v1/send", held).sent(t, http.StatusAccepted).want(t, true, "held")
	k.reviewHeld(t, 1)
	wants = append(wants, sentHTML(held["to"].(string), held["subject"].(string), heldHTML))

	k.box(t, s.id).Check(t, wants...)
}

// A test key's email is captured, never handed to SES: the captured
// message is what its recipient would have got, and reads as well.
func TestRecipientsOfTestKeyCapture(t *testing.T) {
	t.Parallel()
	k := startKept(t, nil)
	s := newSendWS(t, k.env, defaultSender())
	var wants []inbox.Want
	for _, tag := range []string{"capture1", "capture2"} {
		html := "<p>Hello " + tag + " " + uuid.NewString()[:8] + "</p>"
		req := msg(tag, map[string]any{"html": html})
		k.post(s.testKey, "/api/v1/send", req).sent(t, http.StatusOK).want(t, true, "sent")
		w := sentHTML(req["to"].(string), req["subject"].(string), html)
		w.Captured = true
		wants = append(wants, w)
	}
	k.box(t, s.id).Check(t, wants...)
}
