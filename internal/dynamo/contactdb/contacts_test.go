package contactdb_test

import (
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/dynamo/contactdb"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/fail"
)

// newContact is a checked contact of ws with email, created now.
func newContact(t *testing.T, ws, email string, p contact.Patch) contact.Contact {
	t.Helper()
	p.Email = &email
	p, err := p.Check()
	if err != nil {
		t.Fatal(err)
	}
	c, err := contact.New(ws, uuid.Must(uuid.NewV7()).String(), p, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func contactStore(t *testing.T) (*contactdb.Contacts, string, string) {
	t.Helper()
	store, _ := dynamotest.NewStore(t)
	var ids []string
	for _, name := range []string{"Acme", "Beta"} {
		ws, err := store.Workspaces.CreateWorkspace(t.Context(), name)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, ws.ID)
	}
	t.Cleanup(func() { dynamotest.CheckKeyLayout(t, store.Table.Name) })
	return store.Contacts, ids[0], ids[1]
}

func TestContactLifecycle(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	contacts, acme, beta := contactStore(t)
	plan := contact.StringProperty("pro")
	first := "Jane"
	c := newContact(t, acme, "Jane@Example.com ", contact.Patch{
		FirstName: contact.Nullable[string]{Set: true, Value: &first}, Tags: &[]string{"vip"},
		Properties: map[string]*contact.Property{"plan": &plan},
	})
	if err := contacts.CreateContact(ctx, c); err != nil {
		t.Fatal(err)
	}
	got, err := contacts.GetContactByEmail(ctx, acme, "  JANE@example.COM")
	if err != nil || got.ID != c.ID || got.Email != "jane@example.com" || *got.FirstName != "Jane" ||
		got.LastName != nil || !got.Subscribed || got.Properties["plan"] != plan || len(got.Tags) != 1 {
		t.Fatalf("by email: %+v, %v", got, err)
	}
	if err := contacts.CreateContact(ctx, newContact(t, acme, "jane@example.com", contact.Patch{})); !errors.Is(err, contact.ErrExists) {
		t.Errorf("second create of the email: err = %v, want ErrExists", err)
	}
	// Another workspace neither sees it nor is blocked by it.
	if _, err := contacts.GetContact(ctx, beta, c.ID); !errors.Is(err, contact.ErrNotFound) {
		t.Errorf("get from another workspace: err = %v", err)
	}
	if _, err := contacts.UpdateContact(ctx, beta, c.ID, contact.Patch{}); !errors.Is(err, contact.ErrNotFound) {
		t.Errorf("update from another workspace: err = %v", err)
	}
	if err := contacts.DeleteContact(ctx, beta, c.ID); !errors.Is(err, contact.ErrNotFound) {
		t.Errorf("delete from another workspace: err = %v", err)
	}
	if _, err := contacts.Unsubscribe(ctx, beta, c.ID, time.Now()); !errors.Is(err, contact.ErrNotFound) {
		t.Errorf("unsubscribe from another workspace: err = %v", err)
	}
	if err := contacts.CreateContact(ctx, newContact(t, beta, "jane@example.com", contact.Patch{})); err != nil {
		t.Errorf("same email in another workspace: %v", err)
	}

	// Null clears, absent is unchanged, properties merge, the email moves.
	other := newContact(t, acme, "other@example.com", contact.Patch{})
	if err := contacts.CreateContact(ctx, other); err != nil {
		t.Fatal(err)
	}
	moved := "jane@new.example.com"
	seats := contact.NumberProperty(3)
	upd, err := contacts.UpdateContact(ctx, acme, c.ID, contact.Patch{
		Email: &moved, FirstName: contact.Nullable[string]{Set: true},
		Properties: map[string]*contact.Property{"plan": nil, "seats": &seats},
	})
	if err != nil || upd.FirstName != nil || upd.Email != moved || len(upd.Tags) != 1 ||
		len(upd.Properties) != 1 || upd.Properties["seats"] != seats {
		t.Fatalf("update: %+v, %v", upd, err)
	}
	if _, err := contacts.GetContactByEmail(ctx, acme, "jane@example.com"); !errors.Is(err, contact.ErrNotFound) {
		t.Errorf("old email still claimed: err = %v", err)
	}
	if got, err := contacts.GetContactByEmail(ctx, acme, moved); err != nil || got.ID != c.ID {
		t.Errorf("new email: %+v, %v", got, err)
	}
	taken := "other@example.com"
	if _, err := contacts.UpdateContact(ctx, acme, c.ID, contact.Patch{Email: &taken}); !errors.Is(err, contact.ErrExists) {
		t.Errorf("move to a taken email: err = %v, want ErrExists", err)
	}

	// Unsubscribe keeps the first time.
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	if u, err := contacts.Unsubscribe(ctx, acme, c.ID, at); err != nil || u.Subscribed || !u.UnsubscribedAt.Equal(at) {
		t.Errorf("unsubscribe: %+v, %v", u, err)
	}
	if u, err := contacts.Unsubscribe(ctx, acme, c.ID, at.Add(time.Hour)); err != nil || !u.UnsubscribedAt.Equal(at) {
		t.Errorf("second unsubscribe: %+v, %v", u, err)
	}

	// Delete erases the contact and frees its email.
	if err := contacts.DeleteContact(ctx, acme, c.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := contacts.GetContact(ctx, acme, c.ID); !errors.Is(err, contact.ErrNotFound) {
		t.Errorf("get after delete: err = %v", err)
	}
	if err := contacts.DeleteContact(ctx, acme, c.ID); !errors.Is(err, contact.ErrNotFound) {
		t.Errorf("second delete: err = %v", err)
	}
	if err := contacts.CreateContact(ctx, newContact(t, acme, moved, contact.Patch{})); err != nil {
		t.Errorf("create with the freed email: %v", err)
	}
}

func TestContactConcurrentCreatesOfOneEmail(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	contacts, acme, _ := contactStore(t)
	var created, exists atomic.Int32
	dynamotest.Each(t, 0, 20, func(int) error {
		err := contacts.CreateContact(ctx, newContact(t, acme, "race@example.com", contact.Patch{}))
		switch {
		case err == nil:
			created.Add(1)
		case errors.Is(err, contact.ErrExists):
			exists.Add(1)
		default:
			return err
		}
		return nil
	})
	if created.Load() != 1 || exists.Load() != 19 {
		t.Errorf("created %d, exists %d; want 1 and 19", created.Load(), exists.Load())
	}
	n := 0
	if err := contacts.EachContact(ctx, acme, func(contact.Contact) error { n++; return nil }); err != nil || n != 1 {
		t.Errorf("the workspace holds %d contacts (err %v), want 1", n, err)
	}
}

// seedContacts creates n contacts of ws, oldest first; every tenth is
// tagged rare and every other one unsubscribed. It returns their ids.
func seedContacts(t *testing.T, contacts *contactdb.Contacts, ws string, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range n { // ids first: UUIDv7s are increasing in this process
		ids[i] = uuid.Must(uuid.NewV7()).String()
	}
	dynamotest.Each(t, 0, n, func(i int) error {
		p := contact.Patch{Subscribed: new(i%2 == 0)}
		if i%10 == 0 {
			p.Tags = &[]string{"rare"}
		}
		email := fmt.Sprintf("c%d@example.com", i)
		p.Email = &email
		c, err := contact.New(ws, ids[i], p, time.Now())
		if err != nil {
			return err
		}
		return contacts.CreateContact(t.Context(), c)
	})
	return ids
}

// An automation's tag step is the contact's own update: the tag cap holds
// (nothing written), and a step applied again writes nothing.
func TestContactTagSetsThroughUpdate(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	contacts, acme, _ := contactStore(t)
	clock := dynamotest.NewClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	contacts.Now = clock.Now
	fifty := make([]string, contact.MaxTags)
	for i := range fifty {
		fifty[i] = fmt.Sprintf("t%02d", i)
	}
	c := newContact(t, acme, "tags@example.com", contact.Patch{Tags: &fifty})
	if err := contacts.CreateContact(ctx, c); err != nil {
		t.Fatal(err)
	}
	before, err := contacts.GetContact(ctx, acme, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	_, err = contacts.UpdateContact(ctx, acme, c.ID, contact.Patch{AddTags: []string{"vip"}})
	if f, ok := fail.As(err); !ok || f.Kind != fail.KindInvalid || f.Param != "tags" {
		t.Errorf("a 51st tag: err = %v, want invalid tags", err)
	}
	clock.Set(clock.Now().Add(time.Hour))
	if _, err := contacts.UpdateContact(ctx, acme, c.ID, contact.Patch{AddTags: []string{"t07"}, RemoveTags: []string{"gone"}}); err != nil {
		t.Fatal(err)
	}
	got, err := contacts.GetContact(ctx, acme, c.ID)
	if err != nil || !slices.Equal(got.Tags, fifty) || !got.UpdatedAt.Equal(before.UpdatedAt) {
		t.Errorf("after a refused and an idle tag change: tags %v updated %v (before %v), %v", got.Tags, got.UpdatedAt, before.UpdatedAt, err)
	}
	got, err = contacts.UpdateContact(ctx, acme, c.ID, contact.Patch{AddTags: []string{"vip"}, RemoveTags: []string{"t00"}})
	if err != nil || len(got.Tags) != contact.MaxTags || got.Tags[len(got.Tags)-1] != "vip" || !got.UpdatedAt.Equal(clock.Now()) {
		t.Errorf("a tag swapped at the cap: %v, %v", got, err)
	}
}
