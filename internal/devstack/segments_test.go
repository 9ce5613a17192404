package devstack_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/suppression"
)

// segmentBody is the Segment object as the tests read it.
type segmentBody struct {
	ID           string         `json:"id"`
	Name         string         `json:"name"`
	Filter       map[string]any `json:"filter"`
	ContactCount int            `json:"contact_count"`
	CreatedAt    string         `json:"created_at"`
}

// segmentKey is a key minted on purpose with segments:write, and
// contacts:write to set the audience up.
func (e *env) segmentKey(t *testing.T) (string, string) {
	t.Helper()
	return e.workspace(apikey.Live, apikey.SegmentsWrite, apikey.ContactsWrite)
}

// vip is the filter of most tests: tagged vip.
var vip = map[string]any{"all": []any{map[string]any{"field": "tags", "op": "has_tag", "value": "vip"}}}

// contact_count is the subscribed contacts off the do-not-send list that
// match, of the key's workspace only; the segment stores the filter in
// canonical form. The contacts are read as 16 shard Queries and the
// do-not-send list as one: no Scan, one write.
func TestCreateSegmentCountsRecipients(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	ws, key := e.segmentKey(t)
	_, otherKey := e.segmentKey(t)
	for _, c := range []map[string]any{
		{"email": "ann@example.com", "tags": []string{"vip"}},
		{"email": "Bea@Example.com", "tags": []string{"vip", "beta"}, "properties": map[string]any{"plan": "pro"}},
		{"email": "unsub@example.com", "tags": []string{"vip"}, "subscribed": false},
		{"email": "bounced@example.com", "tags": []string{"vip"}},
		{"email": "plain@example.com"},
	} {
		e.createContact(t, key, c)
	}
	e.createContact(t, otherKey, map[string]any{"email": "ann@example.com", "tags": []string{"vip"}})
	if _, _, err := e.store.Suppressions.PutSuppression(t.Context(), ws, suppression.Suppression{Email: "BOUNCED@example.com", Reason: suppression.Bounced}); err != nil {
		t.Fatal(err)
	}
	e.rec.Reset()
	var out struct{ Data segmentBody }
	e.post(key, "/api/v1/segments", map[string]any{"name": "  VIPs ", "filter": vip}).decode(t, http.StatusCreated, &out)
	seg := out.Data
	if seg.ContactCount != 2 || seg.Name != "VIPs" {
		t.Errorf("segment %+v, want VIPs with 2 recipients (ann, bea)", seg)
	}
	if _, err := uuid.Parse(seg.ID); err != nil {
		t.Errorf("id %q: %v", seg.ID, err)
	}
	if at, err := time.Parse(time.RFC3339, seg.CreatedAt); err != nil || time.Since(at) > time.Minute {
		t.Errorf("created_at %q", seg.CreatedAt)
	}
	if q := e.rec.Calls("Query"); q != 17 {
		t.Errorf("%d Queries, want 16 contact shards and the do-not-send list", q)
	}
	if n := e.rec.Calls("PutItem"); n != 1 {
		t.Errorf("%d PutItems, want the segment only", n)
	}
	stored, err := e.store.Segments.GetSegment(t.Context(), ws, seg.ID)
	if err != nil || stored.ContactCount != 2 || stored.Name != "VIPs" {
		t.Errorf("stored %+v, %v", stored, err)
	}

	// Narrower: the filter language over HTTP, nested, case-insensitive.
	narrow := map[string]any{"all": []any{
		map[string]any{"field": "email", "op": "starts_with", "value": "BEA@"},
		map[string]any{"any": []any{
			map[string]any{"field": "properties.plan", "op": "in", "value": []any{"pro", "team"}},
			map[string]any{"not": map[string]any{"field": "tags", "op": "has_tag", "value": "beta"}},
		}},
	}}
	e.post(key, "/api/v1/segments", map[string]any{"name": "Bea", "filter": narrow}).decode(t, http.StatusCreated, &out)
	if out.Data.ContactCount != 1 {
		t.Errorf("contact_count %d, want 1", out.Data.ContactCount)
	}
}

