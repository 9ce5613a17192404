package devstack_test

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestSendLargeButSendable(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	files := fileServer(t, e.url)
	local := e.withFileServerFetcher(t, 10*time.Second)
	data := bytes.Repeat([]byte("0123456789abcdef"), (3<<20)/32) // 1.5 MB
	cases := map[string]struct {
		server     string
		attachment map[string]any
		minSize    int
		code       string
	}{
		"inline attachment over 1 MB": {
			server:     e.url,
			attachment: map[string]any{"filename": "report.pdf", "content": base64.StdEncoding.EncodeToString(data), "content_type": "application/pdf"},
			minSize:    len(data), code: "large_attachment",
		},
		"encoded message over 10 MB": {
			server:     local,
			attachment: map[string]any{"filename": "scan.pdf", "url": files + "/big.pdf"}, // 8 MB, ~10.9 MB in base64
			minSize:    10 << 20, code: "large_message",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			req := msg("large", map[string]any{"attachments": []any{tc.attachment}})
			b := e.postTo(t, tc.server, s.key, "/api/v1/send", req).sent(t, http.StatusOK)
			b.want(t, true, "sent")
			if len(b.Warnings) != 1 || b.Warnings[0].Code != tc.code || !strings.Contains(strings.ToLower(b.Warnings[0].Message), "host") {
				t.Errorf("warnings = %+v, want one %s with advice to host the file", b.Warnings, tc.code)
			}
			sends := e.ses.sendsTo(req["to"].(string))
			if len(sends) != 1 || len(sends[0].Raw) < tc.minSize {
				t.Fatalf("SES sends %d, want one carrying the attachment", len(sends))
			}
		})
	}
}
