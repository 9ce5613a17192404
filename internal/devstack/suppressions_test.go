package devstack_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
)

// The list over HTTP: adding is idempotent (201 then 200 with the first
// entry unchanged), the list is newest first and pages, filters by address
// and reason, and an address removed (URL-encoded) is gone.
func TestSuppressionsAddListRemove(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	clock := dynamotest.NewClock(start)
	e := startDevAt(t, clock)
	_, key := e.workspace(apikey.Live)

	added := map[string]string{ // address → reason, oldest first
		"ann+news@example.org": "manual", "bob@example.org": "bounced", "cy@example.org": "complained",
		"dee@example.org": "unsubscribed", "eve@example.org": "manual",
	}
	order := []string{"ann+news@example.org", "bob@example.org", "cy@example.org", "dee@example.org", "eve@example.org"}
	for i, addr := range order {
		clock.Set(start.Add(time.Duration(i) * time.Minute))
		body := map[string]any{"email": strings.ToUpper(addr)}
		if added[addr] != "manual" {
			body["reason"] = added[addr]
		}
		got := e.suppress(t, key, body).entry(t, http.StatusCreated)
		want := suppressionEntry{Email: addr, Reason: added[addr], CreatedAt: start.Add(time.Duration(i) * time.Minute).Format("2006-01-02T15:04:05.000Z")}
		if got != want {
			t.Errorf("added %+v, want %+v", got, want)
		}
	}

	// Again, with another reason and later: the first entry stands.
	clock.Set(start.Add(time.Hour))
	again := e.suppress(t, key, map[string]any{"email": "Bob <bob@example.org>", "reason": "manual"}).entry(t, http.StatusOK)
	if again.Reason != "bounced" || again.CreatedAt != "2026-11-22T10:01:00.000Z" || again.EmailID != nil {
		t.Errorf("re-added entry %+v, want the first one (bounced, 10:01)", again)
	}

	newest := slices.Clone(order)
	slices.Reverse(newest)
	if got := e.suppressedAddresses(t, key, 2); !slices.Equal(got, newest) {
		t.Errorf("list by pages of 2 = %v, want newest first %v", got, newest)
	}
	if p := e.suppressions(t, key, "?email=CY%40Example.org"); len(p.Data) != 1 || p.Data[0].Email != "cy@example.org" || p.HasMore {
		t.Errorf("?email=CY@Example.org = %+v", p)
	}
	if p := e.suppressions(t, key, "?email=zed%40example.org"); len(p.Data) != 0 || p.HasMore {
		t.Errorf("?email of an address not listed = %+v", p)
	}
	if p := e.suppressions(t, key, "?email=cy%40example.org&reason=manual"); len(p.Data) != 0 {
		t.Errorf("?email with another reason = %+v", p)
	}
	var manual []string
	for _, s := range e.suppressions(t, key, "?reason=manual").Data {
		manual = append(manual, s.Email)
	}
	if want := []string{"eve@example.org", "ann+news@example.org"}; !slices.Equal(manual, want) {
		t.Errorf("?reason=manual = %v, want %v", manual, want)
	}

	removed := e.unsuppress(t, key, "Ann%2Bnews%40example.org").entry(t, http.StatusOK)
	if removed.Email != "ann+news@example.org" || removed.Reason != "manual" {
		t.Errorf("removed %+v", removed)
	}
	e.bad().unsuppress(t, key, "ann%2Bnews%40example.org").wantError(t, http.StatusNotFound, "not_found", "")
	if got := e.suppressedAddresses(t, key, 100); slices.Contains(got, "ann+news@example.org") || len(got) != 4 {
		t.Errorf("after removal the list is %v", got)
	}
	// Added again after removal: a new entry, now.
	clock.Set(start.Add(2 * time.Hour))
	if got := e.suppress(t, key, map[string]any{"email": "ann+news@example.org"}).entry(t, http.StatusCreated); got.CreatedAt != "2026-11-22T12:00:00.000Z" {
		t.Errorf("re-added after removal: %+v", got)
	}
}

