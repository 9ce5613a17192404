package devstack_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/identity"
)

type domainList struct {
	Data []struct {
		ID         string            `json:"id"`
		Name       string            `json:"name"`
		Status     string            `json:"status"`
		Records    []json.RawMessage `json:"records"`
		CreatedAt  string            `json:"created_at"`
		VerifiedAt *string           `json:"verified_at"`
	} `json:"data"`
	HasMore    bool    `json:"has_more"`
	NextCursor *string `json:"next_cursor"`
}

func TestListDomains(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	ctx := t.Context()
	wsID, key := e.workspace(apikey.Live, apikey.DomainsRead)
	otherWS, otherKey := e.workspace(apikey.Live, apikey.DomainsRead)
	_, sendOnly := e.workspace(apikey.Live, apikey.EmailSend)
	for _, name := range []string{"a.test", "b.test", "c.test"} {
		if _, err := e.store.Domains.AddDomain(ctx, wsID, name, []identity.DNSRecord{{Type: "CNAME", Name: "x._domainkey." + name, Value: "x.dkim.amazonses.com"}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.store.Domains.SetDomainStatus(ctx, wsID, "b.test", identity.DomainVerified, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Domains.AddDomain(ctx, otherWS, "theirs.test", nil); err != nil {
		t.Fatal(err)
	}
	list := func(t *testing.T, key, query string) domainList {
		t.Helper()
		var b domainList
		e.get(bearer(key), "/api/v1/domains"+query).decode(t, http.StatusOK, &b)
		return b
	}

	all := list(t, key, "")
	var got []string
	for _, d := range all.Data {
		got = append(got, d.Name+":"+d.Status)
		if _, err := uuid.Parse(d.ID); err != nil || d.CreatedAt == "" || len(d.Records) != 1 {
			t.Errorf("domain %+v", d)
		}
		if (d.Status == "verified") != (d.VerifiedAt != nil) {
			t.Errorf("domain %s: status %s, verified_at %v", d.Name, d.Status, deref(d.VerifiedAt))
		}
	}
	if strings.Join(got, ",") != "c.test:pending,b.test:verified,a.test:pending" || all.HasMore || all.NextCursor != nil {
		t.Errorf("domains = %v has_more %v, want newest first, one page", got, all.HasMore)
	}

	var paged []string
	query := "?limit=1"
	for page := 0; ; page++ {
		b := list(t, key, query)
		if len(b.Data) != 1 {
			t.Fatalf("page %d has %d domains", page, len(b.Data))
		}
		paged = append(paged, b.Data[0].Name)
		if !b.HasMore {
			if b.NextCursor != nil {
				t.Error("last page has a next_cursor")
			}
			break
		}
		if b.NextCursor == nil || page > 3 {
			t.Fatalf("page %d: has_more without a cursor", page)
		}
		query = "?limit=1&cursor=" + *b.NextCursor
	}
	if strings.Join(paged, ",") != "c.test,b.test,a.test" {
		t.Errorf("paged = %v", paged)
	}

	if b := list(t, otherKey, ""); len(b.Data) != 1 || b.Data[0].Name != "theirs.test" {
		t.Errorf("other workspace sees %+v, want only its own domain", b.Data)
	}
	r := e.get(bearer(sendOnly), "/api/v1/domains")
	r.wantError(t, http.StatusForbidden, "insufficient_scope", "")
	if !strings.Contains(string(r.body), "domains:read") {
		t.Errorf("message should name domains:read: %s", r.body)
	}
	cursor := *list(t, key, "?limit=1").NextCursor
	e.get(bearer(otherKey), "/api/v1/domains?cursor="+cursor).wantError(t, http.StatusBadRequest, "invalid_field", "cursor")
	e.get(bearer(key), "/api/v1/domains?cursor=garbage").wantError(t, http.StatusBadRequest, "invalid_field", "cursor")
	e.bad().get(bearer(key), "/api/v1/domains?limit=0").wantError(t, http.StatusBadRequest, "invalid_field", "limit")
}
