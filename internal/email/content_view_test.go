package email_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/sending/listmail"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// contentFakes are function-field fakes of every store an email's content
// is read or rendered from; a nil field answers as absent.
type contentFakes struct {
	email    email.Email
	kept     func() (email.KeptContent, error)
	campaign func() (campaign.Campaign, error)
	run      func() (automation.Run, error)
	steps    func() ([]automation.Step, error)
	contact  func() (contact.Contact, error)
}

func (f contentFakes) GetEmail(context.Context, string, string) (email.Email, error) {
	return f.email, nil
}
func (contentFakes) ListEmails(context.Context, string, email.Filter, string, int) ([]email.Email, string, bool, error) {
	return nil, "", false, nil
}
func (contentFakes) ListClicks(context.Context, string, string, int) ([]email.Click, bool, error) {
	return nil, false, nil
}
func (f contentFakes) GetContent(context.Context, string, string) (email.KeptContent, error) {
	if f.kept == nil {
		return email.KeptContent{}, email.ErrContentNotKept
	}
	return f.kept()
}
func (f contentFakes) GetCampaign(context.Context, string, string) (campaign.Campaign, error) {
	if f.campaign == nil {
		return campaign.Campaign{}, campaign.ErrNotFound
	}
	return f.campaign()
}
func (f contentFakes) GetRun(context.Context, string, string, string) (automation.Run, error) {
	if f.run == nil {
		return automation.Run{}, automation.ErrRunNotFound
	}
	return f.run()
}
func (f contentFakes) GetVersion(context.Context, string, string, int) ([]automation.Step, error) {
	if f.steps == nil {
		return nil, automation.ErrNotFound
	}
	return f.steps()
}
func (f contentFakes) GetContact(context.Context, string, string) (contact.Contact, error) {
	if f.contact == nil {
		return contact.Contact{}, contact.ErrNotFound
	}
	return f.contact()
}
func (contentFakes) GetWorkspace(_ context.Context, id string) (workspace.Workspace, error) {
	return workspace.Workspace{ID: id, PostalAddress: "1 Quay Street, Leeds"}, nil
}

