package listmail

import (
	"context"
	"errors"
	"strings"

	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/unsubscribe"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// PreviewLinks are the unsubscribe links of list mail shown to its owner
// (a campaign's preview, a sent email's content): shaped as a recipient's
// (the stack's public URL, then the unsubscribe path) but signed for
// nobody, so a click in the owner's view unsubscribes no one. The
// recipient's own link is a bearer token, and the owner's surfaces hold
// no unsubscribe secret.
type PreviewLinks struct{ BaseURL string }

// URL is the stand-in link.
func (l PreviewLinks) URL(unsubscribe.Token) (string, error) {
	base := strings.TrimSuffix(l.BaseURL, "/")
	if base == "" {
		base = "https://sesame.invalid" // a console without the public URL
	}
	return base + unsubscribe.PathPrefix + "preview", nil
}

// Shown reads what a sent list email is rendered again from, for its
// owner: the contact it went to, as the contact is now, and its
// workspace, as the sender and the runner read them.
type Shown struct {
	Contacts interface {
		GetContact(ctx context.Context, workspaceID, id string) (contact.Contact, error)
	}
	Workspaces workspace.Reader
	// PublicURL starts the stand-in unsubscribe link (PreviewLinks).
	PublicURL string
}

// Links are the stand-in unsubscribe links shown in the email.
func (s Shown) Links() PreviewLinks { return PreviewLinks{BaseURL: s.PublicURL} }

// Recipient reads the contact m was rendered for (its source's) and its
// workspace; a contact deleted since is *email.ContentUnavailable.
func (s Shown) Recipient(ctx context.Context, m email.Email) (contact.Contact, workspace.Workspace, error) {
	to, err := s.Contacts.GetContact(ctx, m.WorkspaceID, m.Source.ContactID)
	if errors.Is(err, contact.ErrNotFound) {
		return contact.Contact{}, workspace.Workspace{}, &email.ContentUnavailable{Reason: "its contact was deleted, and the content is rendered for the contact"}
	}
	if err != nil {
		return contact.Contact{}, workspace.Workspace{}, err
	}
	ws, err := s.Workspaces.GetWorkspace(ctx, m.WorkspaceID)
	return to, ws, err
}

// ShownHTML is a composed message's html; a composition the sender
// would refuse now (no postal address, say) is shown as unavailable.
func ShownHTML(msg compose.Message, err error) (string, error) {
	if errors.Is(err, compose.ErrInvalid) {
		return "", &email.ContentUnavailable{Reason: "it does not compose now: " + err.Error()}
	}
	return msg.HTML, err
}
