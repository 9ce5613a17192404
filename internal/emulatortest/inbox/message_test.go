package inbox_test

import (
	"errors"
	"net/mail"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/compose/raw"
	"github.com/sesame-mail/sesame/internal/emulatortest/inbox"
)

func built(t *testing.T) string {
	t.Helper()
	b, err := raw.Build(compose.Message{
		From: mail.Address{Name: "Acme", Address: "hello@acme.test"}, To: "ann@example.test", Subject: "Grüße",
		HTML: "<p>Hello Ann</p>", EmailID: "0190f1c2-7b3a-7cde-8f00-123456789abc",
		Attachments: []compose.Attachment{{Filename: "Überblick.csv", ContentType: "text/csv", Data: []byte("a;b\r\n")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// What the composer writes reads with no defect; each way a message can
// break the rules is reported.
func TestParse(t *testing.T) {
	good := built(t)
	m := inbox.Parse([]byte(good))
	if len(m.Defects) != 0 || m.Subject != "Grüße" || !strings.Contains(m.HTML, "Hello Ann") || !strings.Contains(m.Text, "Hello Ann") ||
		len(m.To) != 1 || m.To[0] != "ann@example.test" || len(m.Attachments) != 1 || m.Attachments[0].Filename != "Überblick.csv" {
		t.Fatalf("composed message: %+v", m)
	}
	body := good[strings.Index(good, "\r\n\r\n"):]
	cases := map[string]struct {
		raw, defect string
	}{
		"bare LF":             {raw: strings.Replace(good, "\r\n", "\n", 1), defect: "bare LF"},
		"bare CR":             {raw: strings.Replace(good, "\r\n", "\r", 1), defect: "bare CR"},
		"line over 998":       {raw: "X-Long: " + strings.Repeat("a", 1000) + "\r\n" + good, defect: "over 998"},
		"no Date":             {raw: strings.Replace(good, "Date:", "X-Date:", 1), defect: "0 Date headers"},
		"two Subjects":        {raw: "Subject: again\r\n" + good, defect: "2 Subject headers"},
		"8-bit header":        {raw: "X-Name: Zoë\r\n" + good, defect: "octet 0xc3"},
		"bad Message-ID":      {raw: strings.Replace(good, "Message-ID: <", "Message-ID: ", 1), defect: "Message-ID"},
		"encoded-word name":   {raw: strings.Replace(good, "filename*=UTF-8''%C3%9Cberblick.csv", `filename="=?UTF-8?q?=C3=9Cberblick.csv?="`, 1), defect: "encoded-word in a parameter"},
		"no html part":        {raw: strings.Replace(good, "text/html", "text/x-other", 1), defect: "0 text/html"},
		"bad base64":          {raw: strings.Replace(good, "YTtiDQo=", "YTtiDQo", 1), defect: "text/csv part"},
		"no blank line":       {raw: strings.SplitN(good, "\r\n\r\n", 2)[0], defect: "no blank line"},
		"a header field only": {raw: "Not a field\r\n" + body, defect: "header"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if tc.raw == good {
				t.Fatal("the case changed nothing")
			}
			m := inbox.Parse([]byte(tc.raw))
			if !strings.Contains(strings.Join(m.Defects, "\n"), tc.defect) {
				t.Errorf("defects %q, want one with %q", m.Defects, tc.defect)
			}
		})
	}
}

// Python's email package, the second reader, finds no defect in what the
// composer writes, and reports the encoded-word file names go-mail wrote.
func TestPythonDefects(t *testing.T) {
	good := built(t)
	old := strings.Replace(good, "filename*=UTF-8''%C3%9Cberblick.csv", `filename="=?UTF-8?q?=C3=9Cberblick.csv?="`, 1)
	got, err := inbox.PythonDefects(t.Context(), [][]byte{[]byte(good), []byte(old)})
	if errors.Is(err, inbox.ErrNoPython) {
		t.Skip("python3 is not installed")
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(got[0]) != 0 || !strings.Contains(strings.Join(got[1], "\n"), "encoded word inside quoted string") {
		t.Errorf("defects %q, want none for the composed message and the encoded-word name reported", got)
	}
}