// An email's content: a transactional email's as kept, with its text part
// derived from the html; a campaign's and an automation's rendered again
// for the contact (merge tags included), footer included and the
// unsubscribe link the approval preview's stand-in (listmail.PreviewLinks on
// the public URL) for the recipient's own; what cannot be shown says why;
// a store fault is a fault, not "not shown".
func TestEmailContent(t *testing.T) {
	const shownLink = "https://mail.example/unsubscribe/preview"
	const shownUnsubscribe = `href="` + shownLink + `"`
	const id = "01a21bea-1efb-7468-9b4d-96cc7a65d3ec"
	ann := "Ann"
	fault := errors.New("connection reset")
	transactional := email.Email{ID: id, WorkspaceID: "ws", To: "ann@example.com", Subject: "Your receipt", Type: email.TypeTransactional}
	fromCampaign := email.Email{ID: id, WorkspaceID: "ws", To: "ann@example.com", Subject: "November news", Type: email.TypeCampaign,
		Source: email.Source{CampaignID: "c1", ContactID: "k1"}}
	fromAutomation := email.Email{ID: id, WorkspaceID: "ws", To: "ann@example.com", Subject: "Welcome, Ann", Type: email.TypeAutomation,
		Source: email.Source{AutomationID: "a1", RunID: "r1", Step: 1, ContactID: "k1"}}
	steps := func() ([]automation.Step, error) {
		return []automation.Step{{Type: "wait"}, {Type: "send", Subject: "Welcome, {{ contact.first_name | \"there\" }}",
			HTML: `<p>Hello {{ contact.first_name | "there" }}, order {{ event.order }}</p>`}}, nil
	}
	run := func() (automation.Run, error) {
		return automation.Run{ID: "r1", WorkspaceID: "ws", AutomationID: "a1", Version: 2, Payload: map[string]string{"order": "<b>7</b>"}}, nil
	}
	annContact := func() (contact.Contact, error) {
		return contact.Contact{ID: "k1", Email: "ann@example.com", FirstName: &ann}, nil
	}
	cases := map[string]struct {
		fakes contentFakes
		// html and text are parts the content must hold, in order.
		html, text  []string
		attachments int
		notShown    string // a part of the reason; "" when shown
		fault       bool
	}{
		"transactional": {
			fakes: contentFakes{email: transactional, kept: func() (email.KeptContent, error) {
				return email.KeptContent{HTML: `<h1>Thanks</h1><p>See <a href="https://example.com/o/7">order 7</a></p>`,
					Attachments: []email.AttachmentInfo{{Filename: "receipt.pdf", ContentType: "application/pdf", Size: 1234}}}, nil
			}},
			html: []string{"<h1>Thanks</h1>"}, text: []string{"Thanks", "order 7 (https://example.com/o/7)"}, attachments: 1,
		},
		"transactional, no longer kept": {fakes: contentFakes{email: transactional}, notShown: "kept 30 days"},
		"transactional, html too large to keep": {
			fakes: contentFakes{email: transactional, kept: func() (email.KeptContent, error) {
				return email.KeptContent{Attachments: []email.AttachmentInfo{{Filename: "a.pdf", Size: 9}}}, nil
			}},
			notShown: "too large", attachments: 1,
		},
		"transactional, store fault": {fakes: contentFakes{email: transactional, kept: func() (email.KeptContent, error) { return email.KeptContent{}, fault }}, fault: true},
		"campaign": {
			fakes: contentFakes{email: fromCampaign, contact: annContact, campaign: func() (campaign.Campaign, error) {
				return campaign.Campaign{ID: "c1", WorkspaceID: "ws", Subject: "November news",
					HTML: `<html><body><p>What changed, {{ contact.first_name | "friend" }}.</p></body></html>`}, nil
			}},
			html: []string{"<p>What changed, Ann.</p>", "1 Quay Street, Leeds", shownUnsubscribe, "</body>"},
			text: []string{"What changed, Ann.", "1 Quay Street, Leeds", shownLink},
		},
		"campaign deleted": {fakes: contentFakes{email: fromCampaign, contact: annContact}, notShown: "campaign no longer exists"},
		"campaign, contact deleted": {fakes: contentFakes{email: fromCampaign, campaign: func() (campaign.Campaign, error) {
			return campaign.Campaign{ID: "c1", WorkspaceID: "ws", Subject: "November news", HTML: "<p>What changed.</p>"}, nil
		}}, notShown: "contact was deleted"},
		"campaign sent before its source was recorded": {fakes: contentFakes{email: email.Email{ID: id, WorkspaceID: "ws", Type: email.TypeCampaign}}, notShown: "sent before"},
		"automation": {
			fakes: contentFakes{email: fromAutomation, run: run, steps: steps, contact: annContact},
			html:  []string{"<p>Hello Ann, order &lt;b&gt;7&lt;/b&gt;</p>", "1 Quay Street, Leeds", shownUnsubscribe},
			text:  []string{"Hello Ann, order <b>7</b>", "Unsubscribe"},
		},
		"automation, contact deleted": {fakes: contentFakes{email: fromAutomation, run: run, steps: steps}, notShown: "contact was deleted"},
		"automation, run deleted":     {fakes: contentFakes{email: fromAutomation, steps: steps, contact: annContact}, notShown: "run no longer exists"},
		"automation, version fault": {fakes: contentFakes{email: fromAutomation, run: run, contact: annContact,
			steps: func() ([]automation.Step, error) { return nil, fault }}, fault: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := tc.fakes
			shown := listmail.Shown{Contacts: f, Workspaces: f, PublicURL: "https://mail.example/"}
			emails := &email.Views{Store: f, Kept: f,
				Campaigns:   campaign.EmailContent{Campaigns: f, Shown: shown},
				Automations: automation.EmailContent{Runs: f, Versions: f, Shown: shown},
			}
			got, err := emails.Content(t.Context(), "ws", id)
			var missing *email.ContentUnavailable
			switch {
			case tc.fault:
				if err == nil || errors.As(err, &missing) {
					t.Fatalf("err = %v, want the fault", err)
				}
				return
			case tc.notShown != "":
				if !errors.As(err, &missing) || !strings.Contains(missing.Reason, tc.notShown) || !errors.Is(err, email.ErrContentNotKept) {
					t.Fatalf("err = %v, want not shown because %q", err, tc.notShown)
				}
			case err != nil:
				t.Fatal(err)
			}
			if got.Subject != f.email.Subject || len(got.Attachments) != tc.attachments {
				t.Errorf("subject %q, %d attachments; want %q, %d", got.Subject, len(got.Attachments), f.email.Subject, tc.attachments)
			}
			inOrder(t, "html", got.HTML, tc.html)
			inOrder(t, "text", got.Text, tc.text)
		})
	}
}

// inOrder fails t unless s holds each of parts, in order.
func inOrder(t *testing.T, what, s string, parts []string) {
	t.Helper()
	at := 0
	for _, p := range parts {
		i := strings.Index(s[at:], p)
		if i < 0 {
			t.Errorf("%s lacks %q after offset %d:\n%s", what, p, at, s)
			return
		}
		at += i + len(p)
	}
}
