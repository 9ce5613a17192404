package contact_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/email"
)

// pagedEmails lists all, newest first, a page at a time, counting the
// emails it read.
type pagedEmails struct {
	all  []email.Email
	read int
}

func (p *pagedEmails) ListEmails(_ context.Context, _ string, _ email.Filter, after string, limit int) ([]email.Email, string, bool, error) {
	start := 0
	if after != "" {
		fmt.Sscan(after, &start)
	}
	end := min(start+limit, len(p.all))
	p.read += end - start
	return p.all[start:end], fmt.Sprint(end), end < len(p.all), nil
}

// A contact's emails are those to its address (any case) among the
// workspace's newest ContactEmailsScanned, newest first; older ones are
// not read.
func TestContactEmailsTo(t *testing.T) {
	var all []email.Email
	for i := range contact.EmailsScanned + 100 {
		to := fmt.Sprintf("other%d@example.com", i)
		if i%350 == 0 {
			to = "Ann@Example.com"
		}
		all = append(all, email.Email{ID: fmt.Sprint(i), To: to})
	}
	lister := &pagedEmails{all: all}
	c := &contact.Service{Emails: lister}
	got, err := c.EmailsTo(t.Context(), "ws", contact.Contact{Email: "ann@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range got {
		ids = append(ids, e.ID)
	}
	if fmt.Sprint(ids) != "[0 350 700]" {
		t.Errorf("emails %v, want [0 350 700] (the 1050th is beyond the scan)", ids)
	}
	if lister.read != contact.EmailsScanned {
		t.Errorf("read %d emails, want %d", lister.read, contact.EmailsScanned)
	}
	if _, err := c.EmailsTo(t.Context(), "", contact.Contact{}); err == nil {
		t.Error("no workspace: no error")
	}
}
