// Package inbox reads what the local stack sent as its recipients get it:
// every message kept raw (sent to SES or captured from a test key) and
// every message the SES emulator took. Each is parsed with a strict MIME
// reader that reports every defect it meets, and checked per recipient
// against what the caller expects that recipient to have received.
package inbox

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// Message is one message as it left the stack, read strictly.
type Message struct {
	// EmailID is the email a kept message belongs to (its file name).
	EmailID     string
	Raw         []byte
	Header      mail.Header
	To          []string // the addresses of To, lowercased
	Subject     string   // decoded
	HTML, Text  string   // the decoded text/html and text/plain parts, LF line ends
	Attachments []Attachment
	// Defects is every way the message breaks the rules Parse enforces.
	Defects []string
}

// Attachment is a part given as an attachment.
type Attachment struct {
	Filename    string // decoded from the Content-Disposition filename
	ContentType string // the media type, without parameters
	Data        []byte
}

// maxLine is RFC 5322's limit on a line, CRLF excluded.
const maxLine = 998

// required are the headers every message has exactly once.
var required = []string{"Date", "Message-Id", "Mime-Version", "From", "To", "Subject"}

var messageID = regexp.MustCompile(`^<[^<>@\s]+@[^<>@\s]+>$`)

// Parse reads raw strictly: CRLF line ends only, no line over 998
// octets, 7-bit header fields, the required headers once each and well
// formed, a MIME tree whose every part parses and decodes, one text and
// one html part in UTF-8, and parameters free of encoded-words (RFC 2047
// §5: an encoded-word never sits in a quoted string or a parameter).
func Parse(raw []byte) Message {
	m := Message{Raw: raw}
	m.Defects = append(m.Defects, lineDefects(raw)...)
	head, _, ok := bytes.Cut(raw, []byte("\r\n\r\n"))
	if !ok {
		m.Defects = append(m.Defects, "no blank line ends the header")
	}
	m.Defects = append(m.Defects, headerDefects(head)...)
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		m.Defects = append(m.Defects, "header: "+err.Error())
		return m
	}
	m.Header = msg.Header
	m.headers()
	w := walker{m: &m}
	w.part(msg.Header, msg.Body, 0)
	if w.texts != 1 || w.htmls != 1 {
		m.defect("%d text/plain and %d text/html parts, want one each", w.texts, w.htmls)
	}
	return m
}

func (m *Message) defect(format string, args ...any) {
	m.Defects = append(m.Defects, fmt.Sprintf(format, args...))
}

// lineDefects reports bare CR or LF and lines over maxLine octets.
func lineDefects(raw []byte) []string {
	var out []string
	line, n := 1, 0
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '\r':
			if i+1 >= len(raw) || raw[i+1] != '\n' {
				out = append(out, fmt.Sprintf("line %d: bare CR", line))
			}
		case '\n':
			if i == 0 || raw[i-1] != '\r' {
				out = append(out, fmt.Sprintf("line %d: bare LF", line))
			}
			if n > maxLine {
				out = append(out, fmt.Sprintf("line %d: %d octets, over %d", line, n, maxLine))
			}
			line, n = line+1, 0
			continue
		}
		if raw[i] != '\r' {
			n++
		}
	}
	if n > maxLine {
		out = append(out, fmt.Sprintf("line %d: %d octets, over %d", line, n, maxLine))
	}
	return out
}

// headerDefects reports header fields that are not 7-bit "name: value"
// lines with folded continuations.
func headerDefects(head []byte) []string {
	var out []string
	for i, l := range strings.Split(string(head), "\r\n") {
		for j := 0; j < len(l); j++ {
			if l[j] >= 0x80 || (l[j] < ' ' && l[j] != '\t') || l[j] == 0x7f {
				out = append(out, fmt.Sprintf("header line %d: octet %#x", i+1, l[j]))
				break
			}
		}
		if l == "" || l[0] == ' ' || l[0] == '\t' {
			continue
		}
		name, _, ok := strings.Cut(l, ":")
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			out = append(out, fmt.Sprintf("header line %d %.40q is not a field", i+1, l))
		}
	}
	return out
}

