package devstack_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/devstack"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/identity"
)

func TestAuthFailures(t *testing.T) {
	e := startDev(t)
	ctx := t.Context()
	wsID, _ := e.workspace(apikey.Live)
	revoked, k, err := e.store.Keys.CreateKey(ctx, wsID, apikey.Live, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.Keys.RevokeKey(ctx, wsID, k.ID); err != nil {
		t.Fatal(err)
	}
	old, k2, err := e.store.Keys.CreateKey(ctx, wsID, apikey.Test, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.store.Keys.RegenerateKey(ctx, wsID, k2.ID); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"no key":            "",
		"bearer, empty key": "Bearer ",
		"unknown prefix":    "Bearer sk_live_" + strings.Repeat("a", 40),
		"not bearer":        "Basic " + apikey.Generate(apikey.Live),
		"unknown key":       bearer(apikey.Generate(apikey.Live)),
		"revoked key":       bearer(revoked),
		"regenerated key":   bearer(old),
	}
	for name, header := range cases {
		t.Run(name, func(t *testing.T) {
			e.bad().get(header, "/api/v1/emails").wantError(t, http.StatusUnauthorized, "unauthorized", "")
		})
	}
}

func TestScopes(t *testing.T) {
	e := startDev(t)
	_, sendOnly := e.workspace(apikey.Live, apikey.EmailSend)
	r := e.get(bearer(sendOnly), "/api/v1/emails")
	r.wantError(t, http.StatusForbidden, "insufficient_scope", "")
	if !strings.Contains(string(r.body), "emails:read") {
		t.Errorf("message should name the missing scope: %s", r.body)
	}
	_, readOnly := e.workspace(apikey.Live, apikey.EmailsRead)
	if r := e.get(bearer(readOnly), "/api/v1/emails"); r.status != http.StatusOK {
		t.Errorf("read-only key on emails: %d %s", r.status, r.body)
	}
}

func TestKeyStoreFaultIs503(t *testing.T) {
	e := startDev(t)
	_, key := e.workspace(apikey.Live)
	e.rec.Fail = func(op string) error { return errors.New("connection reset by dynamodb") }
	r := e.get(bearer(key), "/api/v1/emails")
	r.wantError(t, http.StatusServiceUnavailable, "service_unavailable", "")
	if got := r.header.Get("Retry-After"); got != "2" {
		t.Errorf("Retry-After = %q, want 2", got)
	}
	if strings.Contains(string(r.body), "connection reset") {
		t.Errorf("internal error text leaked: %s", r.body)
	}
	e.rec.Fail = func(op string) error { return context.DeadlineExceeded }
	e.get(bearer(key), "/api/v1/emails").wantError(t, http.StatusServiceUnavailable, "service_unavailable", "")
}

func TestRateLimitOverHTTP(t *testing.T) {
	e := startDev(t)
	clock := dynamotest.NewClock(time.Date(2026, 11, 22, 9, 0, 10, 0, time.UTC))
	e.store.Table.Now = clock.Now
	_, key := e.workspace(apikey.Live)
	h, err := api.Handler(e.deps)
	if err != nil {
		t.Fatal(err)
	}
	serve := func() *http.Response {
		req, _ := http.NewRequest(http.MethodGet, "/api/v1/emails/"+uuid.NewString(), nil)
		req.Header.Set("Authorization", bearer(key))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w.Result()
	}
	for i := 1; i <= apikey.RequestsPerMinute; i++ {
		if res := serve(); res.StatusCode != http.StatusNotFound {
			t.Fatalf("request %d: status %d", i, res.StatusCode)
		}
	}
	res := serve()
	if res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("request 1001: status %d, want 429", res.StatusCode)
	}
	if got := res.Header.Get("Retry-After"); got != "50" {
		t.Errorf("Retry-After = %q, want the 50 s left in the minute", got)
	}
	clock.Set(time.Date(2026, 11, 22, 9, 1, 0, 0, time.UTC))
	if res := serve(); res.StatusCode != http.StatusNotFound {
		t.Errorf("next window: status %d, want the request admitted", res.StatusCode)
	}
}

