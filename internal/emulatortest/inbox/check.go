package inbox

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"net"
	"net/textproto"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// Want is what one recipient must have received.
type Want struct {
	To      string
	Subject string
	// HTML and Text are what the html and the text part must each hold:
	// the content as rendered for this recipient.
	HTML, Text []string
	// TextIs, when set, is the whole text part, exactly (a caller's own).
	TextIs string
	// Headers must each be present once with exactly this value.
	Headers map[string]string
	// Attachments are the message's attachments, in order, exactly.
	Attachments []Attachment
	// Captured is a test key's message: kept, never handed to SES.
	Captured bool
	// List is what list mail (campaign, automation) carries; nil for a
	// transactional email, which carries no List-* header.
	List *List
}

// List is what a recipient of list mail must find: the footer, the
// one-click unsubscribe headers (RFC 2369, RFC 8058) and a List-Id
// (RFC 2919).
type List struct {
	PostalAddress string
	// Unsubscribe is the recipient's one-click link; Mailto the mailbox
	// of the mailto target, "" when the stack leaves it out.
	Unsubscribe, Mailto string
	// ID is the List-Id header, as written.
	ID string
}

// pythonSample is how many messages without attachments Python's email
// package also reads in a check (it takes about half a second to start);
// it reads every one with attachments, whose names are where today's
// writers go wrong.
const pythonSample = 3

// maxReported bounds the failures printed for one check.
const maxReported = 20

// Check fails t unless each recipient of wants received exactly one
// message, as wanted, in the kept messages, and exactly one in the SES
// emulator (none for a capture), and no one else received anything.
func (b Box) Check(t testing.TB, wants ...Want) {
	t.Helper()
	var fails []string
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	kept, stored := b.keptTo(), b.storedTo()
	wanted := map[string]bool{}
	var sample [][]byte
	plain := 0 // messages without attachments in sample
	for _, w := range wants {
		to := strings.ToLower(w.To)
		wanted[to] = true
		ms := kept[to]
		if len(ms) != 1 {
			fail("%s: %d messages kept, want 1", w.To, len(ms))
		}
		if len(ms) > 0 {
			for _, f := range checkMessage(ms[0], w) {
				fail("%s (email %s): %s", w.To, ms[0].EmailID, f)
			}
			switch {
			case len(ms[0].Attachments) > 0:
				sample = append(sample, ms[0].Raw)
			case plain < pythonSample:
				sample = append(sample, ms[0].Raw)
				plain++
			}
		}
		wantStored := 1
		if w.Captured {
			wantStored = 0
		}
		ss := stored[to]
		if len(ss) != wantStored {
			fail("%s: %d messages in the SES emulator, want %d", w.To, len(ss), wantStored)
		}
		if len(ss) == 1 {
			// The emulator's own parser reads the same subject and html.
			if ss[0].Subject != w.Subject {
				fail("%s: the SES emulator read subject %q, want %q", w.To, ss[0].Subject, w.Subject)
			}
			for _, s := range w.HTML {
				if !strings.Contains(ss[0].Body.HTML, s) {
					fail("%s: the SES emulator's html lacks %q", w.To, s)
				}
			}
		}
	}
	for to, ms := range kept {
		if !wanted[to] {
			fail("%d messages kept for %q, whom no one expected", len(ms), to)
		}
	}
	fails = append(fails, pythonFails(t, sample)...)
	if len(fails) > 0 {
		shown := fails[:min(len(fails), maxReported)]
		t.Errorf("recipients' check (%s): %d failures:\n%s", b, len(fails), strings.Join(shown, "\n"))
	}
}

// pythonFails are the defects Python's email package reports.
func pythonFails(t testing.TB, raws [][]byte) []string {
	if len(raws) == 0 {
		return nil
	}
	defects, err := PythonDefects(t.Context(), raws)
	if errors.Is(err, ErrNoPython) {
		t.Log("python3 is not installed: the messages were read by the Go reader only")
		return nil
	}
	if err != nil {
		return []string{err.Error()}
	}
	var out []string
	for i, d := range defects {
		for _, s := range d {
			out = append(out, fmt.Sprintf("message %d: Python's email package: %s", i, s))
		}
	}
	return out
}

