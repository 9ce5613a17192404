package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/identity"
)

// The approvals commands list, show, edit and discard a held campaign of
// the workspace; a discarded one is never approved.
func TestApprovalsCommands(t *testing.T) {
	c := newConsoleTable(t)
	ws := c.createWorkspace("Acme")
	other := c.createWorkspace("Other")
	sender := identity.Sender{ID: uuid.NewString(), Name: "Acme", Email: "news@acme.test"}
	draft := campaign.Campaign{
		ID: uuid.Must(uuid.NewV7()).String(), WorkspaceID: ws, Subject: "Spring news", HTML: "<p>What changed this spring.</p>",
		Sender: sender, SegmentID: uuid.NewString(), Status: campaign.StatusPendingApproval, RecipientCount: 2,
		CreatedAt: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC),
	}
	draft.ContentHash = campaign.ContentHash(draft.Subject, draft.HTML, sender)
	if _, err := c.store.Campaigns.CreateCampaign(t.Context(), draft, []string{uuid.NewString(), uuid.NewString()}, nil); err != nil {
		t.Fatal(err)
	}

	if list := c.must("approvals", "list", "--workspace", ws); !strings.Contains(list, draft.ID) || !strings.Contains(list, "pending_approval") || !strings.Contains(list, "Spring news") {
		t.Errorf("approvals list printed %q", list)
	}
	if list := c.must("approvals", "list", "--workspace", other); strings.Contains(list, draft.ID) {
		t.Errorf("another workspace lists the campaign: %q", list)
	}
	show := c.must("approvals", "show", draft.ID, "--workspace", ws)
	for _, want := range []string{"Spring news", "news@acme.test", "What changed this spring."} {
		if !strings.Contains(show, want) {
			t.Errorf("approvals show printed %q, missing %q", show, want)
		}
	}

	html := filepath.Join(t.TempDir(), "new.html")
	if err := os.WriteFile(html, []byte("<p>Even more changed.</p>"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := c.must("approvals", "edit", draft.ID, "--subject", "Spring news, again", "--html-file", html, "--workspace", ws); !strings.Contains(out, "pending_approval") {
		t.Errorf("approvals edit printed %q", out)
	}
	edited, err := c.store.Campaigns.GetCampaign(t.Context(), ws, draft.ID)
	if err != nil || edited.Subject != "Spring news, again" || edited.HTML != "<p>Even more changed.</p>" {
		t.Errorf("edited campaign: %q %q, %v", edited.Subject, edited.HTML, err)
	}

	c.must("approvals", "discard", draft.ID, "--workspace", ws)
	if _, err := c.run("approvals", "approve", draft.ID, "--workspace", ws); err == nil || !strings.Contains(err.Error(), "discarded") {
		t.Errorf("approve of a discarded campaign: %v", err)
	}
	if _, err := c.run("approvals", "show", draft.ID, "--workspace", other); err == nil {
		t.Error("another workspace shows the campaign")
	}
}
