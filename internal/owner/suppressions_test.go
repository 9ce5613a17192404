package owner_test

import (
	"testing"

	"github.com/sesame-mail/sesame/internal/owner"
	"github.com/sesame-mail/sesame/internal/sending"
)

func TestSuppressions(t *testing.T) {
	ctx := t.Context()
	store := newStore(t)
	ws, other := newWorkspace(t, store, "Acme"), newWorkspace(t, store, "Other")
	s := &owner.Suppressions{Store: store.Suppressions}
	suppressed := func(workspaceID, recipient string) bool {
		t.Helper()
		sc, err := store.Sends.LoadContext(ctx, sending.ContextQuery{WorkspaceID: workspaceID, Recipient: recipient, Fingerprint: "x", Month: "2026-11"})
		if err != nil {
			t.Fatal(err)
		}
		return sc.Suppressed
	}

	if got, err := s.Add(ctx, ws.ID, "Bob <Bob@Example.ORG>", ""); err != nil || got != "Bob@Example.ORG" {
		t.Errorf("Add = %q (err %v), want the bare address", got, err)
	}
	if got, err := s.Add(ctx, ws.ID, "ann@example.org", "asked by phone"); err != nil || got != "ann@example.org" {
		t.Errorf("Add = %q (err %v)", got, err)
	}
	if _, err := s.Add(ctx, ws.ID, "ann@example.org", ""); err != nil {
		t.Errorf("adding an address again: %v", err)
	}
	for recipient, want := range map[string]bool{"bob@example.org": true, "ANN@example.org": true, "carl@example.org": false} {
		if got := suppressed(ws.ID, recipient); got != want {
			t.Errorf("%s suppressed = %v, want %v", recipient, got, want)
		}
	}
	if suppressed(other.ID, "ann@example.org") {
		t.Error("a suppression of one workspace applies to another")
	}

	for name, address := range map[string]string{
		"not an address": "ann at example.org",
		"two addresses":  "dan@example.org, eve@example.org",
		"CRLF":           "dan@example.org\r\nBcc: x@example.org",
		"nothing":        "",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := s.Add(t.Context(), ws.ID, address, "")
			wantInput(t, err, "address")
		})
	}
	_, err := s.Add(ctx, "", "dan@example.org", "")
	wantInput(t, err, "workspace")
	if suppressed(ws.ID, "dan@example.org") || suppressed(ws.ID, "eve@example.org") {
		t.Error("a refused address was suppressed")
	}
}
