package devstack_test

import (
	"testing"

	"github.com/sesame-mail/sesame/internal/emulatortest/inbox"
)

// receivedHTML is what a recipient's client shows of a raw message: its
// decoded subject and text/html part, read strictly.
func receivedHTML(t *testing.T, raw []byte) (subject, html string) {
	t.Helper()
	m := inbox.Parse(raw)
	for _, d := range m.Defects {
		t.Errorf("message to %v: %s", m.To, d)
	}
	return m.Subject, m.HTML
}