func TestGetEmail(t *testing.T) {
	e := startDev(t)
	wsID, key := e.workspace(apikey.Live)
	otherWS, otherKey := e.workspace(apikey.Live)
	mine := e.putEmail(wsID, nil)
	theirs := e.putEmail(otherWS, nil)

	e.rec.Reset()
	r := e.get(bearer(key), "/api/v1/emails/"+mine.ID)
	if r.status != http.StatusOK {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	if got := e.rec.Total(); got != 2 {
		t.Errorf("GET email took %d DynamoDB calls, want 2 (key+rate limit, read)", got)
	}
	var got struct {
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal(r.body, &got); err != nil {
		t.Fatal(err)
	}
	if got.Data["id"] != mine.ID {
		t.Errorf("id = %v", got.Data["id"])
	}
	cases := map[string]struct{ key, id string }{
		"another workspace's email": {key, theirs.ID},
		"absent email":              {key, uuid.NewString()},
		"not a uuid":                {key, "not-a-uuid"},
		"other key, my email":       {otherKey, mine.ID},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := e
			if _, err := uuid.Parse(tc.id); err != nil {
				c = e.bad() // an id that is not a UUID, on purpose
			}
			c.get(bearer(tc.key), "/api/v1/emails/"+tc.id).wantError(t, http.StatusNotFound, "not_found", "")
		})
	}
}

func TestEmailObject(t *testing.T) {
	e := startDev(t)
	wsID, key := e.workspace(apikey.Live)
	sent := time.Date(2026, 11, 20, 8, 30, 0, 0, time.UTC)
	delivered := sent.Add(2 * time.Second)
	legacy := e.putEmail(wsID, func(m *email.Email) { m.TrackingMode = ""; m.SentAt = sent })
	failed := e.putEmail(wsID, func(m *email.Email) {
		m.Status = email.StatusFailed
		m.Error = "rejected by provider"
		m.TrackingMode = email.TrackingEssential
	})
	delivered1 := e.putEmail(wsID, func(m *email.Email) {
		m.Status = email.StatusDelivered
		m.DeliveredAt = &delivered
		m.Error = "stale text that must not show"
	})
	fields := []string{"id", "to", "subject", "status", "type", "environment", "sent_at", "delivered_at", "opened_at", "clicked_at", "bounced_at", "complained_at", "open_tracking_mode", "error", "tags", "source"}
	read := func(id string) map[string]any {
		var got struct {
			Data map[string]any `json:"data"`
		}
		r := e.get(bearer(key), "/api/v1/emails/"+id)
		if err := json.Unmarshal(r.body, &got); err != nil {
			t.Fatal(err)
		}
		if len(got.Data) != len(fields) {
			t.Errorf("email has %d fields, want exactly %v: %s", len(got.Data), fields, r.body)
		}
		for _, f := range fields {
			if _, ok := got.Data[f]; !ok {
				t.Errorf("field %s missing: %s", f, r.body)
			}
		}
		return got.Data
	}
	l := read(legacy.ID)
	if l["open_tracking_mode"] != "full" || l["error"] != nil || l["delivered_at"] != nil {
		t.Errorf("legacy row = %v", l)
	}
	if src, _ := l["source"].(map[string]any); src["type"] != "api" || len(src) != 1 {
		t.Errorf("legacy row's source = %v, want api", l["source"])
	}
	if l["sent_at"] != "2026-11-20T08:30:00.000Z" {
		t.Errorf("sent_at = %v, want ISO 8601 UTC", l["sent_at"])
	}
	f := read(failed.ID)
	if f["status"] != "failed" || f["error"] != "rejected by provider" || f["open_tracking_mode"] != "essential" {
		t.Errorf("failed row = %v", f)
	}
	d := read(delivered1.ID)
	if d["error"] != nil || d["delivered_at"] != "2026-11-20T08:30:02.000Z" {
		t.Errorf("delivered row = %v", d)
	}
}

