// Package compose is an outgoing email before it is written: the Message,
// its checks (refusing input that could smuggle extra headers, sender
// names that show another domain) and the text part derived from its
// HTML. Its raw MIME form is written by compose/raw.
package compose

import (
	"errors"
	"fmt"
	"mime"
	"net/mail"
	"net/textproto"
	"strings"
	"unicode/utf8"
)

// Attachment is a file sent with the message.
type Attachment struct {
	Filename    string
	ContentType string // empty: guessed from the filename's extension
	Data        []byte
}

// Message is an outgoing email, already rendered.
type Message struct {
	From    mail.Address
	To      string // one address
	ReplyTo []string
	Subject string
	HTML    string
	// Text is the text/plain part as the caller wrote it; empty: derived
	// from HTML.
	Text        string
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

// callerReserved are headers a caller's own (CheckCallerHeader) may not
// set beyond those Build writes: each changes routing, authentication or
// the MIME structure, or is written by SES or the stack on its way out.
var callerReserved = map[string]bool{
	"Received": true, "Authentication-Results": true, "Received-Spf": true,
	"Mime-Version": true, "Message-Id": true, "Date": true,
	"Delivered-To": true, "Envelope-To": true, "Errors-To": true,
	"Disposition-Notification-To": true, "Return-Receipt-To": true,
	"Feedback-Id": true, "List-Id": true, "Resent-From": true,
}

// callerReservedPrefixes are the families of headers a caller may not set
// (canonical form): signatures, the one-click unsubscribe the stack owns,
// MIME part headers, SES's own directives and resent blocks.
var callerReservedPrefixes = []string{"Dkim-", "Arc-", "List-Unsubscribe", "Content-", "X-Ses-", "Resent-"}

// MaxCallerHeaderValue bounds a caller header's value, so the field
// stays within a line's 998 octets however the name runs.
const MaxCallerHeaderValue = 900

// CheckCallerHeader refuses a header a caller asks for (the send's
// headers) unless it is a valid field that Build, SES and the stack leave
// alone: one line of printable text (tab allowed), no header that changes
// routing, authentication or the MIME structure. Errors wrap ErrInvalid.
func CheckCallerHeader(name, value string) error {
	if !validFieldName(name) || len(name) > 76 {
		return fmt.Errorf("%w: %q is not a header name (printable ASCII, no spaces or colons, at most 76 characters)", ErrInvalid, name)
	}
	ck := textproto.CanonicalMIMEHeaderKey(name)
	if reserved[ck] || callerReserved[ck] {
		return fmt.Errorf("%w: %s is set by Sesame or SES and cannot be given", ErrInvalid, ck)
	}
	for _, p := range callerReservedPrefixes {
		if strings.HasPrefix(ck, p) {
			return fmt.Errorf("%w: %s* headers are set by Sesame or SES and cannot be given", ErrInvalid, p)
		}
	}
	if len(value) > MaxCallerHeaderValue {
		return fmt.Errorf("%w: the value of %s is over %d bytes", ErrInvalid, ck, MaxCallerHeaderValue)
	}
	if !utf8.ValidString(value) {
		return fmt.Errorf("%w: the value of %s is not UTF-8", ErrInvalid, ck)
	}
	for _, r := range value {
		if r < ' ' && r != '\t' || r == 0x7f {
			return fmt.Errorf("%w: the value of %s holds a line break or another control character", ErrInvalid, ck)
		}
	}
	return nil
}

// Addresses checks m and returns its From, To and Reply-To as a build
// writes them; every error wraps ErrInvalid.
func (m Message) Addresses() (from, to mail.Address, replyTo []string, err error) {
	if err := validate(m); err != nil {
		return from, to, nil, err
	}
	return addresses(m)
}

// MessageID is the Message-ID of m: <EmailID@FromDomain>, without the
// angle brackets.
func (m Message) MessageID() string { return m.EmailID + "@" + domainOf(m.From.Address) }

// addresses reads From, To and Reply-To with ParseAddress, the reading the
// API validated them with, so what it accepted is what gets written. A
// sender's display name may show no address on another domain.
func addresses(m Message) (from, to mail.Address, replyTo []string, err error) {
	if from, err = ParseSender(m.From.String()); err != nil {
		return from, to, nil, fmt.Errorf("%w: from %q: %v", ErrInvalid, m.From.Address, err)
	}
	if from.Address != m.From.Address {
		// net/mail drops what it cannot quote (control characters), so the
		// message would go out from another address than the one given.
		return from, to, nil, fmt.Errorf("%w: from %q does not read back as itself", ErrInvalid, m.From.Address)
	}
	if to, err = ParseAddress(m.To); err != nil {
		return from, to, nil, fmt.Errorf("%w: to: %v", ErrInvalid, err)
	}
	for i, r := range m.ReplyTo {
		a, err := ParseSender(r)
		if err != nil {
			return from, to, nil, fmt.Errorf("%w: reply_to[%d]: %v", ErrInvalid, i, err)
		}
		replyTo = append(replyTo, a.String())
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
