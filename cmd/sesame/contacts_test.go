package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/contact"
)

func TestContactsImportIsIdempotentByEmail(t *testing.T) {
	c := newConsoleTable(t)
	ws := c.createWorkspace("Acme")
	file := filepath.Join(t.TempDir(), "contacts.csv")
	csv := "email,first_name,last_name,tags,plan,zip,seats,beta\n" +
		"ann@example.org,Ann,,vip;early,pro,02134,3,true\n" +
		"not an address,Bob,,,,,,\n" +
		"ANN@example.org,Again,,,,,,\n" +
		"carl@example.org,,,Bad Tag,,,,\n" +
		" Dan@Example.org ,Dan,Doe,,free,,,\n" +
		"eve@example.org,Eve,,,,,1e126,\n" // a number the store cannot keep: this line alone is refused
	if err := os.WriteFile(file, []byte(csv), 0o600); err != nil {
		t.Fatal(err)
	}
	out := c.must("contacts", "import", file, "--workspace", ws)
	for _, want := range []string{"rows     6", "created  2", "updated  0", "refused  4", "line 3: ", "line 4: ann@example.org is also on line 2", "line 5: ", "line 7: invalid properties.seats"} {
		if !strings.Contains(out, want) {
			t.Errorf("first import printed %q, missing %q", out, want)
		}
	}
	ann, err := c.store.Contacts.GetContactByEmail(t.Context(), ws, "ann@example.org")
	if err != nil {
		t.Fatal(err)
	}
	if *ann.FirstName != "Ann" || ann.LastName != nil || strings.Join(ann.Tags, ",") != "vip,early" ||
		ann.Properties["zip"] != contact.StringProperty("02134") || ann.Properties["seats"] != contact.NumberProperty(3) ||
		ann.Properties["beta"] != contact.BoolProperty(true) {
		t.Errorf("ann imported as %+v", ann)
	}

	// Again, with one change: nothing duplicated, the change applied.
	csv = strings.Replace(csv, "Dan,Doe", "Daniel,Doe", 1)
	if err := os.WriteFile(file, []byte(csv), 0o600); err != nil {
		t.Fatal(err)
	}
	out = c.must("contacts", "import", file, "--workspace", ws)
	if !strings.Contains(out, "created  0") || !strings.Contains(out, "updated  2") {
		t.Errorf("second import printed %q, want 0 created and 2 updated", out)
	}
	list := c.must("contacts", "list", "--workspace", ws)
	if strings.Count(list, "@example.org") != 2 {
		t.Errorf("contacts list printed %q, want the 2 contacts", list)
	}
	show := c.must("contacts", "show", "dan@example.org", "--workspace", ws)
	if !strings.Contains(show, "first_name       Daniel") || !strings.Contains(show, "properties.plan  \"free\"") {
		t.Errorf("contacts show printed %q", show)
	}
	if out := c.must("contacts", "delete", "DAN@example.org", "--workspace", ws); !strings.Contains(out, "deleted ") {
		t.Errorf("contacts delete printed %q", out)
	}
	if _, err := c.run("contacts", "show", "dan@example.org", "--workspace", ws); err == nil {
		t.Error("a deleted contact is still shown")
	}
	if _, err := c.run("contacts", "import", filepath.Join(t.TempDir(), "missing.csv"), "--workspace", ws); err == nil {
		t.Error("importing a missing file succeeded")
	}
}

func TestContactsImportRefusesABadHeader(t *testing.T) {
	c := newConsoleTable(t)
	ws := c.createWorkspace("Acme")
	for name, header := range map[string]string{"no email": "first_name,plan", "key with a dot": "email,a.b", "twice": "email,plan,Plan"} {
		file := filepath.Join(t.TempDir(), "c.csv")
		if err := os.WriteFile(file, []byte(header+"\nann@example.org,x,y\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := c.run("contacts", "import", file, "--workspace", ws); err == nil || !strings.Contains(err.Error(), "header") {
			t.Errorf("%s: err = %v, want a header error", name, err)
		}
	}
	if cs, _ := c.store.Contacts.GetContactByEmail(t.Context(), ws, "ann@example.org"); cs.ID != "" {
		t.Error("a file with a bad header imported a contact")
	}
}
