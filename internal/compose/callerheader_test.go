package compose_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/compose"
)

// A caller's header passes only when it changes neither routing,
// authentication nor the MIME structure, and stays one clean line.
func TestCheckCallerHeader(t *testing.T) {
	ok := map[string]string{
		"X-Entity-Ref-ID": "inv-42", "In-Reply-To": "<a@b.example>", "References": "<a@b.example>",
		"X-Priority": "1", "X-Note": "Grüße\tmit Tab", "Precedence": "bulk",
	}
	for name, value := range ok {
		if err := compose.CheckCallerHeader(name, value); err != nil {
			t.Errorf("%s: %q refused: %v", name, value, err)
		}
	}
	refused := map[string][2]string{
		"from":              {"From", "x@evil.test"},
		"lower bcc":         {"bcc", "x@evil.test"},
		"cc":                {"Cc", "x@evil.test"},
		"to":                {"To", "x@evil.test"},
		"reply-to":          {"Reply-To", "x@evil.test"},
		"sender":            {"Sender", "x@evil.test"},
		"return-path":       {"Return-Path", "<x@evil.test>"},
		"dkim":              {"DKIM-Signature", "v=1"},
		"arc":               {"ARC-Seal", "i=1"},
		"authentication":    {"Authentication-Results", "pass"},
		"received":          {"Received", "from x"},
		"list-unsubscribe":  {"List-Unsubscribe", "<https://x>"},
		"one-click":         {"List-Unsubscribe-Post", "List-Unsubscribe=One-Click"},
		"list-id":           {"List-Id", "<a.b>"},
		"content-type":      {"Content-Type", "text/plain"},
		"content-transfer":  {"content-transfer-encoding", "7bit"},
		"mime-version":      {"MIME-Version", "1.0"},
		"message-id":        {"Message-ID", "<a@b>"},
		"date":              {"Date", "Mon, 1 Jan 2024 00:00:00 +0000"},
		"subject":           {"Subject", "other"},
		"ses configuration": {"X-SES-CONFIGURATION-SET", "other"},
		"ses tags":          {"x-ses-message-tags", "a=b"},
		"name colon":        {"X-A:B", "x"},
		"name space":        {"X A", "x"},
		"name empty":        {"", "x"},
		"name non-ascii":    {"X-Grüße", "x"},
		"name too long":     {"X-" + strings.Repeat("a", 80), "x"},
		"value CRLF":        {"X-Note", "a\r\nBcc: x@evil.test"},
		"value LF":          {"X-Note", "a\nb"},
		"value NUL":         {"X-Note", "a\x00b"},
		"value DEL":         {"X-Note", "a\x7fb"},
		"value not UTF-8":   {"X-Note", "a\xffb"},
		"value too long":    {"X-Note", strings.Repeat("a", compose.MaxCallerHeaderValue+1)},
	}
	for name, c := range refused {
		if err := compose.CheckCallerHeader(c[0], c[1]); !errors.Is(err, compose.ErrInvalid) {
			t.Errorf("%s: %s: %q accepted (%v)", name, c[0], c[1], err)
		}
	}
}
