package campaign_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// previewStore is an ApprovalStore of one campaign and its frozen chunks;
// a method a preview does not call is left nil.
type previewStore struct {
	campaign.ApprovalStore
	getCampaign func(ws, id string) (campaign.Campaign, error)
	readChunk   func(n int) ([]string, error)
}

func (s previewStore) GetCampaign(_ context.Context, ws, id string) (campaign.Campaign, error) {
	return s.getCampaign(ws, id)
}

func (s previewStore) ReadChunk(_ context.Context, _, _ string, n int) ([]string, error) {
	return s.readChunk(n)
}

type contactsFunc func(id string) (contact.Contact, error)

func (f contactsFunc) GetContact(_ context.Context, _, id string) (contact.Contact, error) {
	return f(id)
}

type workspaceFunc func() (workspace.Workspace, error)

func (f workspaceFunc) GetWorkspace(context.Context, string) (workspace.Workspace, error) { return f() }

// The preview is the email as the first frozen recipient still a contact
// gets it: tags rendered for them, the footer with the postal address and
// the stand-in unsubscribe link; without a postal address, the content
// without its footer and why; with nobody left, the fallbacks.
func TestApprovalsPreview(t *testing.T) {
	c := campaign.Campaign{ID: "c1", WorkspaceID: "ws", Chunks: 2, Sender: identity.Sender{Name: "Shop", Email: "news@shop.example"},
		Subject: `Hi {{ contact.first_name | "there" }}`, HTML: `<body><p>Dear {{ contact.first_name | "there" }} {{ contact.last_name }}</p></body>`}
	people := map[string]contact.Contact{
		"b": {ID: "b", Email: "bo@example.com", FirstName: new("Bo"), LastName: new("<Chan>")},
	}
	for name, tc := range map[string]struct {
		chunks                            [][]string
		postal                            string
		shown, subject, html, text, issue string
	}{
		"the first deleted, the next shown": {[][]string{{"gone"}, {"b", "gone"}}, "1 Main St, Springfield", "bo@example.com", "Hi Bo",
			`<p>Dear Bo &lt;Chan&gt;</p><div`, "Springfield", ""},
		"no postal address": {[][]string{{"b"}, nil}, "", "bo@example.com", "Hi Bo", `<body><p>Dear Bo &lt;Chan&gt;</p></body>`, "Dear Bo <Chan>", "postal address"},
		"nobody left":       {[][]string{{"gone"}, {"gone"}}, "1 Main St", "", "Hi there", `<p>Dear there </p><div`, "Dear there", ""},
	} {
		t.Run(name, func(t *testing.T) {
			a := &campaign.Approvals{
				Store: previewStore{
					getCampaign: func(ws, id string) (campaign.Campaign, error) { return c, nil },
					readChunk:   func(n int) ([]string, error) { return tc.chunks[n], nil },
				},
				Contacts: contactsFunc(func(id string) (contact.Contact, error) {
					if p, ok := people[id]; ok {
						return p, nil
					}
					return contact.Contact{}, contact.ErrNotFound
				}),
				Workspaces: workspaceFunc(func() (workspace.Workspace, error) {
					return workspace.Workspace{ID: "ws", PostalAddress: tc.postal}, nil
				}),
				PublicURL: "https://mail.example",
			}
			p, err := a.Preview(t.Context(), "ws", "c1")
			if err != nil {
				t.Fatal(err)
			}
			if p.Recipient.Email != tc.shown || p.Subject != tc.subject || !strings.Contains(p.HTML, tc.html) || !strings.Contains(p.Text, tc.text) {
				t.Errorf("preview for %q: subject %q, html %q, text %q", p.Recipient.Email, p.Subject, p.HTML, p.Text)
			}
			if tc.issue == "" {
				if p.Problem != "" || !strings.Contains(p.HTML, `href="https://mail.example/unsubscribe/preview"`) || !strings.Contains(p.HTML, tc.postal) {
					t.Errorf("no footer with the stand-in link: %q (problem %q)", p.HTML, p.Problem)
				}
			} else if !strings.Contains(p.Problem, tc.issue) || strings.Contains(p.HTML, "unsubscribe/preview") {
				t.Errorf("problem %q, html %q", p.Problem, p.HTML)
			}
		})
	}
}
