// Package attachment handles the attachments of an outgoing email:
// validation, inline decoding and the choice of content type. Fetching
// URL attachments is the fetch sub-package's.
package attachment

import (
	"encoding/base64"
	"fmt"
	"mime"
	"net/url"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sesame-mail/sesame/internal/fail"
)

// Input is one attachment of a send request (the spec's Attachment object).
type Input struct {
	Filename    string  `json:"filename"`
	Content     *string `json:"content"` // base64
	URL         *string `json:"url"`
	ContentType string  `json:"content_type"`
}

// File is a resolved attachment ready for the MIME builder.
type File struct {
	Filename, ContentType string
	Data                  []byte
}

const (
	// MaxPerMessage is the spec's attachment count limit.
	MaxPerMessage = 20
	// MaxInlineBytes caps decoded inline content: the 5 MB request-body
	// limit with base64 overhead leaves ~3.7 MB, so 3 MB keeps room for the
	// rest of the request.
	MaxInlineBytes = 3 << 20
	// maxFilenameBytes is SES's own FileName limit (API v2 Attachment).
	maxFilenameBytes = 255
	// maxURLBytes keeps absurd URLs out of logs and requests.
	maxURLBytes = 2048
	// Param is the input field every attachment error names.
	Param = "attachments"
)

// blockedExt is SES's "Unsupported attachment types" list, copied in full
// from https://docs.aws.amazon.com/ses/latest/dg/mime-types.html. SES
// rejects the whole message when one of these is attached, so we refuse it
// up front with a clear error instead.
var blockedExt = func() map[string]bool {
	const list = `.ade .adp .app .asp .bas .bat .cer .chm .cmd .com .cpl .crt
		.csh .der .exe .fxp .gadget .hlp .hta .inf .ins .isp .its .js .jse .ksh
		.lib .lnk .mad .maf .mag .mam .maq .mar .mas .mat .mau .mav .maw .mda
		.mdb .mde .mdt .mdw .mdz .msc .msh .msh1 .msh2 .mshxml .msh1xml .msh2xml
		.msi .msp .mst .ops .pcd .pif .plg .prf .prg .reg .scf .scr .sct .shb
		.shs .sys .ps1 .ps1xml .ps2 .ps2xml .psc1 .psc2 .tmp .url .vb .vbe .vbs
		.vps .vsmacros .vss .vst .vsw .vxd .ws .wsc .wsf .wsh .xnk`
	m := make(map[string]bool)
	for _, e := range strings.Fields(list) {
		m[e] = true
	}
	return m
}()

// Validate checks the attachments of a send request without any network
// access. The error is a *fail.Error (invalid, param attachments) naming
// the attachment and the reason.
func Validate(in []Input) error {
	_, err := DecodeInline(in)
	return err
}

// DecodeInline is Validate that also returns the decoded inline content
// (nil for URL attachments), so a resolver does not decode twice.
func DecodeInline(in []Input) ([][]byte, error) {
	if len(in) > MaxPerMessage {
		return nil, fail.Invalid(Param, "at most %d attachments per message, got %d", MaxPerMessage, len(in))
	}
	inline := make([][]byte, len(in))
	for i, a := range in {
		data, reason := check(a)
		if reason != "" {
			return nil, Invalid(i, a.Filename, "%s", reason)
		}
		inline[i] = data
	}
	return inline, nil
}

// check validates one attachment and returns its decoded inline content, or
// a client-safe reason it is unacceptable.
func check(a Input) ([]byte, string) {
	if reason := checkFilename(a.Filename); reason != "" {
		return nil, reason
	}
	if a.ContentType != "" {
		if _, err := normalizeType(a.ContentType); err != nil {
			return nil, "content_type is not a valid MIME type"
		}
		if _, params, _ := mime.ParseMediaType(a.ContentType); len(params) > len(keptParams(params)) {
			return nil, "content_type must be a bare media type such as application/pdf (a charset is the only parameter taken); the file's name is filename"
		}
	}
	switch {
	case a.Content != nil && a.URL != nil:
		return nil, "give either content or url, not both"
	case a.Content == nil && a.URL == nil:
		return nil, "content or url is required"
	case a.URL != nil:
		return nil, checkURL(*a.URL)
	}
	data, err := decodeBase64(*a.Content)
	switch {
	case err == errTooLarge:
		return nil, fmt.Sprintf("content exceeds %s decoded; host the file and pass its url instead", Size(MaxInlineBytes))
	case err != nil:
		return nil, "content is not valid base64"
	case len(data) == 0:
		return nil, "content is empty"
	}
	return data, ""
}

