package contact

import (
	"context"

	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/ident"
)

// EmailsScanned bounds the workspace's newest emails EmailsTo reads to
// find a contact's: emails are not kept by recipient, so a contact's
// older emails are not found.
const EmailsScanned = 1000

// emailsPage is how many emails one read of EmailsTo asks for.
const emailsPage = 100

// EmailsTo returns the emails sent to the contact's address among the
// workspace's newest EmailsScanned, newest first.
func (s Service) EmailsTo(ctx context.Context, workspaceID string, ct Contact) ([]email.Email, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return nil, err
	}
	out := []email.Email{}
	scanned := 0
	for after, more := "", true; more && scanned < EmailsScanned; {
		var page []email.Email
		var err error
		page, after, more, err = s.Emails.ListEmails(ctx, workspaceID, email.Filter{}, after, min(emailsPage, EmailsScanned-scanned))
		if err != nil {
			return nil, err
		}
		scanned += len(page)
		for _, e := range page {
			if NormalizeEmail(e.To) == ct.Email {
				out = append(out, e)
			}
		}
	}
	return out, nil
}