// A list of addresses: each added on its own, an invalid one is its item's
// error with its exact param, duplicates are one entry; 1,000 is the cap.
func TestSuppressionsAddMany(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	_, key := e.workspace(apikey.Live)
	e.suppress(t, key, map[string]any{"email": "old@example.org", "reason": "bounced"}).entry(t, http.StatusCreated)

	r := e.bad().post(key, "/api/v1/suppressions", map[string]any{
		"emails": []any{"new@example.org", "not an address", 5, "OLD@example.org", "a@example.org, b@example.org", "New@Example.org"},
		"reason": "unsubscribed",
	})
	items := r.suppressionItems(t, 6)
	for i, param := range map[int]string{1: "emails[1]", 2: "emails[2]", 4: "emails[4]"} {
		if it := items[i]; it.Error == nil || it.Error.Code != "invalid_field" || deref(it.Error.Param) != param || it.Created != nil {
			t.Errorf("item %d = %+v, want invalid_field %s", i, it, param)
		}
	}
	if it := items[3]; it.Created == nil || *it.Created || it.Email != "old@example.org" || it.Reason != "bounced" {
		t.Errorf("item 3 (listed already) = %+v, want created false, reason bounced", it)
	}
	// Items 0 and 5 are one address: exactly one of them added it.
	if a, b := items[0], items[5]; a.Created == nil || b.Created == nil || *a.Created == *b.Created || a.Email != "new@example.org" || b.Email != "new@example.org" || a.Reason != "unsubscribed" {
		t.Errorf("items 0 and 5 = %+v, %+v; want one created, both new@example.org unsubscribed", a, b)
	}
	if got := e.suppressedAddresses(t, key, 100); !slices.Equal(got, []string{"new@example.org", "old@example.org"}) {
		t.Errorf("list = %v", got)
	}

	many := make([]string, 1000)
	for i := range many {
		many[i] = fmt.Sprintf("bulk%04d@example.org", i)
	}
	for i, it := range e.post(key, "/api/v1/suppressions", map[string]any{"emails": many}).suppressionItems(t, 1000) {
		if it.Created == nil || !*it.Created || it.Email != many[i] || it.Reason != "manual" {
			t.Fatalf("item %d = %+v", i, it)
		}
	}
	if got := e.suppressedAddresses(t, key, 100); len(got) != 1002 {
		t.Errorf("%d addresses listed, want 1002", len(got))
	}
	e.bad().post(key, "/api/v1/suppressions", map[string]any{"emails": append(many, "one@too.many")}).
		wantError(t, http.StatusBadRequest, "invalid_field", "emails")
}

// Refusals: exact code and param, nothing written; a read-only key cannot
// write; another workspace's list is not there.
func TestSuppressionsBadInput(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	ws, key := e.workspace(apikey.Live)
	b := e.bad()
	posts := map[string]struct {
		body       any
		code, para string
	}{
		"no address":          {map[string]any{"reason": "manual"}, "missing_field", "email"},
		"email null":          {map[string]any{"email": nil}, "missing_field", "email"},
		"invalid email":       {map[string]any{"email": "ann at example.org"}, "invalid_field", "email"},
		"two addresses":       {map[string]any{"email": "a@example.org, b@example.org"}, "invalid_field", "email"},
		"email not a string":  {map[string]any{"email": 5}, "invalid_field", "email"},
		"both":                {map[string]any{"email": "a@example.org", "emails": []string{"b@example.org"}}, "invalid_field", "emails"},
		"emails empty":        {map[string]any{"emails": []string{}}, "invalid_field", "emails"},
		"emails not an array": {map[string]any{"emails": "a@example.org"}, "invalid_field", "emails"},
		"unknown reason":      {map[string]any{"email": "a@example.org", "reason": "spam"}, "invalid_field", "reason"},
		"unknown field":       {map[string]any{"email": "a@example.org", "note": "x"}, "invalid_field", "note"},
		"not an object":       {`["a@example.org"]`, "invalid_field", "body"},
	}
	for name, tc := range posts {
		t.Run("POST "+name, func(t *testing.T) {
			b.post(key, "/api/v1/suppressions", tc.body).wantError(t, http.StatusBadRequest, tc.code, tc.para)
		})
	}
	gets := map[string]string{
		"?reason=spam": "reason", "?email=nobody": "email", "?cursor=abc": "cursor", "?limit=0": "limit",
	}
	for query, param := range gets {
		t.Run("GET "+query, func(t *testing.T) {
			b.get(bearer(key), "/api/v1/suppressions"+query).wantError(t, http.StatusBadRequest, "invalid_field", param)
		})
	}
	for name, seg := range map[string]string{"absent": "nobody%40example.org", "not an address": "nobody", "blank": "%20"} {
		t.Run("DELETE "+name, func(t *testing.T) {
			b.unsuppress(t, key, seg).wantError(t, http.StatusNotFound, "not_found", "")
		})
	}
	if got := e.suppressedAddresses(t, key, 100); len(got) != 0 {
		t.Errorf("refused requests listed %v", got)
	}

	// Scopes: read-only reads and cannot write; send-only cannot read.
	readOnly := presetKey(t, e, ws, apikey.PresetRead)
	e.suppress(t, key, map[string]any{"email": "kept@example.org"}).entry(t, http.StatusCreated)
	b.post(readOnly, "/api/v1/suppressions", map[string]any{"email": "x@example.org"}).wantError(t, http.StatusForbidden, "insufficient_scope", "")
	b.unsuppress(t, readOnly, "kept%40example.org").wantError(t, http.StatusForbidden, "insufficient_scope", "")
	if got := e.suppressedAddresses(t, readOnly, 100); !slices.Equal(got, []string{"kept@example.org"}) {
		t.Errorf("read-only key lists %v", got)
	}
	b.get(bearer(presetKey(t, e, ws, apikey.PresetSend)), "/api/v1/suppressions").wantError(t, http.StatusForbidden, "insufficient_scope", "")

	// Another workspace sees nothing of it and cannot remove it.
	_, other := e.workspace(apikey.Live)
	if p := e.suppressions(t, other, "?email=kept%40example.org"); len(p.Data) != 0 {
		t.Errorf("another workspace reads %+v", p.Data)
	}
	b.unsuppress(t, other, "kept%40example.org").wantError(t, http.StatusNotFound, "not_found", "")
	if got := e.suppressedAddresses(t, key, 100); !slices.Equal(got, []string{"kept@example.org"}) {
		t.Errorf("after another workspace's delete the list is %v", got)
	}
}
