package suppression_test

import (
	"errors"
	"testing"

	"github.com/sesame-mail/sesame/internal/dynamo/storetest"
	"github.com/sesame-mail/sesame/internal/fail/failtest"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/suppression"
)

func TestSuppressions(t *testing.T) {
	ctx := t.Context()
	store := storetest.New(t)
	ws, other := storetest.Workspace(t, store, "Acme"), storetest.Workspace(t, store, "Other")
	s := &suppression.Service{Store: store.Suppressions}
	suppressed := func(workspaceID, recipient string) bool {
		t.Helper()
		sc, err := store.Sends.LoadContext(ctx, sending.ContextQuery{WorkspaceID: workspaceID, Recipient: recipient, Fingerprint: "x", Month: "2026-11"})
		if err != nil {
			t.Fatal(err)
		}
		return sc.Suppressed
	}

	if got, created, err := s.Add(ctx, ws.ID, "Bob <Bob@Example.ORG>", ""); err != nil || !created || got.Email != "bob@example.org" || got.Reason != suppression.Manual {
		t.Errorf("Add = %+v, %v (err %v), want the bare address, lowercased, manual", got, created, err)
	}
	if got, created, err := s.Add(ctx, ws.ID, "ann@example.org", "unsubscribed"); err != nil || !created || got.Reason != suppression.Unsubscribed {
		t.Errorf("Add = %+v, %v (err %v)", got, created, err)
	}
	if got, created, err := s.Add(ctx, ws.ID, "ANN@example.org", "bounced"); err != nil || created || got.Reason != suppression.Unsubscribed {
		t.Errorf("adding an address again = %+v, %v (err %v); want the first entry, not created", got, created, err)
	}
	for recipient, want := range map[string]bool{"bob@example.org": true, "ANN@example.org": true, "carl@example.org": false} {
		if got := suppressed(ws.ID, recipient); got != want {
			t.Errorf("%s suppressed = %v, want %v", recipient, got, want)
		}
	}
	if suppressed(other.ID, "ann@example.org") {
		t.Error("a suppression of one workspace applies to another")
	}
	list, err := s.List(ctx, ws.ID, suppression.Filter{})
	if err != nil || len(list) != 2 || list[0].Email != "ann@example.org" || list[1].Email != "bob@example.org" {
		t.Errorf("List = %+v (err %v), want ann then bob", list, err)
	}
	if list, err := s.List(ctx, ws.ID, suppression.Filter{Email: "Bob <BOB@example.org>"}); err != nil || len(list) != 1 || list[0].Email != "bob@example.org" {
		t.Errorf("List by email = %+v (err %v)", list, err)
	}
	if list, err := s.List(ctx, ws.ID, suppression.Filter{Reason: suppression.Unsubscribed}); err != nil || len(list) != 1 || list[0].Email != "ann@example.org" {
		t.Errorf("List by reason = %+v (err %v)", list, err)
	}

	if got, err := s.Remove(ctx, ws.ID, "Ann <ann@EXAMPLE.org>"); err != nil || got.Email != "ann@example.org" {
		t.Errorf("Remove = %+v (err %v)", got, err)
	}
	if suppressed(ws.ID, "ann@example.org") {
		t.Error("a removed address is still suppressed")
	}
	for _, address := range []string{"ann@example.org", "nobody"} {
		if _, err := s.Remove(ctx, ws.ID, address); !errors.Is(err, suppression.ErrNotFound) {
			t.Errorf("Remove(%q) = %v, want ErrNotFound", address, err)
		}
	}
	if _, err := s.Remove(ctx, other.ID, "bob@example.org"); !errors.Is(err, suppression.ErrNotFound) || !suppressed(ws.ID, "bob@example.org") {
		t.Errorf("another workspace's Remove = %v, or it removed the entry", err)
	}

	for name, address := range map[string]string{
		"not an address": "ann at example.org",
		"two addresses":  "dan@example.org, eve@example.org",
		"CRLF":           "dan@example.org\r\nBcc: x@example.org",
		"nothing":        "",
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := s.Add(t.Context(), ws.ID, address, "")
			failtest.WantInput(t, err, "address")
		})
	}
	_, _, err = s.Add(ctx, ws.ID, "dan@example.org", "asked by phone")
	failtest.WantInput(t, err, "reason")
	_, _, err = s.Add(ctx, "", "dan@example.org", "")
	failtest.WantInput(t, err, "workspace")
	_, err = s.List(ctx, ws.ID, suppression.Filter{Reason: "spam"})
	failtest.WantInput(t, err, "reason")
	_, err = s.List(ctx, ws.ID, suppression.Filter{Email: "dan at example"})
	failtest.WantInput(t, err, "email")
	_, err = s.Remove(ctx, "", "bob@example.org")
	failtest.WantInput(t, err, "workspace")
	if suppressed(ws.ID, "dan@example.org") || suppressed(ws.ID, "eve@example.org") {
		t.Error("a refused address was suppressed")
	}
}