func TestListEmailsPagination(t *testing.T) {
	e := startDev(t)
	wsID, key := e.workspace(apikey.Live)
	otherWS, _ := e.workspace(apikey.Live)
	var ids []string
	for range 7 {
		ids = append(ids, e.putEmail(wsID, nil).ID)
	}
	e.putEmail(otherWS, nil)
	var seen []string
	query := "?limit=3"
	for page := 0; ; page++ {
		b := e.list(bearer(key), query)
		for _, d := range b.Data {
			seen = append(seen, d.ID)
		}
		if !b.HasMore {
			if b.NextCursor != nil {
				t.Errorf("last page has next_cursor %q", *b.NextCursor)
			}
			break
		}
		if b.NextCursor == nil || page > 5 {
			t.Fatalf("page %d: has_more without cursor", page)
		}
		query = "?limit=3&cursor=" + *b.NextCursor
	}
	if len(seen) != 7 {
		t.Fatalf("saw %d emails, want 7 (and none of the other workspace)", len(seen))
	}
	for i, id := range seen {
		if want := ids[len(ids)-1-i]; id != want {
			t.Errorf("item %d = %s, want %s (newest first)", i, id, want)
		}
	}
	if b := e.list(bearer(key), ""); len(b.Data) != 7 || b.HasMore {
		t.Errorf("default page: %d items, has_more %v", len(b.Data), b.HasMore)
	}
	if b := e.list(bearer(key), "?limit=101"); len(b.Data) != 7 {
		t.Errorf("limit=101 is clamped, not refused: %d items", len(b.Data))
	}
}

func TestListEmailsLimitClampedTo100(t *testing.T) {
	e := startDev(t)
	wsID, key := e.workspace(apikey.Live)
	for range 102 {
		e.putEmail(wsID, nil)
	}
	b := e.list(bearer(key), "?limit=500")
	if len(b.Data) != 100 || !b.HasMore {
		t.Errorf("limit=500: %d items, has_more %v; want 100 and true", len(b.Data), b.HasMore)
	}
	if b := e.list(bearer(key), "?limit=100&cursor="+*b.NextCursor); len(b.Data) != 2 || b.HasMore {
		t.Errorf("second page: %d items, has_more %v", len(b.Data), b.HasMore)
	}
}

func TestListEmailsFilters(t *testing.T) {
	e := startDev(t)
	wsID, key := e.workspace(apikey.Live)
	set := func(s email.Status, ty email.Type, env apikey.Environment) func(*email.Email) {
		return func(m *email.Email) { m.Status, m.Type, m.Environment = s, ty, env }
	}
	e.putEmail(wsID, set(email.StatusSent, email.TypeTransactional, apikey.Live))
	e.putEmail(wsID, set(email.StatusBounced, email.TypeTransactional, apikey.Live))
	e.putEmail(wsID, set(email.StatusBounced, email.TypeCampaign, apikey.Live))
	e.putEmail(wsID, set(email.StatusBounced, email.TypeCampaign, apikey.Test))
	e.putEmail(wsID, set(email.StatusHeld, email.TypeAutomation, apikey.Test))
	cases := map[string]struct {
		query string
		want  int
	}{
		"status":                     {"?status=bounced", 3},
		"type":                       {"?type=campaign", 2},
		"environment":                {"?environment=test", 2},
		"status and type":            {"?status=bounced&type=campaign", 2},
		"status, type, environment":  {"?status=bounced&type=campaign&environment=live", 1},
		"type and environment":       {"?type=automation&environment=test", 1},
		"status with no match":       {"?status=clicked", 0},
		"held":                       {"?status=held", 1},
		"status filter and paginate": {"?status=bounced&limit=2", 2},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := e.list(bearer(key), tc.query)
			if len(b.Data) != tc.want {
				t.Errorf("%d items, want %d", len(b.Data), tc.want)
			}
			for _, d := range b.Data {
				if strings.Contains(tc.query, "status=") && !strings.Contains(tc.query, "status="+d.Status) {
					t.Errorf("item status %s does not match %s", d.Status, tc.query)
				}
			}
		})
	}
	// A status-filtered page continues on its own cursor.
	first := e.list(bearer(key), "?status=bounced&limit=2")
	rest := e.list(bearer(key), "?status=bounced&limit=2&cursor="+*first.NextCursor)
	if len(rest.Data) != 1 || rest.HasMore {
		t.Errorf("second bounced page: %d items, has_more %v", len(rest.Data), rest.HasMore)
	}
	// The cursor is bound to its filter.
	e.get(bearer(key), "/api/v1/emails?status=sent&cursor="+*first.NextCursor).wantError(t, http.StatusBadRequest, "invalid_field", "cursor")
}

