package raw

import (
	"mime"
	"net/textproto"
	"path/filepath"
	"strconv"
	"strings"

	gomail "github.com/wneessen/go-mail"

	"github.com/sesame-mail/sesame/internal/compose"
)

// attachmentHeaders sets an attachment's Content-Type and
// Content-Disposition before go-mail does: go-mail writes a non-ASCII
// file name as an RFC 2047 encoded-word inside a quoted string, which RFC
// 2047 §5 forbids and strict readers report as a defect. Ours are RFC
// 2231 parameters (name*=, filename*=), continued over folded lines when
// long.
func attachmentHeaders(a compose.Attachment) gomail.FileOption {
	return func(f *gomail.File) {
		if f.Header == nil {
			f.Header = textproto.MIMEHeader{}
		}
		name := sanitizeFilename(a.Filename)
		f.Header.Set("Content-Type", contentType(a)+nameParam("name", name))
		f.Header.Set("Content-Disposition", "attachment"+nameParam("filename", name))
	}
}

// contentType is the attachment's media type with its own parameters,
// else the type its extension names, else application/octet-stream.
func contentType(a compose.Attachment) string {
	if a.ContentType != "" {
		// compose.Message.Validate has parsed it already.
		if mt, params, err := mime.ParseMediaType(a.ContentType); err == nil {
			delete(params, "name")
			if s := mime.FormatMediaType(mt, params); s != "" {
				return s
			}
		}
	}
	if mt := mime.TypeByExtension(filepath.Ext(a.Filename)); mt != "" {
		if mt, params, err := mime.ParseMediaType(mt); err == nil {
			return mime.FormatMediaType(mt, params)
		}
	}
	return "application/octet-stream"
}

// maxSegment bounds one RFC 2231 segment, so each folded line of the
// header stays under 78 octets.
const maxSegment = 60

// nameParam is `; attr="value"` for a short printable ASCII value, else
// an RFC 2231 extended value (attr*= the charset UTF-8, two apostrophes,
// then the percent-encoded octets), split into numbered segments (attr*0*=,
// attr*1*=, …) on lines of their own when long.
func nameParam(attr, value string) string {
	if plainParam(value) && len(value) <= maxSegment {
		return `; ` + attr + `="` + value + `"`
	}
	var segs []string
	var cur strings.Builder
	for i := 0; i < len(value); i++ {
		enc := percentEncode(value[i])
		if cur.Len()+len(enc) > maxSegment {
			segs = append(segs, cur.String())
			cur.Reset()
		}
		cur.WriteString(enc)
	}
	segs = append(segs, cur.String())
	if len(segs) == 1 {
		return ";\r\n " + attr + "*=UTF-8''" + segs[0]
	}
	var b strings.Builder
	for i, s := range segs {
		b.WriteString(";\r\n " + attr + "*" + strconv.Itoa(i) + "*=")
		if i == 0 {
			b.WriteString("UTF-8''")
		}
		b.WriteString(s)
	}
	return b.String()
}

// plainParam reports whether s reads back exactly from a quoted string:
// printable ASCII without quote or backslash, and no "=?", which some
// readers would decode as an encoded-word.
func plainParam(s string) bool {
	if s == "" || strings.Contains(s, "=?") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] > '~' || s[i] == '"' || s[i] == '\\' {
			return false
		}
	}
	return true
}

// percentEncode is b as RFC 2231 writes it: an attribute-char as it is,
// anything else as %XX.
func percentEncode(b byte) string {
	const hex = "0123456789ABCDEF"
	if b > ' ' && b < 0x7f && !strings.ContainsRune(`*'%()<>@,;:\"/[]?=`, rune(b)) {
		return string(b)
	}
	return string([]byte{'%', hex[b>>4], hex[b&15]})
}

// sanitizeFilename replaces what go-mail replaced in a file name (control
// characters and "/:<>?\| ), so that a name never reads as a path.
func sanitizeFilename(s string) string {
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f || strings.ContainsRune(`"/:<>?\|`, r) {
			return '_'
		}
		return r
	}, s)
}