// headers checks the required headers and reads To and Subject.
func (m *Message) headers() {
	for _, h := range required {
		if n := len(m.Header[h]); n != 1 {
			m.defect("%d %s headers, want 1", n, h)
		}
	}
	if _, err := m.Header.Date(); err != nil {
		m.defect("Date %q: %v", m.Header.Get("Date"), err)
	}
	if id := m.Header.Get("Message-Id"); !messageID.MatchString(id) {
		m.defect("Message-ID %q is not <local@domain>", id)
	}
	if v := m.Header.Get("Mime-Version"); v != "1.0" {
		m.defect("MIME-Version %q, want 1.0", v)
	}
	if from, err := m.Header.AddressList("From"); err != nil || len(from) != 1 {
		m.defect("From %q: %d addresses, %v", m.Header.Get("From"), len(from), err)
	}
	to, err := m.Header.AddressList("To")
	if err != nil {
		m.defect("To %q: %v", m.Header.Get("To"), err)
	}
	for _, a := range to {
		m.To = append(m.To, strings.ToLower(a.Address))
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	if err != nil {
		m.defect("Subject %q: %v", m.Header.Get("Subject"), err)
	}
	m.Subject = subject
}

// walker walks a message's MIME tree.
type walker struct {
	m            *Message
	texts, htmls int
}

// encodedParam finds an encoded-word in a parameter value.
var encodedParam = regexp.MustCompile(`=\s*"?[^";]*=\?[^?]+\?[bBqQ]\?`)

func (w *walker) part(h map[string][]string, body io.Reader, depth int) {
	get := func(k string) string {
		if v := h[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	ct := get("Content-Type")
	if ct == "" {
		ct = "text/plain; charset=us-ascii"
	}
	for _, k := range []string{"Content-Type", "Content-Disposition"} {
		if v := get(k); encodedParam.MatchString(v) {
			w.m.defect("%s %q: an encoded-word in a parameter (RFC 2047 §5; RFC 2231 is the way)", k, v)
		}
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		w.m.defect("Content-Type %q: %v", ct, err)
		return
	}
	if strings.HasPrefix(mt, "multipart/") {
		w.multipart(params["boundary"], body, depth)
		return
	}
	data, err := decode(get("Content-Transfer-Encoding"), body)
	if err != nil {
		w.m.defect("%s part: %v", mt, err)
		return
	}
	disp, dparams := "", map[string]string{}
	if d := get("Content-Disposition"); d != "" {
		if disp, dparams, err = mime.ParseMediaType(d); err != nil {
			w.m.defect("Content-Disposition %q: %v", d, err)
		}
	}
	switch {
	case disp != "attachment" && (mt == "text/plain" || mt == "text/html"):
		if cs := strings.ToLower(params["charset"]); cs != "utf-8" && cs != "us-ascii" {
			w.m.defect("%s charset %q", mt, params["charset"])
		}
		if !utf8.Valid(data) {
			w.m.defect("%s part is not valid UTF-8", mt)
		}
		// Text travels with CRLF line ends (RFC 2046 §4.1.1); a reader
		// shows it with the local ones.
		text := strings.ReplaceAll(string(data), "\r\n", "\n")
		if mt == "text/plain" {
			w.texts++
			w.m.Text = text
		} else {
			w.htmls++
			w.m.HTML = text
		}
	default:
		if disp != "attachment" {
			w.m.defect("%s part is not an attachment (disposition %q)", mt, disp)
		}
		if dparams["filename"] == "" || params["name"] != dparams["filename"] {
			w.m.defect("attachment names: filename %q, Content-Type name %q", dparams["filename"], params["name"])
		}
		w.m.Attachments = append(w.m.Attachments, Attachment{Filename: dparams["filename"], ContentType: mt, Data: data})
	}
}

func (w *walker) multipart(boundary string, body io.Reader, depth int) {
	if boundary == "" || len(boundary) > 70 {
		w.m.defect("multipart boundary %q", boundary)
		return
	}
	if depth > 3 {
		w.m.defect("multipart nested %d deep", depth)
		return
	}
	r := multipart.NewReader(body, boundary)
	for n := 0; ; n++ {
		p, err := r.NextRawPart() // the transfer encoding is decoded here, strictly
		if err == io.EOF {
			if n == 0 {
				w.m.defect("empty multipart")
			}
			return
		}
		if err != nil {
			w.m.defect("multipart: %v", err)
			return
		}
		w.part(p.Header, p, depth+1)
	}
}

// decode undoes a part's transfer encoding: 7bit must be ASCII, base64
// lines at most 76 characters, quoted-printable well formed.
func decode(cte string, body io.Reader) ([]byte, error) {
	data, err := io.ReadAll(body)
	if err != nil {
		return nil, err
	}
	switch strings.ToLower(cte) {
	case "", "7bit":
		for _, b := range data {
			if b >= 0x80 {
				return nil, fmt.Errorf("8-bit octet in a 7bit part")
			}
		}
		return data, nil
	case "8bit":
		return data, nil
	case "quoted-printable":
		for l := range strings.SplitSeq(string(data), "\r\n") {
			if len(l) > 76 {
				return nil, fmt.Errorf("quoted-printable line of %d characters, over 76", len(l))
			}
		}
		return io.ReadAll(quotedprintable.NewReader(bytes.NewReader(data)))
	case "base64":
		var clean []byte
		for l := range strings.SplitSeq(strings.TrimRight(string(data), "\r\n"), "\r\n") {
			if len(l) > 76 {
				return nil, fmt.Errorf("base64 line of %d characters, over 76", len(l))
			}
			clean = append(clean, l...)
		}
		return base64.StdEncoding.Strict().DecodeString(string(clean))
	}
	return nil, fmt.Errorf("transfer encoding %q", cte)
}

// ParseStrict is Parse for a test: each defect of raw fails t.
func ParseStrict(t testing.TB, raw []byte) Message {
	t.Helper()
	m := Parse(raw)
	for _, d := range m.Defects {
		t.Errorf("message to %v: %s", m.To, d)
	}
	return m
}
