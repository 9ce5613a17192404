package attachment

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/attachment/attachmenttest"
	"github.com/sesame-mail/sesame/internal/fail"
)

func TestValidate(t *testing.T) {
	ok := Input{Filename: "a.pdf", Content: attachmenttest.B64(attachmenttest.PDF)}
	many := func(n int) []Input {
		in := make([]Input, n)
		for i := range in {
			in[i] = ok
		}
		return in
	}
	tests := map[string]struct {
		in   []Input
		want []string // message parts; nil means valid
	}{
		"none":                {in: nil},
		"pdf content":         {in: []Input{{Filename: "report.pdf", Content: attachmenttest.B64(attachmenttest.PDF), ContentType: "application/pdf"}}},
		"png url":             {in: []Input{{Filename: "logo.png", URL: attachmenttest.Ptr("https://cdn.example.com/logo.png")}}},
		"http url with port":  {in: []Input{{Filename: "logo.png", URL: attachmenttest.Ptr("http://cdn.example.com:8080/logo.png?v=2")}}},
		"20 attachments":      {in: many(20)},
		"inline exactly cap":  {in: []Input{{Filename: "big.bin", Content: attachmenttest.B64(make([]byte, MaxInlineBytes))}}},
		"content type params": {in: []Input{{Filename: "a.txt", Content: attachmenttest.B64([]byte("hi")), ContentType: "Text/Plain; charset=utf-8"}}},
		"exe inside name ok":  {in: []Input{{Filename: "setup.exe.pdf", Content: attachmenttest.B64(attachmenttest.PDF)}}},
		"unicode filename":    {in: []Input{{Filename: "Résumé 2024.pdf", Content: attachmenttest.B64(attachmenttest.PDF)}}},

		"21 attachments":              {in: many(21), want: []string{"at most 20 attachments", "got 21"}},
		"content and url":             {in: []Input{ok, {Filename: "b.pdf", Content: attachmenttest.B64(attachmenttest.PDF), URL: attachmenttest.Ptr("https://example.com/b.pdf")}}, want: []string{`attachments[1] ("b.pdf")`, "not both"}},
		"neither":                     {in: []Input{{Filename: "c.pdf"}}, want: []string{`attachments[0] ("c.pdf")`, "content or url is required"}},
		"bad base64":                  {in: []Input{{Filename: "d.pdf", Content: attachmenttest.Ptr("not*base64!")}}, want: []string{`attachments[0] ("d.pdf")`, "not valid base64"}},
		"mixed alphabets":             {in: []Input{{Filename: "d.pdf", Content: attachmenttest.Ptr("ab+c-d__")}}, want: []string{"not valid base64"}},
		"empty content":               {in: []Input{{Filename: "d.pdf", Content: attachmenttest.Ptr("")}}, want: []string{"content is empty"}},
		"exe":                         {in: []Input{{Filename: "setup.exe", Content: attachmenttest.B64(attachmenttest.PDF)}}, want: []string{`("setup.exe")`, "file type .exe is not allowed"}},
		"BAT upper case":              {in: []Input{{Filename: "RUN.BAT", Content: attachmenttest.B64(attachmenttest.PDF)}}, want: []string{"file type .bat is not allowed"}},
		"js by url":                   {in: []Input{{Filename: "app.js", URL: attachmenttest.Ptr("https://example.com/app.js")}}, want: []string{"file type .js is not allowed"}},
		"exe trailing dot":            {in: []Input{{Filename: "setup.exe. ", Content: attachmenttest.B64(attachmenttest.PDF)}}, want: []string{"file type .exe is not allowed"}},
		"empty filename":              {in: []Input{{Filename: "", Content: attachmenttest.B64(attachmenttest.PDF)}}, want: []string{`attachments[0] ("")`, "filename is required"}},
		"filename CRLF":               {in: []Input{{Filename: "a.pdf\r\nBcc: x@example.com", Content: attachmenttest.B64(attachmenttest.PDF)}}, want: []string{`\r\n`, "control characters"}},
		"filename NUL":                {in: []Input{{Filename: "a\x00.pdf", Content: attachmenttest.B64(attachmenttest.PDF)}}, want: []string{"control characters"}},
		"filename bidi":               {in: []Input{{Filename: "invoice\u202efdp.scr.pdf", Content: attachmenttest.B64(attachmenttest.PDF)}}, want: []string{"control characters"}},
		"filename slash":              {in: []Input{{Filename: "../etc/passwd", Content: attachmenttest.B64(attachmenttest.PDF)}}, want: []string{"path separators"}},
		"filename backslash":          {in: []Input{{Filename: `C:\a.pdf`, Content: attachmenttest.B64(attachmenttest.PDF)}}, want: []string{"path separators"}},
		"filename dotdot":             {in: []Input{{Filename: "..", Content: attachmenttest.B64(attachmenttest.PDF)}}, want: []string{"not a file name"}},
		"filename too long":           {in: []Input{{Filename: strings.Repeat("a", 252) + ".pdf", Content: attachmenttest.B64(attachmenttest.PDF)}}, want: []string{"longer than 255 bytes", "…"}},
		"filename bad utf8":           {in: []Input{{Filename: "a\xff.pdf", Content: attachmenttest.B64(attachmenttest.PDF)}}, want: []string{"not valid UTF-8"}},
		"inline over cap":             {in: []Input{{Filename: "big.bin", Content: attachmenttest.B64(make([]byte, MaxInlineBytes+1))}}, want: []string{"content exceeds 3 MB decoded", "url"}},
		"ftp url":                     {in: []Input{{Filename: "a.pdf", URL: attachmenttest.Ptr("ftp://example.com/a.pdf")}}, want: []string{"absolute http or https"}},
		"url without host":            {in: []Input{{Filename: "a.pdf", URL: attachmenttest.Ptr("http:///a.pdf")}}, want: []string{"absolute http or https"}},
		"relative url":                {in: []Input{{Filename: "a.pdf", URL: attachmenttest.Ptr("/files/a.pdf")}}, want: []string{"absolute http or https"}},
		"opaque url":                  {in: []Input{{Filename: "a.pdf", URL: attachmenttest.Ptr("https:example.com/a.pdf")}}, want: []string{"absolute http or https"}},
		"javascript url":              {in: []Input{{Filename: "a.pdf", URL: attachmenttest.Ptr("javascript:alert(1)")}}, want: []string{"absolute http or https"}},
		"url with userinfo":           {in: []Input{{Filename: "a.pdf", URL: attachmenttest.Ptr("https://user:pw@example.com/a.pdf")}}, want: []string{"user name or password"}},
		"url too long":                {in: []Input{{Filename: "a.pdf", URL: attachmenttest.Ptr("https://example.com/" + strings.Repeat("a", 2048))}}, want: []string{"longer than 2048"}},
		"bad content type":            {in: []Input{{Filename: "a.pdf", Content: attachmenttest.B64(attachmenttest.PDF), ContentType: "pdf"}}, want: []string{"content_type is not a valid MIME type"}},
		"content type names the part": {in: []Input{{Filename: "invoice.pdf", Content: attachmenttest.B64(attachmenttest.PDF), ContentType: "application/octet-stream; name=\"payload.exe\""}}, want: []string{"bare media type"}},
		"content type with charset":   {in: []Input{{Filename: "notes.txt", Content: attachmenttest.B64([]byte("hi")), ContentType: "text/plain; charset=utf-8"}}},
		"content type CRLF":           {in: []Input{{Filename: "a.pdf", Content: attachmenttest.B64(attachmenttest.PDF), ContentType: "application/pdf\r\nX: y"}}, want: []string{"content_type is not a valid MIME type"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := Validate(tc.in)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Validate = %v, want nil", err)
				}
				return
			}
			attachmenttest.WantError(t, err, fail.KindInvalid, tc.want...)
		})
	}
}