func TestListEmailsBadInput(t *testing.T) {
	e := startDev(t)
	wsID, key := e.workspace(apikey.Live)
	_, otherKey := e.workspace(apikey.Live)
	for range 3 {
		e.putEmail(wsID, nil)
	}
	cursor := *e.list(bearer(key), "?limit=1").NextCursor
	edited := []byte(cursor)
	edited[len(edited)/2] ^= 1
	if string(edited) == cursor {
		t.Fatal("edit did not change the cursor")
	}
	cases := map[string]struct {
		key, query, param string
	}{
		"limit=0":                     {key, "?limit=0", "limit"},
		"limit=-1":                    {key, "?limit=-1", "limit"},
		"limit=abc":                   {key, "?limit=abc", "limit"},
		"cursor garbage":              {key, "?cursor=@@not-a-cursor@@", "cursor"},
		"cursor edited":               {key, "?cursor=" + string(edited), "cursor"},
		"cursor of another key":       {otherKey, "?cursor=" + cursor, "cursor"},
		"cursor not percent-encoding": {key, "?cursor=%%%garbage", "cursor"},
		"limit not percent-encoding":  {key, "?limit=%zz", "limit"},
		"semicolon separator":         {key, "?limit=5;status=sent", "limit"},
		"status=unknown":              {key, "?status=unknown", "status"},
		"type=newsletter":             {key, "?type=newsletter", "type"},
		"environment=prod":            {key, "?environment=prod", "environment"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e.bad().get(bearer(tc.key), "/api/v1/emails"+tc.query).wantError(t, http.StatusBadRequest, "invalid_field", tc.param)
		})
	}
}

func TestUnknownRouteAndMethod(t *testing.T) {
	e := startDev(t)
	_, key := e.workspace(apikey.Live)
	e.bad().get(bearer(key), "/api/v1/nothing-here").wantError(t, http.StatusNotFound, "not_found", "")
	r, err := e.bad().do(e.url, key, http.MethodDelete, "/api/v1/emails", nil)
	if err != nil {
		t.Fatal(err)
	}
	r.wantError(t, http.StatusMethodNotAllowed, "method_not_allowed", "")
	if r.header.Get("Allow") != "GET" {
		t.Errorf("Allow = %q", r.header.Get("Allow"))
	}
}

func TestSeedReusesDemoWorkspace(t *testing.T) {
	store, _ := dynamotest.NewStore(t)
	ctx := t.Context()
	identities := localIdentities(t)
	first, err := devstack.Seed(ctx, store, identities, devstack.Env{})
	if err != nil {
		t.Fatal(err)
	}
	// The demo domain is added as the console adds one: an SES identity
	// (the local stack's), verified, with its DKIM records.
	if d, err := store.Domains.GetDomain(ctx, first.WorkspaceID, devstack.DemoDomain); err != nil || d.Status != identity.DomainVerified || len(d.Records) != 3 {
		t.Errorf("demo domain = %+v (err %v), want verified with three DKIM records", d, err)
	}
	if st, err := identities.DomainStatus(ctx, devstack.DemoDomain); err != nil || !st.Verified {
		t.Errorf("demo domain identity = %+v (err %v), want verified", st, err)
	}
	prev := devstack.Env{"SESAME_WORKSPACE_ID": first.WorkspaceID, "SESAME_LIVE_KEY": first.LiveKey, "SESAME_TEST_KEY": first.TestKey}
	again, err := devstack.Seed(ctx, store, identities, prev)
	if err != nil {
		t.Fatal(err)
	}
	if again != first {
		t.Errorf("restart seeded %+v, want the same demo %+v", again, first)
	}
	all, err := store.Workspaces.ListWorkspaces(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 {
		t.Errorf("%d workspaces after a restart, want 1", len(all))
	}
	// A stale env file (emulators restarted, table empty) seeds anew.
	fresh, _ := dynamotest.NewStore(t)
	other, err := devstack.Seed(ctx, fresh, identities, prev)
	if err != nil {
		t.Fatal(err)
	}
	if other.WorkspaceID == first.WorkspaceID {
		t.Error("seed reused a workspace that does not exist in the table")
	}
	if _, ok := apikey.Parse(other.TestKey); !ok || !strings.HasPrefix(other.TestKey, "ps_test_") {
		t.Errorf("test key %q", other.TestKey)
	}
	path := t.TempDir() + "/dev.env"
	if err := (devstack.Env{"A": "1", "SESAME_LIVE_KEY": first.LiveKey}).Write(path); err != nil {
		t.Fatal(err)
	}
	read, err := devstack.ReadEnv(path)
	if err != nil {
		t.Fatal(err)
	}
	if read["SESAME_LIVE_KEY"] != first.LiveKey || read["A"] != "1" {
		t.Errorf("env round trip = %v", read)
	}
}
