package campaign

import (
	"context"
	"errors"
	"strings"

	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/sending/listmail"
)

// Preview is a campaign's email as one real recipient of its frozen set
// gets it: merge tags rendered for them, the footer with the postal
// address and the unsubscribe link (Message, as the sender
// builds it).
type Preview struct {
	// Recipient is whom it is rendered for: the first frozen recipient
	// still a contact. Zero when none is left (tags render their
	// fallbacks).
	Recipient contact.Contact
	Subject   string
	HTML      string
	// Text is the plain-text part a recipient's client may show instead.
	Text string
	// Problem says why the email could not be built as it would go (no
	// postal address yet, say); the content is then shown without its
	// footer.
	Problem string
}

// previewEmailID stands in for the email id of the preview: a message id
// is only written when the email is built.
const previewEmailID = "preview"

// Preview renders campaign id for the first of its frozen recipients who
// is still a contact.
func (a *Approvals) Preview(ctx context.Context, workspaceID, id string) (Preview, error) {
	c, err := a.get(ctx, workspaceID, id)
	if err != nil {
		return Preview{}, err
	}
	sample, err := a.sample(ctx, workspaceID, c, 1)
	if err != nil {
		return Preview{}, err
	}
	var p Preview
	if len(sample) > 0 {
		p.Recipient = sample[0]
	}
	ws, err := a.Workspaces.GetWorkspace(ctx, workspaceID)
	if err != nil {
		return Preview{}, err
	}
	msg, err := Message(c, ws, listmail.PreviewLinks{BaseURL: a.PublicURL}, p.Recipient, previewEmailID)
	if errors.Is(err, compose.ErrInvalid) {
		// Shown as far as it renders, with what keeps it from going.
		p.Problem = strings.TrimPrefix(err.Error(), compose.ErrInvalid.Error()+": ")
		msg.Subject, msg.HTML = Render(c, p.Recipient)
	} else if err != nil {
		return Preview{}, err
	}
	p.Subject, p.HTML, p.Text = msg.Subject, msg.HTML, compose.HTMLToText(msg.HTML)
	return p, nil
}

// sample reads up to n of c's frozen recipients, in frozen order; a
// contact deleted since the draft is left out.
func (a *Approvals) sample(ctx context.Context, workspaceID string, c Campaign, n int) ([]contact.Contact, error) {
	var out []contact.Contact
	for chunk := 0; chunk < c.Chunks && len(out) < n; chunk++ {
		ids, err := a.Store.ReadChunk(ctx, workspaceID, c.ID, chunk)
		if err != nil {
			return nil, err
		}
		for _, cid := range ids {
			if len(out) == n {
				break
			}
			ct, err := a.Contacts.GetContact(ctx, workspaceID, cid)
			if errors.Is(err, contact.ErrNotFound) {
				continue
			}
			if err != nil {
				return nil, err
			}
			out = append(out, ct)
		}
	}
	return out, nil
}
