package compose_test

import (
	"bytes"
	"errors"
	"mime"
	"net/mail"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/compose/raw"
)

// FuzzHTMLToText: the text alternative of any HTML. It never panics, its
// white space is collapsed, and it shows no markup: every '<' in it is one
// the HTML shows as text (a '<' that starts no tag, or an entity).
func FuzzHTMLToText(f *testing.F) {
	f.Add("<p>Hello <b>Bob</b></p><!-- x --><script>x</script>&lt;b&gt; a < b")
	f.Fuzz(func(t *testing.T, in string) {
		out := compose.HTMLToText(in)
		if utf8.ValidString(in) && !utf8.ValidString(out) {
			t.Errorf("HTMLToText(%q) = %q: not UTF-8", in, out)
		}
		if out != strings.TrimSpace(out) || strings.Contains(out, "  ") || strings.Contains(out, "\n\n\n") || strings.Contains(out, " \n") || strings.Contains(out, "\n ") {
			t.Errorf("HTMLToText(%q) = %q: white space not collapsed", in, out)
		}
		shown := strings.Count(in, "&")
		for i := 0; i < len(in); i++ {
			if in[i] == '<' && (i+1 == len(in) || !startsTag(in[i+1])) {
				shown++
			}
		}
		if n := strings.Count(out, "<"); n > shown {
			t.Errorf("HTMLToText(%q) = %q: %d '<', the HTML shows %d as text", in, out, n, shown)
		}
	})
}

func startsTag(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '/' || c == '!' || c == '?'
}

// FuzzBuild: any message Build takes reads back with the recipient, the
// sender, the reply-to and the subject it was given, with no line over
// RFC 5322's 998 octets and no header but its own; anything else it
// refuses as ErrInvalid.
func FuzzBuild(f *testing.F) {
	f.Add("Demo", "hello@demo.sesame.test", "Ann <ann@example.org>", "support@demo.sesame.test", "Hello", "<p>Hi</p>")
	f.Fuzz(func(t *testing.T, fromName, fromAddr, to, replyTo, subject, html string) {
		m := compose.Message{
			From: mail.Address{Name: fromName, Address: fromAddr}, To: to, Subject: subject, HTML: html,
			EmailID: "0190f1c2-7b3a-7cde-8f00-123456789abc",
		}
		if replyTo != "" {
			m.ReplyTo = []string{replyTo, "other@example.org"}
		}
		raw, err := raw.Build(m)
		if err != nil {
			if !errors.Is(err, compose.ErrInvalid) {
				t.Fatalf("Build: %v, want ErrInvalid or a message", err)
			}
			return
		}
		for i, line := range bytes.Split(raw, []byte("\r\n")) {
			if len(line) > 998 {
				t.Fatalf("line %d is %d octets", i, len(line))
			}
		}
		msg, err := mail.ReadMessage(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("message does not parse: %v\n%s", err, raw)
		}
		for k := range msg.Header {
			switch k {
			case "From", "To", "Reply-To", "Subject", "Date", "Message-Id", "Mime-Version", "Content-Type":
			default:
				t.Fatalf("header %s in:\n%s", k, raw)
			}
		}
		wantTo, _ := compose.ParseAddress(to)
		if got, err := msg.Header.AddressList("To"); err != nil || len(got) != 1 || *got[0] != wantTo {
			t.Fatalf("To = %v (%v), want %v", got, err, wantTo)
		}
		if got, err := msg.Header.AddressList("From"); err != nil || len(got) != 1 || got[0].Address != fromAddr {
			t.Fatalf("From = %v (%v), want %s", got, err, fromAddr)
		}
		if replyTo != "" {
			want, _ := compose.ParseAddress(replyTo)
			if got, err := msg.Header.AddressList("Reply-To"); err != nil || len(got) != 2 || *got[0] != want {
				t.Fatalf("Reply-To = %v (%v), want %v first", got, err, want)
			}
		}
		got, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
		if err != nil || got != subject {
			t.Fatalf("Subject reads back as %q (%v), want %q", got, err, subject)
		}
	})
}
