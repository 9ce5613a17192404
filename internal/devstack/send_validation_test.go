package devstack_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/apikey"
)

func TestSendBadInput(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	other := newSendWS(t, e, defaultSender())
	if _, err := e.store.Domains.AddDomain(t.Context(), s.id, "pending.test", nil); err != nil {
		t.Fatal(err)
	}
	readOnly := s.scopedKey(t, e, apikey.EmailsRead)
	files := fileServer(t, e.url+"/api/v1/emails")
	// Production's fetcher is the env's own; these two also reach 127.0.0.2.
	local := e.withFileServerFetcher(t, 10*time.Second)
	impatient := e.withFileServerFetcher(t, 300*time.Millisecond)

	usedKey := uuid.NewString()
	used := msg("used", nil)
	e.post(s.key, "/api/v1/send", used, "Idempotency-Key", usedKey).sent(t, http.StatusOK)

	inline := func(name, content string) map[string]any { return map[string]any{"filename": name, "content": content} }
	byURL := func(u string) []any { return []any{map[string]any{"filename": "file.pdf", "url": u}} }
	var many []any
	for i := range 21 {
		many = append(many, inline(fmt.Sprintf("f%d.txt", i), "aGk="))
	}
	with := func(extra map[string]any) map[string]any { return msg("bad", extra) }

	cases := map[string]struct {
		server  string // "" for the dev server (production fetcher)
		key     string // "" for the workspace's full-access live key
		body    any
		hdr     []string
		status  int
		code    string
		param   string
		message string // part of the error message, when it matters
	}{
		"missing to":                          {body: with(map[string]any{"to": nil}), status: 400, code: "missing_field", param: "to"},
		"missing subject":                     {body: with(map[string]any{"subject": nil}), status: 400, code: "missing_field", param: "subject"},
		"missing html":                        {body: with(map[string]any{"html": nil}), status: 400, code: "missing_field", param: "html"},
		"blank html":                          {body: with(map[string]any{"html": "  \n"}), status: 400, code: "missing_field", param: "html"},
		"to not an address":                   {body: with(map[string]any{"to": "not-an-address"}), status: 400, code: "invalid_field", param: "to"},
		"to with two addresses":               {body: with(map[string]any{"to": "a@x.com, b@y.com"}), status: 400, code: "invalid_field", param: "to"},
		"to as an array":                      {body: with(map[string]any{"to": []string{"a@x.com"}}), status: 400, code: "invalid_field", param: "to"},
		"to with CRLF in the name":            {body: with(map[string]any{"to": "Ann\r\nBcc: x@y.com <ann@example.com>"}), status: 400, code: "invalid_field", param: "to"},
		"subject with CRLF":                   {body: with(map[string]any{"subject": "Hi\r\nBcc: x@y.com"}), status: 400, code: "invalid_field", param: "subject"},
		"subject with LF":                     {body: with(map[string]any{"subject": "Hi\nthere"}), status: 400, code: "invalid_field", param: "subject"},
		"reply_to, one bad of three":          {body: with(map[string]any{"reply_to": []string{"a@x.com", "nope", "c@y.com"}}), status: 400, code: "invalid_field", param: "reply_to"},
		"reply_to a number":                   {body: with(map[string]any{"reply_to": 5}), status: 400, code: "invalid_field", param: "reply_to"},
		"reply_to, trailing comma":            {body: with(map[string]any{"reply_to": "r@example.org,"}), status: 400, code: "invalid_field", param: "reply_to"},
		"reply_to, leading comma":             {body: with(map[string]any{"reply_to": ",r@example.org"}), status: 400, code: "invalid_field", param: "reply_to"},
		"reply_to, brackets, trailing comma":  {body: with(map[string]any{"reply_to": "<r@example.org>,"}), status: 400, code: "invalid_field", param: "reply_to"},
		"reply_to array, trailing comma":      {body: with(map[string]any{"reply_to": []string{"a@x.com", "r@example.org,"}}), status: 400, code: "invalid_field", param: "reply_to", message: "entry 1"},
		"reply_to array, empty entry":         {body: with(map[string]any{"reply_to": []string{"r@example.org", ""}}), status: 400, code: "invalid_field", param: "reply_to", message: "entry 1"},
		"reply_to name, another domain's":     {body: with(map[string]any{"reply_to": `"help@bank.example" <r@example.org>`}), status: 400, code: "invalid_field", param: "reply_to", message: "another domain"},
		"from name, another domain's":         {body: with(map[string]any{"from": `"hello@demo.sesame.test" <hello@acme.test>`}), status: 400, code: "invalid_field", param: "from", message: "the display name may not contain an address on another domain than the sender's"},
		"subject with NUL":                    {body: with(map[string]any{"subject": "Hi\x00there"}), status: 400, code: "invalid_field", param: "subject", message: "control characters"},
		"subject with a control character":    {body: with(map[string]any{"subject": "Hi\x1bthere"}), status: 400, code: "invalid_field", param: "subject", message: "control characters"},
		"subject of 999 non-ASCII characters": {body: with(map[string]any{"subject": strings.Repeat("é", 999)}), status: 400, code: "invalid_field", param: "subject", message: "998 characters"},
		"21 attachments":                      {body: with(map[string]any{"attachments": many}), status: 400, code: "invalid_field", param: "attachments"},
		"content and url":                     {body: with(map[string]any{"attachments": []any{map[string]any{"filename": "a.pdf", "content": "aGk=", "url": "https://example.com/a.pdf"}}}), status: 400, code: "invalid_field", param: "attachments"},
		"neither content nor url":             {body: with(map[string]any{"attachments": []any{map[string]any{"filename": "a.pdf"}}}), status: 400, code: "invalid_field", param: "attachments"},
		"bad base64":                          {body: with(map[string]any{"attachments": []any{inline("a.pdf", "!!!not base64!!!")}}), status: 400, code: "invalid_field", param: "attachments"},
		"inline attachment over 3 MB":         {body: with(map[string]any{"attachments": []any{inline("big.pdf", strings.Repeat("A", 4<<20+8))}}), status: 400, code: "invalid_field", param: "attachments", message: "3 MB"},
		"request body over 5 MB":              {body: with(map[string]any{"html": "<p>" + strings.Repeat("x", 5<<20) + "</p>"}), status: 413, code: "message_too_large", param: "", message: "5 MB"},
		"subject over 998 characters":         {body: with(map[string]any{"subject": strings.Repeat("s", 999)}), status: 400, code: "invalid_field", param: "subject"},
		"filename with a path":                {body: with(map[string]any{"attachments": []any{inline("../etc/passwd.txt", "aGk=")}}), status: 400, code: "invalid_field", param: "attachments"},
		".exe attachment":                     {body: with(map[string]any{"attachments": []any{inline("setup.exe", "aGk=")}}), status: 400, code: "invalid_field", param: "attachments", message: ".exe"},
		"url to 127.0.0.1":                    {body: with(map[string]any{"attachments": byURL("http://127.0.0.1:1/a.pdf")}), status: 400, code: "invalid_field", param: "attachments", message: "not publicly reachable"},
		"url to the metadata service":         {body: with(map[string]any{"attachments": byURL("http://169.254.169.254/latest/meta-data/")}), status: 400, code: "invalid_field", param: "attachments", message: "not publicly reachable"},
		"url to 10.0.0.1":                     {body: with(map[string]any{"attachments": byURL("http://10.0.0.1/a.pdf")}), status: 400, code: "invalid_field", param: "attachments", message: "not publicly reachable"},
		"url to IPv4-mapped loopback":         {body: with(map[string]any{"attachments": byURL("http://[::ffff:127.0.0.1]/a.pdf")}), status: 400, code: "invalid_field", param: "attachments", message: "not publicly reachable"},
		"url host resolving to loopback":      {body: with(map[string]any{"attachments": byURL("http://localhost:1/x")}), status: 400, code: "invalid_field", param: "attachments", message: "not publicly reachable"},
		"allowed server, guard of production": {body: with(map[string]any{"attachments": byURL(files + "/big.pdf")}), status: 400, code: "invalid_field", param: "attachments", message: "not publicly reachable"},
		"url answering 404":                   {server: local, body: with(map[string]any{"attachments": byURL(files + "/missing.pdf")}), status: 400, code: "invalid_field", param: "attachments", message: "404"},
		"url too slow":                        {server: impatient, body: with(map[string]any{"attachments": byURL(files + "/slow.pdf")}), status: 400, code: "invalid_field", param: "attachments", message: "timed out"},
		"redirect to 127.0.0.1":               {server: local, body: with(map[string]any{"attachments": byURL(files + "/redirect.pdf")}), status: 400, code: "invalid_field", param: "attachments", message: "not publicly reachable"},
		"message over 20 MB encoded": {server: local, body: with(map[string]any{"attachments": []any{
			map[string]any{"filename": "a.pdf", "url": files + "/big.pdf"},
			map[string]any{"filename": "b.pdf", "url": files + "/big.pdf?2"},
		}}), status: 413, code: "message_too_large", param: "", message: "20 MB"},
		"malformed JSON":                 {body: `{"to": "a@x.com", "subject": `, status: 400, code: "invalid_field", param: "body"},
		"two JSON objects":               {body: `{"to":"a@x.com","subject":"s","html":"<p>x</p>"}{}`, status: 400, code: "invalid_field", param: "body"},
		"wrong Content-Type":             {body: with(nil), hdr: []string{"Content-Type", "text/plain"}, status: 400, code: "invalid_field", param: "Content-Type"},
		"unknown field":                  {body: with(map[string]any{"bcc": "x@y.com"}), status: 400, code: "invalid_field", param: "bcc"},
		"unknown field in an attachment": {body: with(map[string]any{"attachments": []any{inline("a.txt", "aGk="), map[string]any{"filename": "b.txt", "content": "aGk=", "x": 1}}}), status: 400, code: "invalid_field", param: "attachments[1].x"},
		"attachment filename a number":   {body: with(map[string]any{"attachments": []any{map[string]any{"filename": 7, "content": "aGk="}}}), status: 400, code: "invalid_field", param: "attachments[0].filename"},
		"tracking sometimes":             {body: with(map[string]any{"tracking": "sometimes"}), status: 400, code: "invalid_field", param: "tracking"},
		"tracking off, not provisioned":  {body: with(map[string]any{"tracking": "off"}), status: 503, code: "service_unavailable", param: "tracking"},
		"sender_id of another workspace": {body: with(map[string]any{"sender_id": other.sender.ID}), status: 404, code: "sender_not_found", param: "sender_id"},
		"from on an unverified domain":   {body: with(map[string]any{"from": "a@pending.test"}), status: 403, code: "sender_not_verified", param: "from"},
		"Idempotency-Key, changed body":  {body: map[string]any{"to": used["to"], "subject": used["subject"], "html": "<p>changed</p>"}, hdr: []string{"Idempotency-Key", usedKey}, status: 409, code: "idempotency_conflict", param: "Idempotency-Key"},
		"Idempotency-Key with a space":   {body: with(nil), hdr: []string{"Idempotency-Key", "a b"}, status: 400, code: "invalid_field", param: "Idempotency-Key"},
		"Idempotency-Key of 256 chars":   {body: with(nil), hdr: []string{"Idempotency-Key", strings.Repeat("k", 256)}, status: 400, code: "invalid_field", param: "Idempotency-Key", message: "255"},
		"key with only emails:read":      {key: readOnly, body: with(nil), status: 403, code: "insufficient_scope", param: "", message: "email:send"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			base, key := tc.server, tc.key
			if base == "" {
				base = e.url
			}
			if key == "" {
				key = s.key
			}
			before, sends := len(e.emailIDs(t, s.key)), len(e.ses.Sends())
			r := e.bad().postTo(t, base, key, "/api/v1/send", tc.body, tc.hdr...)
			r.wantError(t, tc.status, tc.code, tc.param)
			if tc.message != "" && !strings.Contains(string(r.body), tc.message) {
				t.Errorf("message should mention %q: %s", tc.message, r.body)
			}
			if after := len(e.emailIDs(t, s.key)); after != before {
				t.Errorf("%d emails stored by a refused send", after-before)
			}
			if got := len(e.ses.Sends()) - sends; got != 0 {
				t.Errorf("%d SES sends by a refused send", got)
			}
		})
	}
}
