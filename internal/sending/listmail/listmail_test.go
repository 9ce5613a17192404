package listmail_test

import (
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/compose/raw"
	"github.com/sesame-mail/sesame/internal/emulatortest/inbox"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/sending/listmail"
	"github.com/sesame-mail/sesame/internal/unsubscribe"
	"github.com/sesame-mail/sesame/internal/workspace"
)

const sourceID = "0190f1c2-7b3a-7cde-8f00-123456789abc"

func TestListID(t *testing.T) {
	from := identity.Sender{Name: "Acme", Email: "news@Mail.Acme.test"}
	src := unsubscribe.Source{Kind: unsubscribe.SourceCampaign, ID: sourceID}
	cases := map[string]struct {
		ws   string
		from identity.Sender
		want string
	}{
		"ascii name":        {ws: "Acme", from: from, want: `"Acme" <` + sourceID + `.mail.acme.test>`},
		"quote in a name":   {ws: `Acme "Shop"`, from: from, want: `"Acme \"Shop\"" <` + sourceID + `.mail.acme.test>`},
		"non-ascii name":    {ws: "Café Zoë", from: from, want: `=?UTF-8?q?Caf=C3=A9_Zo=C3=AB?= <` + sourceID + `.mail.acme.test>`},
		"line break":        {ws: "Acme\r\nBcc: x@y.test", from: from, want: `<` + sourceID + `.mail.acme.test>`},
		"no name":           {ws: "", from: from, want: `<` + sourceID + `.mail.acme.test>`},
		"id over 255":       {ws: "Acme", from: identity.Sender{Email: "a@" + strings.Repeat("d", 230) + ".test"}, want: `"Acme" <` + sourceID + `.localhost>`},
		"long name dropped": {ws: strings.Repeat("n", 65), from: from, want: `<` + sourceID + `.mail.acme.test>`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := listmail.ListID(workspace.Workspace{Name: tc.ws}, tc.from, src); got != tc.want {
				t.Errorf("ListID = %q, want %q", got, tc.want)
			}
		})
	}
}

type links string

func (l links) URL(unsubscribe.Token) (string, error) { return string(l), nil }

// A list email as written reads back with its List-Id, one-click headers
// and footer, and no defect for a strict reader or Python's email package.
func TestWithUnsubscribeWritesListID(t *testing.T) {
	ws := workspace.Workspace{ID: "ws", Name: "Café", PostalAddress: "1 Main St, Springfield"}
	from := identity.Sender{Name: "Café", Email: "news@acme.test"}
	msg := compose.Message{From: from.Address(), To: "ann@example.test", Subject: "News", HTML: "<p>What changed</p>", EmailID: sourceID,
		Headers: map[string]string{"list-id": "<theirs.example.test>"}}
	tok := unsubscribe.Token{WorkspaceID: "ws", ContactID: "c", Source: unsubscribe.Source{Kind: unsubscribe.SourceAutomation, ID: sourceID}}
	out, err := listmail.WithUnsubscribe(links("https://mail.acme.test/unsubscribe/t"), ws, from, msg, tok)
	if err != nil {
		t.Fatal(err)
	}
	b, err := raw.Build(out)
	if err != nil {
		t.Fatal(err)
	}
	box := inbox.Box{Kept: []inbox.Message{inbox.Parse(b)}}
	box.Check(t, inbox.Want{To: msg.To, Subject: "News", HTML: []string{"What changed"}, Text: []string{"What changed"}, Captured: true,
		List: &inbox.List{PostalAddress: ws.PostalAddress, Unsubscribe: "https://mail.acme.test/unsubscribe/t", Mailto: from.Email,
			ID: "=?UTF-8?q?Caf=C3=A9?= <" + sourceID + ".acme.test>"}})
}