func checkFilename(name string) string {
	switch {
	case name == "":
		return "filename is required"
	case len(name) > maxFilenameBytes:
		return fmt.Sprintf("filename is longer than %d bytes", maxFilenameBytes)
	case !utf8.ValidString(name):
		return "filename is not valid UTF-8"
	case strings.ContainsAny(name, `/\`):
		return "filename must not contain path separators"
	case name == "." || name == "..":
		return "filename is not a file name"
	}
	for _, r := range name {
		// Control characters (CR/LF above all) could break the MIME header;
		// bidi overrides disguise the real extension ("fdp.exe" shown as
		// "exe.pdf").
		if unicode.IsControl(r) || isBidiControl(r) {
			return "filename must not contain control characters"
		}
	}
	// Windows drops trailing dots and spaces, so "a.exe." opens as "a.exe".
	ext := strings.ToLower(path.Ext(strings.TrimRight(name, ". ")))
	if blockedExt[ext] {
		return fmt.Sprintf("file type %s is not allowed", ext)
	}
	return ""
}

func isBidiControl(r rune) bool {
	return r == '\u061c' || r == '\u200e' || r == '\u200f' ||
		(r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069')
}

func checkURL(raw string) string {
	const msg = "url must be an absolute http or https URL with a host"
	if len(raw) > maxURLBytes {
		return fmt.Sprintf("url is longer than %d characters", maxURLBytes)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Opaque != "" || u.Hostname() == "" {
		return msg
	}
	if u.User != nil {
		// Credentials in URLs end up in logs and proxies; ask for a
		// pre-signed or public URL instead.
		return "url must not contain a user name or password"
	}
	return ""
}

// normalizeType parses a MIME type and formats it back, which lower-cases it
// and quotes parameters safely for the MIME header.
func normalizeType(ct string) (string, error) {
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return "", err
	}
	if typ, sub, ok := strings.Cut(mt, "/"); !ok || typ == "" || sub == "" {
		return "", fmt.Errorf("media type %q has no subtype", mt)
	}
	out := mime.FormatMediaType(mt, keptParams(params))
	if out == "" {
		return "", fmt.Errorf("media type %q cannot be formatted", mt)
	}
	return out, nil
}

// keptParams are the parameters of a media type that reach the message:
// only charset. Any other (a name= above all) could give the part a name
// other than its checked filename.
func keptParams(params map[string]string) map[string]string {
	if cs, ok := params["charset"]; ok {
		return map[string]string{"charset": cs}
	}
	return nil
}

type sentinel string

func (s sentinel) Error() string { return string(s) }

const errTooLarge = sentinel("decoded content too large")

// decodeBase64 accepts the standard and URL alphabets, with or without
// padding, with any ASCII whitespace (line-wrapped encoders). It refuses to
// decode more than MaxInlineBytes before allocating.
func decodeBase64(s string) ([]byte, error) {
	if strings.ContainsAny(s, " \t\r\n\f\v") {
		s = strings.Map(func(r rune) rune {
			switch r {
			case ' ', '\t', '\r', '\n', '\f', '\v':
				return -1
			}
			return r
		}, s)
	}
	s = strings.TrimRight(s, "=")
	enc := base64.RawStdEncoding
	if strings.ContainsAny(s, "-_") {
		enc = base64.RawURLEncoding
	}
	if enc.DecodedLen(len(s)) > MaxInlineBytes {
		return nil, errTooLarge
	}
	return enc.DecodeString(s)
}

// Invalid is the client error about attachment i.
func Invalid(i int, filename, format string, args ...any) *fail.Error {
	return fail.Invalid(Param, "attachments[%d] (%s): %s", i, quoteName(filename), fmt.Sprintf(format, args...))
}

// quoteName quotes a client's filename for an error message, escaped and
// cut short so a hostile name cannot flood or forge the message.
func quoteName(name string) string {
	const max = 64
	if utf8.RuneCountInString(name) > max {
		name = string([]rune(name)[:max]) + "…"
	}
	return fmt.Sprintf("%q", name)
}

// Size formats a byte count the way limits are stated to clients.
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// ContentType picks the attachment's type: the client's, else the server's
// (unless it is only the generic binary type), else by extension, else
// application/octet-stream.
func ContentType(a Input, served string) string {
	if a.ContentType != "" {
		if ct, err := normalizeType(a.ContentType); err == nil {
			return ct
		}
	}
	if served != "" {
		if ct, err := normalizeType(served); err == nil {
			mt, _, _ := strings.Cut(ct, ";")
			if mt != "application/octet-stream" && mt != "binary/octet-stream" {
				return ct
			}
		}
	}
	if ct := mime.TypeByExtension(strings.ToLower(path.Ext(a.Filename))); ct != "" {
		return ct
	}
	return "application/octet-stream"
}
