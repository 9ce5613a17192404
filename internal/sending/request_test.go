package sending_test

import (
	"encoding/json"
	"fmt"
	"net/mail"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/compose/raw"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/sending"
)

func validRequest() sending.Request {
	return sending.Request{To: recipient, Subject: "Your receipt", HTML: "<p>Thanks</p>", From: "Acme <billing@acme.test>"}
}

func TestValidate(t *testing.T) {
	cases := map[string]struct {
		edit    func(r *sending.Request)
		param   string // "" when the request is valid
		message string // part of the refusal
	}{
		"valid": {func(r *sending.Request) {}, "", ""},

		"reply_to with a trailing comma":         {func(r *sending.Request) { r.ReplyTo = sending.ReplyTo{"r@example.org,"} }, "reply_to", "entry 0"},
		"reply_to with a leading comma":          {func(r *sending.Request) { r.ReplyTo = sending.ReplyTo{",r@example.org"} }, "reply_to", "entry 0"},
		"reply_to in brackets, trailing comma":   {func(r *sending.Request) { r.ReplyTo = sending.ReplyTo{"<r@example.org>,"} }, "reply_to", "entry 0"},
		"reply_to array with an empty entry":     {func(r *sending.Request) { r.ReplyTo = sending.ReplyTo{"r@example.org", ""} }, "reply_to", "entry 1"},
		"reply_to with two addresses":            {func(r *sending.Request) { r.ReplyTo = sending.ReplyTo{"a@x.com, b@y.com"} }, "reply_to", "2 addresses"},
		"reply_to of 11":                         {func(r *sending.Request) { r.ReplyTo = make(sending.ReplyTo, 11) }, "reply_to", "at most 10"},
		"to with a trailing comma":               {func(r *sending.Request) { r.To = "ann@example.com," }, "to", "one email address"},
		"from with a trailing comma":             {func(r *sending.Request) { r.From = "billing@acme.test," }, "from", "one email address"},
		"subject with NUL":                       {func(r *sending.Request) { r.Subject = "Hi\x00there" }, "subject", "control characters"},
		"subject with a tab":                     {func(r *sending.Request) { r.Subject = "Hi\tthere" }, "subject", "control characters"},
		"subject with DEL":                       {func(r *sending.Request) { r.Subject = "Hi\x7fthere" }, "subject", "control characters"},
		"subject with a C1 control":              {func(r *sending.Request) { r.Subject = "Hi\u0085there" }, "subject", "control characters"},
		"subject with CRLF":                      {func(r *sending.Request) { r.Subject = "Hi\r\nBcc: x@y.com" }, "subject", "line breaks"},
		"subject of 998 non-ASCII characters":    {func(r *sending.Request) { r.Subject = strings.Repeat("é", 998) }, "", ""},
		"subject of 999 non-ASCII characters":    {func(r *sending.Request) { r.Subject = strings.Repeat("é", 999) }, "subject", "at most 998 characters"},
		"subject of 999 letters":                 {func(r *sending.Request) { r.Subject = strings.Repeat("s", 999) }, "subject", "at most 998 characters"},
		"subject not UTF-8":                      {func(r *sending.Request) { r.Subject = "Hi \xff" }, "subject", "UTF-8"},
		"subject with a zero-width joiner is ok": {func(r *sending.Request) { r.Subject = "👩\u200d💻 news" }, "", ""},
		"reply_to showing another domain's":      {func(r *sending.Request) { r.ReplyTo = sending.ReplyTo{`"help@bank.example" <r@example.org>`} }, "reply_to", "another domain than the sender's (example.org); it shows help@bank.example"},
		"reply_to showing its own domain's":      {func(r *sending.Request) { r.ReplyTo = sending.ReplyTo{`"help@example.org" <r@example.org>`} }, "", ""},
		"from showing another domain's address":  {func(r *sending.Request) { r.From = `"hello@demo.sesame.test" <a@beta.test>` }, "from", "the display name may not contain an address on another domain than the sender's (beta.test); it shows hello@demo.sesame.test"},
		"from whose name holds such an address":  {func(r *sending.Request) { r.From = `"Support (help@bank.example)" <a@beta.test>` }, "from", "it shows help@bank.example"},
		"from showing its own domain's address":  {func(r *sending.Request) { r.From = `"hello@beta.test" <a@beta.test>` }, "", ""},
		"from showing a subdomain's address":     {func(r *sending.Request) { r.From = `"billing@eu.beta.test" <a@beta.test>` }, "", ""},
		"sender_id: from is not read":            {func(r *sending.Request) { r.SenderID, r.From = "snd_1", `"x@evil.test" <a@beta.test>` }, "", ""},

		"text of its own":      {func(r *sending.Request) { r.Text = "Thanks\n\nAcme" }, "", ""},
		"text with NUL":        {func(r *sending.Request) { r.Text = "a\x00b" }, "text", "without NUL"},
		"text not UTF-8":       {func(r *sending.Request) { r.Text = "a\xffb" }, "text", "UTF-8"},
		"a header of its own":  {func(r *sending.Request) { r.Headers = map[string]string{"X-Entity-Ref-ID": "inv-42"} }, "", ""},
		"header Bcc":           {func(r *sending.Request) { r.Headers = map[string]string{"bcc": "x@evil.test"} }, "headers", "Bcc is set by Sesame or SES"},
		"header DKIM":          {func(r *sending.Request) { r.Headers = map[string]string{"DKIM-Signature": "v=1"} }, "headers", "Dkim-* headers"},
		"header with CRLF":     {func(r *sending.Request) { r.Headers = map[string]string{"X-A": "1\r\nBcc: x@evil.test"} }, "headers", "line break"},
		"header twice by case": {func(r *sending.Request) { r.Headers = map[string]string{"x-a": "1", "X-A": "2"} }, "headers", "given twice"},
		"21 headers":           {func(r *sending.Request) { r.Headers = manyHeaders(21) }, "headers", "at most 20"},
		"20 headers":           {func(r *sending.Request) { r.Headers = manyHeaders(20) }, "", ""},
		"tags": {func(r *sending.Request) {
			r.Tags = []email.Tag{{Name: "kind", Value: "receipt"}, {Name: "plan_2", Value: "pro-x"}}
		}, "", ""},
		"tag with a space":              {func(r *sending.Request) { r.Tags = []email.Tag{{Name: "kind", Value: "a b"}} }, "tags", "tags[0].value may hold only"},
		"tag name empty":                {func(r *sending.Request) { r.Tags = []email.Tag{{Name: "", Value: "x"}} }, "tags", "tags[0].name must be 1 to 256"},
		"tag value of 257":              {func(r *sending.Request) { r.Tags = []email.Tag{{Name: "a", Value: strings.Repeat("v", 257)}} }, "tags", "1 to 256"},
		"tag name twice":                {func(r *sending.Request) { r.Tags = []email.Tag{{Name: "a", Value: "1"}, {Name: "a", Value: "2"}} }, "tags", "given twice"},
		"11 tags":                       {func(r *sending.Request) { r.Tags = make([]email.Tag, 11) }, "tags", "at most 10"},
		"cc is refused for /send/batch": {func(r *sending.Request) { r.Cc = json.RawMessage(`"c@example.org"`) }, "cc", "POST /api/v1/send/batch"},
		"bcc is refused":                {func(r *sending.Request) { r.Bcc = json.RawMessage(`["c@example.org"]`) }, "bcc", "/send/batch"},
		"scheduled_at":                  {func(r *sending.Request) { r.ScheduledAt = "2026-12-01T09:00:00+01:00" }, "", ""},
		"scheduled_at without offset":   {func(r *sending.Request) { r.ScheduledAt = "2026-12-01T09:00:00" }, "scheduled_at", "RFC 3339"},
		"scheduled_at a date":           {func(r *sending.Request) { r.ScheduledAt = "tomorrow" }, "scheduled_at", "RFC 3339"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := validRequest()
			tc.edit(&r)
			err := r.Validate()
			if tc.param == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				// What validation accepts, Build writes: one address reading.
				if _, err := raw.Build(compose.Message{
					From: mail.Address{Address: "billing@acme.test"}, To: r.To, ReplyTo: r.ReplyTo,
					Subject: r.Subject, HTML: r.HTML, Text: r.Text, Headers: r.Headers, EmailID: emailID,
				}); err != nil {
					t.Errorf("Build refuses a valid request: %v", err)
				}
				return
			}
			e, ok := fail.As(err)
			if !ok || e.Kind != fail.KindInvalid || e.Param != tc.param {
				t.Fatalf("Validate = %v, want invalid %s", err, tc.param)
			}
			if !strings.Contains(e.Message, tc.message) {
				t.Errorf("message %q does not say %q", e.Message, tc.message)
			}
		})
	}
}

func manyHeaders(n int) map[string]string {
	h := make(map[string]string, n)
	for i := range n {
		h[fmt.Sprintf("X-Ref-%d", i)] = "v"
	}
	return h
}
