package devstack_test

import (
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"strings"
	"testing"
)

// receivedHTML is what a recipient's client shows of a raw message: its
// decoded subject and text/html part.
func receivedHTML(t *testing.T, raw []byte) (subject, html string) {
	t.Helper()
	msg := parseRaw(t, raw)
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		t.Fatal(err)
	}
	return subject, htmlLeaf(t, msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), msg.Body)
}

// htmlLeaf is the first text/html leaf of a MIME body, decoded.
func htmlLeaf(t *testing.T, contentType, cte string, body io.Reader) string {
	t.Helper()
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(mt, "multipart/") {
		r := multipart.NewReader(body, params["boundary"])
		for {
			p, err := r.NextPart() // undoes quoted-printable
			if err == io.EOF {
				return ""
			}
			if err != nil {
				t.Fatal(err)
			}
			if h := htmlLeaf(t, p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), p); h != "" {
				return h
			}
		}
	}
	if mt != "text/html" {
		return ""
	}
	data, err := io.ReadAll(body)
	if err != nil {
		t.Fatal(err)
	}
	if strings.EqualFold(cte, "base64") {
		if data, err = base64.StdEncoding.DecodeString(strings.NewReplacer("\r", "", "\n", "").Replace(string(data))); err != nil {
			t.Fatal(err)
		}
	}
	return string(data)
}
