package contactdb_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/contactdb"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
)

// listAll pages through the list with limit and returns the ids in order
// and the number of pages.
func listAll(t *testing.T, contacts *contactdb.Contacts, ws string, f contact.Filter, limit int) ([]string, int) {
	t.Helper()
	var ids []string
	after, pages := "", 0
	for {
		page, next, more, err := contacts.ListContacts(t.Context(), ws, f, after, limit)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if len(page) > limit {
			t.Fatalf("page of %d over limit %d", len(page), limit)
		}
		for _, c := range page {
			ids = append(ids, c.ID)
		}
		if !more {
			return ids, pages
		}
		if pages > 500 {
			t.Fatal("the list does not end")
		}
		after = next
	}
}

func TestListContactsMergesShardsNewestFirst(t *testing.T) {
	t.Parallel()
	contacts, acme, beta := contactStore(t)
	ids := seedContacts(t, contacts, acme, 1100)
	newest := slices.Clone(ids)
	slices.Reverse(newest)

	got, pages := listAll(t, contacts, acme, contact.Filter{}, 7)
	if !slices.Equal(got, newest) {
		t.Errorf("limit 7: %d ids, not every contact newest first", len(got))
	}
	if pages != 158 { // 1100/7 rounded up: has_more is exact without filters
		t.Errorf("limit 7 took %d pages, want 158", pages)
	}
	page, _, more, err := contacts.ListContacts(t.Context(), acme, contact.Filter{}, "", 100)
	if err != nil || len(page) != 100 || !more || page[0].ID != newest[0] {
		t.Errorf("first page of 100: %d contacts, more %v, err %v", len(page), more, err)
	}

	// A rare tag over more contacts than one request's read budget: short
	// pages, but every match exactly once, in order.
	var rare, unsubscribedRare []string
	for i, id := range slices.Backward(ids) {
		if i%10 == 0 {
			rare = append(rare, id)
			if i%2 == 1 {
				unsubscribedRare = append(unsubscribedRare, id)
			}
		}
	}
	if got, _ := listAll(t, contacts, acme, contact.Filter{Tag: "rare"}, 50); !slices.Equal(got, rare) {
		t.Errorf("tag rare: %d ids, want the %d tagged newest first", len(got), len(rare))
	}
	// One page of a rare tag examines at most the read budget (1,000
	// items) across the 16 shards read in parallel, not the budget per
	// shard; a tag no contact has drains every shard at once.
	counter := &dynamotest.ScanCounter{DB: contacts.DB}
	counted := &contactdb.Contacts{Table: &dynamo.Table{DB: counter, Name: contacts.Name}}
	for _, tag := range []string{"rare", "nobody"} {
		if _, _, _, err := counted.ListContacts(t.Context(), acme, contact.Filter{Tag: tag}, "", 100); err != nil {
			t.Fatal(err)
		}
		if n := counter.Take(); n > 1000 {
			t.Errorf("a page of tag %s at limit 100 examined %d items, over the read budget of 1000", tag, n)
		}
	}
	if got, _ := listAll(t, contacts, acme, contact.Filter{Tag: "rare", Subscribed: new(false)}, 50); !slices.Equal(got, unsubscribedRare) {
		t.Errorf("tag rare, unsubscribed: %d ids, want %d", len(got), len(unsubscribedRare))
	}
	if got, _ := listAll(t, contacts, acme, contact.Filter{Subscribed: new(true)}, 100); len(got) != 550 {
		t.Errorf("subscribed: %d ids, want 550", len(got))
	}
	if got, _ := listAll(t, contacts, acme, contact.Filter{Email: "c3@example.com"}, 10); !slices.Equal(got, ids[3:4]) {
		t.Errorf("email c3: %v, want %v", got, ids[3:4])
	}
	if got, _ := listAll(t, contacts, acme, contact.Filter{Email: "c3@example.com", Subscribed: new(true)}, 10); len(got) != 0 {
		t.Errorf("email c3 (unsubscribed) with subscribed=true: %v", got)
	}
	if got, _ := listAll(t, contacts, beta, contact.Filter{}, 10); len(got) != 0 {
		t.Errorf("another workspace lists %d contacts", len(got))
	}

	// EachContact visits every contact once; an error stops it.
	seen := map[string]int{}
	if err := contacts.EachContact(t.Context(), acme, func(c contact.Contact) error { seen[c.ID]++; return nil }); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if seen[id] != 1 {
			t.Fatalf("contact %s visited %d times", id, seen[id])
		}
	}
	stop := errors.New("stop")
	calls := 0
	err = contacts.EachContact(t.Context(), acme, func(contact.Contact) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("an error from fn: err = %v after %d calls, want stop after 1", err, calls)
	}
}