func TestDecodeBase64(t *testing.T) {
	data := []byte("any carnal pleas\xfb\xff") // exercises + / - _ and padding
	std := base64.StdEncoding.EncodeToString(data)
	tests := map[string]struct {
		in      string
		want    []byte
		wantErr bool
	}{
		"std padded":        {in: std, want: data},
		"std unpadded":      {in: base64.RawStdEncoding.EncodeToString(data), want: data},
		"url padded":        {in: base64.URLEncoding.EncodeToString(data), want: data},
		"url unpadded":      {in: base64.RawURLEncoding.EncodeToString(data), want: data},
		"wrapped lines":     {in: std[:8] + "\r\n" + std[8:16] + "\n " + std[16:] + "\n", want: data},
		"tabs and spaces":   {in: "\t" + std[:4] + " " + std[4:], want: data},
		"one char":          {in: "Q", wantErr: true},
		"padding in middle": {in: "QQ==QQ==", wantErr: true},
		"not base64":        {in: "héllo", wantErr: true},
		"too large":         {in: strings.Repeat("A", (MaxInlineBytes/3+1)*4), wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := decodeBase64(tc.in)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("decodeBase64 = %q, want error", got)
				}
				return
			}
			if err != nil || !bytes.Equal(got, tc.want) {
				t.Fatalf("decodeBase64 = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// TestBlockedExtensions pins the copied SES list so an edit cannot silently
// drop an entry, and checks matching ignores case.
func TestBlockedExtensions(t *testing.T) {
	if len(blockedExt) != 90 {
		t.Errorf("blocked extensions = %d, want the 90 of the SES list", len(blockedExt))
	}
	for ext := range blockedExt {
		for _, name := range []string{"f" + ext, "F" + strings.ToUpper(ext)} {
			if Validate([]Input{{Filename: name, URL: attachmenttest.Ptr("https://example.com/f")}}) == nil {
				t.Errorf("%s was accepted", name)
			}
		}
	}
	for _, name := range []string{"a.pdf", "a.docx", "a.zip", "a.png", "a.csv", "README"} {
		if err := Validate([]Input{{Filename: name, URL: attachmenttest.Ptr("https://example.com/f")}}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
