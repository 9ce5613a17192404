// Package raw builds the raw MIME message of a compose.Message with
// github.com/wneessen/go-mail, which does the MIME structure, encodings
// and header folding. Apart from compose so that only the functions that
// send link go-mail (and its x/text and html/template): every function
// that reads the table links compose's types through internal/sending.
package raw

import (
	"bytes"
	"fmt"
	"net/textproto"
	"strings"
	"unicode/utf8"

	gomail "github.com/wneessen/go-mail"

	"github.com/sesame-mail/sesame/internal/compose"
)

// Build returns the RFC 5322 message: multipart/alternative with a
// text/plain part (m.Text, else derived from the HTML) and the text/html part, wrapped in
// multipart/mixed when there are attachments.
func Build(m compose.Message) ([]byte, error) {
	from, to, replyTo, err := m.Addresses()
	if err != nil {
		return nil, err
	}
	msg := gomail.NewMsg(gomail.WithNoDefaultUserAgent(), gomail.WithCharset(gomail.CharsetUTF8))
	msg.FromMailAddress(&from)
	msg.ToMailAddress(&to)
	if len(replyTo) > 0 {
		// go-mail takes several Reply-To addresses only as text: the
		// canonical form of what ParseAddress read, which it reads alike.
		if err := msg.SetAddrHeader(gomail.HeaderReplyTo, replyTo...); err != nil {
			return nil, fmt.Errorf("%w: reply_to: %v", compose.ErrInvalid, err)
		}
	}
	setSubject(msg, m.Subject)
	msg.SetDate()
	msg.SetMessageIDWithValue(m.MessageID())
	for k, v := range m.Headers {
		msg.SetGenHeader(gomail.Header(textproto.CanonicalMIMEHeaderKey(k)), v)
	}

	text := m.Text
	if text == "" {
		text = compose.HTMLToText(m.HTML)
	}
	msg.SetBodyString(gomail.TypeTextPlain, text)
	msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)

	size := 2*len(m.HTML) + 2048
	for _, a := range m.Attachments {
		msg.AttachReadSeeker(a.Filename, bytes.NewReader(a.Data), attachmentHeaders(a))
		size += len(a.Data)*4/3 + len(a.Data)/38 + 512 // base64 + CRLF per 76 chars
	}

	var buf bytes.Buffer
	buf.Grow(size)
	if _, err := msg.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("compose: write message: %w", err)
	}
	return buf.Bytes(), nil
}

// Subject encoding: a plain subject is written as it is and go-mail folds
// it between words; any other is written as RFC 2047 encoded-words, one
// per line, so no line of the header passes 78 octets (RFC 5322 allows
// 998) however long the subject or its words.
const (
	// maxPlainWord is the longest word a folded line holds: " " + 77.
	maxPlainWord = 77
	// maxEncodedText fills an encoded-word to 69 octets, so even the first
	// line, "Subject: =?UTF-8?Q?…?=", stays within 78.
	maxEncodedText = 57
)

func setSubject(msg *gomail.Msg, s string) {
	if plainSubject(s) {
		msg.Subject(s)
		return
	}
	msg.SetGenHeaderPreformatted(gomail.HeaderSubject, encodedWords(s))
}

// plainSubject reports whether s reads back exactly as written: printable
// ASCII, words of a line's length at most, single spaces only (a reader
// unfolds any run of white space at a fold into one space), and no "=?",
// which a reader would decode as an encoded-word.
func plainSubject(s string) bool {
	if strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") || strings.Contains(s, "  ") || strings.Contains(s, "=?") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] > '~' {
			return false
		}
	}
	for w := range strings.SplitSeq(s, " ") {
		if len(w) > maxPlainWord {
			return false
		}
	}
	return true
}

// encodedWords is s as Q encoded-words in UTF-8, each cut at a character
// boundary and folded onto its own line. White space between encoded-words
// is not part of the text, so s reads back exactly, spaces included.
func encodedWords(s string) string {
	var out, word strings.Builder
	flush := func() {
		if out.Len() > 0 {
			out.WriteString("\r\n ")
		}
		out.WriteString("=?UTF-8?Q?" + word.String() + "?=")
		word.Reset()
	}
	var enc []byte
	for len(s) > 0 {
		_, n := utf8.DecodeRuneInString(s)
		enc = enc[:0]
		for _, b := range []byte(s[:n]) {
			switch {
			case b == ' ':
				enc = append(enc, '_')
			case b > ' ' && b <= '~' && b != '=' && b != '?' && b != '_':
				enc = append(enc, b)
			default:
				enc = append(enc, '=', "0123456789ABCDEF"[b>>4], "0123456789ABCDEF"[b&15])
			}
		}
		if word.Len()+len(enc) > maxEncodedText {
			flush()
		}
		word.Write(enc)
		s = s[n:]
	}
	if word.Len() > 0 {
		flush()
	}
	return out.String()
}
