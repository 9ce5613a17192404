package engine

import (
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/emulatortest/inbox"
)

// Each recipient, in the first group and past it, gets the subject and
// html rendered for them: their name or the fallback, their properties,
// their address; a value is text (escaped in the html), and a line break
// in a name reaches the subject as spaces, never as a new header.
func TestSenderRendersMergeTagsPerRecipient(t *testing.T) {
	w := newWorld(groupSize+2, 500)
	w.c.Subject = `Hi {{ contact.first_name | "there" }}`
	w.c.HTML = `<p>Dear {{ contact.first_name | "there" }} {{ contact.last_name }}, plan {{ contact.properties.plan | "free" }}, {{ contact.email }}</p>`
	ids := w.chunks[0]
	ann := w.contacts[ids[0]]
	ann.FirstName, ann.LastName, ann.Properties = new("Ann"), new("Lee"), map[string]contact.Property{"plan": contact.StringProperty("pro")}
	w.contacts[ids[0]] = ann
	last := w.contacts[ids[groupSize+1]]
	last.FirstName, last.Properties = new("<b>Bo</b>\r\nBcc: all@example.com"), map[string]contact.Property{"plan": contact.NumberProperty(3)}
	w.contacts[ids[groupSize+1]] = last
	s, _ := newSender(w, 1000)
	if retry := deliver(t, s, w); len(retry) != 0 {
		t.Fatalf("retry %v", retry)
	}
	wantExactlyOnce(t, w)
	want := map[string][2]string{
		ann.Email:  {"Hi Ann", "<p>Dear Ann Lee, plan pro, " + ann.Email + "</p>"},
		last.Email: {"Hi <b>Bo</b>  Bcc: all@example.com", "<p>Dear &lt;b&gt;Bo&lt;/b&gt;\nBcc: all@example.com , plan 3, " + last.Email + "</p>"},
	}
	other := w.contacts[ids[1]].Email
	want[other] = [2]string{"Hi there", "<p>Dear there , plan free, " + other + "</p>"}
	for _, in := range w.ses {
		if m := inbox.Parse(in.Raw); len(m.Header["Bcc"]) != 0 {
			t.Errorf("%s: a Bcc header went out", in.To)
		}
		m := inbox.ParseStrict(t, in.Raw)
		subject, html := m.Subject, m.HTML
		if strings.Contains(subject+html, "{{") {
			t.Errorf("%s got a merge tag literally: %q %q", in.To, subject, html)
		}
		exp, ok := want[in.To]
		if !ok {
			continue
		}
		if subject != exp[0] || !strings.Contains(strings.ReplaceAll(html, "\r\n", "\n"), strings.ReplaceAll(exp[1], "\r\n", "\n")) {
			t.Errorf("%s got subject %q, html %q; want %q and %q", in.To, subject, html, exp[0], exp[1])
		}
		if e := w.emails[campaign.EmailID(w.c.ID, contactOf(w, in.To), *w.c.StartedAt)]; e.Subject != subject {
			t.Errorf("%s: the email records subject %q, sent %q", in.To, e.Subject, subject)
		}
	}
}

// contactOf is the id of the recipient at address, "" for none.
func contactOf(w *world, address string) string {
	for id, r := range w.contacts {
		if r.Email == address {
			return id
		}
	}
	return ""
}