// checkMessage lists how m differs from w.
func checkMessage(m Message, w Want) []string {
	out := append([]string(nil), m.Defects...)
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	if len(m.To) != 1 {
		add("To %q: want exactly the recipient", m.Header.Get("To"))
	}
	if m.Subject != w.Subject {
		add("subject %q, want %q", m.Subject, w.Subject)
	}
	for _, s := range w.HTML {
		if !strings.Contains(m.HTML, s) {
			add("the html part lacks %q", s)
		}
	}
	for _, s := range w.Text {
		if !strings.Contains(m.Text, s) {
			add("the text part lacks %q", s)
		}
	}
	if w.TextIs != "" && m.Text != w.TextIs {
		add("the text part is %q, want exactly %q", m.Text, w.TextIs)
	}
	for name, v := range w.Headers {
		if got := m.Header[textproto.CanonicalMIMEHeaderKey(name)]; len(got) != 1 || got[0] != v {
			add("header %s is %q, want once %q", name, got, v)
		}
	}
	if len(m.Attachments) != len(w.Attachments) {
		add("%d attachments, want %d", len(m.Attachments), len(w.Attachments))
	}
	for i := range min(len(m.Attachments), len(w.Attachments)) {
		got, want := m.Attachments[i], w.Attachments[i]
		if got.Filename != want.Filename || got.ContentType != want.ContentType || !bytes.Equal(got.Data, want.Data) {
			add("attachment %d: %q %s (%d bytes), want %q %s (%d bytes)", i, got.Filename, got.ContentType, len(got.Data),
				want.Filename, want.ContentType, len(want.Data))
		}
	}
	if w.List == nil {
		for _, h := range []string{"List-Unsubscribe", "List-Unsubscribe-Post", "List-Id"} {
			if v := m.Header.Get(h); v != "" {
				add("transactional mail with %s %q", h, v)
			}
		}
		return out
	}
	return append(out, checkList(m, *w.List)...)
}

// listID is RFC 2919's List-Id: an optional phrase, then <label.namespace>.
var listID = regexp.MustCompile("^(?:[^<>]*[ \t])?<([A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)+)>$")

// checkList lists how m misses what list mail carries.
func checkList(m Message, l List) []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	want := "<" + l.Unsubscribe + ">"
	if l.Mailto != "" {
		want += ", <mailto:" + l.Mailto + "?subject=unsubscribe>"
	}
	if got := m.Header.Get("List-Unsubscribe"); got != want {
		add("List-Unsubscribe %q, want %q", got, want)
	}
	if u, err := url.Parse(l.Unsubscribe); err != nil || !(u.Scheme == "https" || (u.Scheme == "http" && loopback(u.Hostname()))) {
		add("unsubscribe link %q is not https (RFC 8058; http only on the local stack's loopback)", l.Unsubscribe)
	}
	if got := m.Header.Get("List-Unsubscribe-Post"); got != "List-Unsubscribe=One-Click" {
		add("List-Unsubscribe-Post %q", got)
	}
	got := m.Header.Get("List-Id")
	if got != l.ID {
		add("List-Id %q, want %q", got, l.ID)
	}
	if id := listID.FindStringSubmatch(got); id == nil || len(id[1]) > 255 {
		add("List-Id %q is not RFC 2919's [phrase] <label.namespace>", got)
	}
	addr := html.EscapeString(l.PostalAddress)
	if n := strings.Count(m.HTML, addr); n != 1 {
		add("the postal address is %d times in the html, want once", n)
	}
	if n := strings.Count(m.Text, l.PostalAddress); n != 1 {
		add("the postal address is %d times in the text, want once", n)
	}
	if !strings.Contains(m.HTML, `href="`+html.EscapeString(l.Unsubscribe)+`"`) {
		add("the html footer has no link to %s", l.Unsubscribe)
	}
	if !strings.Contains(m.Text, l.Unsubscribe) {
		add("the text part has no link to %s", l.Unsubscribe)
	}
	return out
}

func loopback(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || (ip != nil && ip.IsLoopback())
}
