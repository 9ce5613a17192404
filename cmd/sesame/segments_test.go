package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/segment"
)

func TestSegmentsListShowDelete(t *testing.T) {
	c := newConsoleTable(t)
	ws := c.createWorkspace("Acme")
	other := c.createWorkspace("Other")
	file := filepath.Join(t.TempDir(), "contacts.csv")
	csv := "email,first_name,tags,plan\n" +
		"ann@example.org,Ann,vip,pro\n" +
		"bea@example.org,Bea,vip,free\n" +
		"cat@example.org,Cat,,pro\n"
	if err := os.WriteFile(file, []byte(csv), 0o600); err != nil {
		t.Fatal(err)
	}
	c.must("contacts", "import", file, "--workspace", ws)
	filter, err := segment.Parse(json.RawMessage(`{"all":[{"field":"tags","op":"has_tag","value":"vip"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	seg := segment.Segment{
		ID: uuid.Must(uuid.NewV7()).String(), WorkspaceID: ws, Name: "VIPs", Filter: filter, ContactCount: 5,
		CreatedAt: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC),
	}
	if err := c.store.Segments.CreateSegment(t.Context(), seg); err != nil {
		t.Fatal(err)
	}

	list := c.must("segments", "list", "--workspace", ws)
	if !strings.Contains(list, seg.ID) || !strings.Contains(list, "VIPs") || !strings.Contains(list, "2026-03-01T09:00:00.000Z") {
		t.Errorf("segments list printed %q", list)
	}
	if out := c.must("segments", "list", "--workspace", other); strings.Contains(out, seg.ID) {
		t.Errorf("another workspace lists the segment: %q", out)
	}

	// show evaluates now: 2 recipients (the stored 5 was at creation).
	show := c.must("segments", "show", seg.ID, "--workspace", ws)
	for _, want := range []string{`filter                {"all":[{"field":"tags","op":"has_tag","value":"vip"}]}`, "contacts at creation  5", "recipients now        2", "ann@example.org", "bea@example.org"} {
		if !strings.Contains(show, want) {
			t.Errorf("segments show printed %q, missing %q", show, want)
		}
	}
	if strings.Contains(show, "cat@example.org") {
		t.Errorf("segments show samples a contact that does not match: %q", show)
	}
	shown, _ := mustJSON[struct {
		ID            string            `json:"id"`
		RecipientsNow int               `json:"recipients_now"`
		Sample        []json.RawMessage `json:"sample"`
	}](c, "segments", "show", seg.ID, "--sample", "1", "--workspace", ws)
	if shown.ID != seg.ID || shown.RecipientsNow != 2 || len(shown.Sample) != 1 {
		t.Errorf("segments show --sample 1 --output json: %+v", shown)
	}

	args := []string{"segments", "show", seg.ID, "--sample", "-1", "--workspace", ws}
	out, err := c.run(args...)
	checkFails(t, args, out, err, nil, "--sample must be 0 or more")
	for _, args := range [][]string{
		{"segments", "show", seg.ID, "--workspace", other},
		{"segments", "delete", seg.ID, "--workspace", other},
		{"segments", "show", "not-a-uuid", "--workspace", ws},
	} {
		out, err := c.run(args...)
		checkFails(t, args, out, err, nil, "is not a segment of the workspace")
	}
	if out := c.must("segments", "delete", strings.ToUpper(seg.ID), "--workspace", ws); !strings.Contains(out, "deleted "+seg.ID) {
		t.Errorf("segments delete printed %q", out)
	}
	if _, err := c.store.Segments.GetSegment(t.Context(), ws, seg.ID); err == nil {
		t.Error("the segment is still stored")
	}
	if _, err := c.store.Contacts.GetContactByEmail(t.Context(), ws, "ann@example.org"); err != nil {
		t.Errorf("deleting the segment touched its contacts: %v", err)
	}
}
