// Package compose builds the raw MIME message of an outgoing email.
//
// The MIME structure, encodings and header folding come from
// github.com/wneessen/go-mail; this package only maps a Message onto it and
// refuses input that could smuggle extra headers.
package compose

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"net/mail"
	"net/textproto"
	"strings"
	"unicode/utf8"

	gomail "github.com/wneessen/go-mail"
)

// Attachment is a file sent with the message.
type Attachment struct {
	Filename    string
	ContentType string // empty: guessed from the filename's extension
	Data        []byte
}

// Message is an outgoing email, already rendered.
type Message struct {
	From        mail.Address
	To          string // one address
	ReplyTo     []string
	Subject     string
	HTML        string
	Attachments []Attachment
	// Headers are extra headers, e.g. List-Unsubscribe and
	// List-Unsubscribe-Post for campaigns.
	Headers map[string]string
	// EmailID makes the Message-ID: <EmailID@FromDomain>.
	EmailID string
}

// ErrInvalid is wrapped by every error about the Message's content.
var ErrInvalid = errors.New("compose: invalid message")

// reserved headers are written by Build itself; letting Headers set them
// would duplicate or contradict them (e.g. a second From or Bcc).
var reserved = map[string]bool{
	"From": true, "To": true, "Cc": true, "Bcc": true, "Reply-To": true,
	"Sender": true, "Subject": true, "Date": true, "Message-Id": true,
	"Mime-Version": true, "Content-Type": true, "Content-Transfer-Encoding": true,
	"Content-Disposition": true, "Return-Path": true,
}

// Build returns the RFC 5322 message: multipart/alternative with a
// text/plain part derived from the HTML and the text/html part, wrapped in
// multipart/mixed when there are attachments.
func Build(m Message) ([]byte, error) {
	if err := validate(m); err != nil {
		return nil, err
	}
	msg := gomail.NewMsg(gomail.WithNoDefaultUserAgent(), gomail.WithCharset(gomail.CharsetUTF8))

	from, to, replyTo, err := addresses(m)
	if err != nil {
		return nil, err
	}
	msg.FromMailAddress(&from)
	msg.ToMailAddress(&to)
	if len(replyTo) > 0 {
		// go-mail takes several Reply-To addresses only as text: the
		// canonical form of what ParseAddress read, which it reads alike.
		if err := msg.SetAddrHeader(gomail.HeaderReplyTo, replyTo...); err != nil {
			return nil, fmt.Errorf("%w: reply_to: %v", ErrInvalid, err)
		}
	}
	setSubject(msg, m.Subject)
	msg.SetDate()
	msg.SetMessageIDWithValue(m.EmailID + "@" + domainOf(m.From.Address))
	for k, v := range m.Headers {
		msg.SetGenHeader(gomail.Header(textproto.CanonicalMIMEHeaderKey(k)), v)
	}

	msg.SetBodyString(gomail.TypeTextPlain, HTMLToText(m.HTML))
	msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)

	size := 2*len(m.HTML) + 2048
	for _, a := range m.Attachments {
		var opts []gomail.FileOption
		if a.ContentType != "" {
			opts = append(opts, gomail.WithFileContentType(gomail.ContentType(a.ContentType)))
		}
		msg.AttachReadSeeker(a.Filename, bytes.NewReader(a.Data), opts...)
		size += len(a.Data)*4/3 + len(a.Data)/38 + 512 // base64 + CRLF per 76 chars
	}

	var buf bytes.Buffer
	buf.Grow(size)
	if _, err := msg.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("compose: write message: %w", err)
	}
	return buf.Bytes(), nil
}

// addresses reads From, To and Reply-To with ParseAddress, the reading the
// API validated them with, so what it accepted is what gets written. A
// sender's display name may show no address on another domain.
func addresses(m Message) (from, to mail.Address, replyTo []string, err error) {
	if from, err = ParseAddress(m.From.String()); err != nil {
		return from, to, nil, fmt.Errorf("%w: from %q: %v", ErrInvalid, m.From.Address, err)
	}
	if to, err = ParseAddress(m.To); err != nil {
		return from, to, nil, fmt.Errorf("%w: to: %v", ErrInvalid, err)
	}
	senders := []mail.Address{from}
	for i, r := range m.ReplyTo {
		a, err := ParseAddress(r)
		if err != nil {
			return from, to, nil, fmt.Errorf("%w: reply_to[%d]: %v", ErrInvalid, i, err)
		}
		senders = append(senders, a)
		replyTo = append(replyTo, a.String())
	}
	for _, a := range senders {
		if err := CheckSenderName(a); err != nil {
			return from, to, nil, fmt.Errorf("%w: %s: %v", ErrInvalid, a.Address, err)
		}
	}
	return from, to, replyTo, nil
}

func validate(m Message) error {
	if m.EmailID == "" || strings.ContainsAny(m.EmailID, "<>@ \t\"\\") {
		return fmt.Errorf("%w: email id %q cannot be a Message-ID local part", ErrInvalid, m.EmailID)
	}
	// go-mail writes header values verbatim apart from RFC 2047 encoding, so
	// a CR or LF here would end the header and start a new one.
	values := map[string]string{
		"from name": m.From.Name, "from address": m.From.Address,
		"to": m.To, "subject": m.Subject, "email id": m.EmailID,
	}
	for i, r := range m.ReplyTo {
		values[fmt.Sprintf("reply_to[%d]", i)] = r
	}
	for i, a := range m.Attachments {
		if a.Filename == "" {
			return fmt.Errorf("%w: attachments[%d]: filename is empty", ErrInvalid, i)
		}
		values[fmt.Sprintf("attachments[%d].filename", i)] = a.Filename
		values[fmt.Sprintf("attachments[%d].content_type", i)] = a.ContentType
		if a.ContentType != "" {
			if _, _, err := mime.ParseMediaType(a.ContentType); err != nil {
				return fmt.Errorf("%w: attachments[%d].content_type %q", ErrInvalid, i, a.ContentType)
			}
		}
	}
	seen := make(map[string]bool, len(m.Headers))
	for k, v := range m.Headers {
		if !validFieldName(k) {
			return fmt.Errorf("%w: header name %q", ErrInvalid, k)
		}
		ck := textproto.CanonicalMIMEHeaderKey(k)
		if reserved[ck] {
			return fmt.Errorf("%w: header %q is set by the composer", ErrInvalid, k)
		}
		if seen[ck] { // "x-a" and "X-A" would overwrite each other at random
			return fmt.Errorf("%w: header %q given twice", ErrInvalid, k)
		}
		seen[ck] = true
		values["header "+k] = v
	}
	for name, v := range values {
		if strings.ContainsAny(v, "\r\n\x00") {
			return fmt.Errorf("%w: %s contains a line break or NUL", ErrInvalid, name)
		}
	}
	return nil
}

// validFieldName reports whether s is an RFC 5322 field name: printable
// ASCII except the colon.
func validFieldName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f || s[i] == ':' {
			return false
		}
	}
	return true
}

func domainOf(addr string) string {
	i := strings.LastIndexByte(addr, '@')
	if i < 0 {
		return ""
	}
	return addr[i+1:]
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