// A refused segment: 400 with the param path of the fault, nothing
// written.
func TestCreateSegmentBadInput(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	ws, key := e.segmentKey(t)
	cond := map[string]any{"field": "email", "op": "contains", "value": "@"}
	many := make([]any, 21)
	for i := range many {
		many[i] = map[string]any{"field": "email", "op": "ends_with", "value": fmt.Sprintf("@%d.test", i)}
	}
	fourDeep := map[string]any{"all": []any{map[string]any{"any": []any{map[string]any{"not": map[string]any{"all": []any{cond}}}}}}}
	tests := map[string]struct {
		body        any
		code, param string
	}{
		"filter 4 deep": {map[string]any{"name": "x", "filter": fourDeep}, "invalid_field", "filter.all[0].any[0].not"},
		"21 conditions": {map[string]any{"name": "x", "filter": map[string]any{"all": many}}, "invalid_field", "filter.all[20]"},
		"unknown field": {map[string]any{"name": "x", "filter": map[string]any{"all": []any{cond, map[string]any{"field": "phone", "op": "eq", "value": "1"}}}}, "invalid_field", "filter.all[1].field"},
		"gt on tags":    {map[string]any{"name": "x", "filter": map[string]any{"any": []any{map[string]any{"field": "tags", "op": "gt", "value": "vip"}}}}, "invalid_field", "filter.any[0].op"},
		"bad value in not": {
			map[string]any{"name": "x", "filter": map[string]any{"any": []any{map[string]any{"not": map[string]any{"field": "created_at", "op": "within_days", "value": "7"}}}}},
			"invalid_field", "filter.any[0].not.value",
		},
		"a condition as filter": {map[string]any{"name": "x", "filter": cond}, "invalid_field", "filter"},
		"no filter":             {map[string]any{"name": "x"}, "missing_field", "filter"},
		"no name":               {map[string]any{"filter": vip}, "missing_field", "name"},
		"blank name":            {map[string]any{"name": "  ", "filter": vip}, "invalid_field", "name"},
		"long name":             {map[string]any{"name": strings.Repeat("n", 201), "filter": vip}, "invalid_field", "name"},
		"name a number":         {map[string]any{"name": 3, "filter": vip}, "invalid_field", "name"},
		"unknown body field":    {map[string]any{"name": "x", "filter": vip, "members": []string{"a"}}, "invalid_field", "members"},
		"not JSON":              {`{"name":`, "invalid_field", "body"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			e.bad().post(key, "/api/v1/segments", tc.body).wantError(t, http.StatusBadRequest, tc.code, tc.param)
		})
	}
	if l, err := e.store.Segments.ListSegments(t.Context(), ws); err != nil || len(l) != 0 {
		t.Errorf("refused segments stored: %v, %v", l, err)
	}
}

// segments:write is deliberate-only: the Full preset, a read-only key and
// a legacy key lack it; a key minted with it alone may create.
func TestCreateSegmentNeedsDeliberateScope(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	ws, full := e.workspace(apikey.Live) // the Full access preset
	readOnly, _, err := e.store.Keys.CreateKey(t.Context(), ws, apikey.Live, "", []apikey.Scope{
		apikey.EmailsRead, apikey.ContactsRead, apikey.DomainsRead, apikey.EventsRead,
		apikey.SuppressionsRead, apikey.MetricsRead, apikey.CampaignsRead,
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, k := range map[string]string{"full": full, "read-only": readOnly} {
		t.Run(name, func(t *testing.T) {
			e.post(k, "/api/v1/segments", map[string]any{"name": "x", "filter": vip}).
				wantError(t, http.StatusForbidden, "insufficient_scope", "")
		})
	}
	if l, err := e.store.Segments.ListSegments(t.Context(), ws); err != nil || len(l) != 0 {
		t.Errorf("refused segments stored: %v, %v", l, err)
	}
	deliberate, _, err := e.store.Keys.CreateKey(t.Context(), ws, apikey.Live, "", []apikey.Scope{apikey.SegmentsWrite})
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ Data segmentBody }
	e.post(deliberate, "/api/v1/segments", map[string]any{"name": "x", "filter": vip}).decode(t, http.StatusCreated, &out)
	if out.Data.ContactCount != 0 {
		t.Errorf("contact_count %d in a workspace without contacts", out.Data.ContactCount)
	}
}
