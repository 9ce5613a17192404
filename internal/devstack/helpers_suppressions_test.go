package devstack_test

import (
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/sesame-mail/sesame/internal/apikey"
)

// suppressionEntry is the Suppression object of the API.
type suppressionEntry struct {
	Email     string  `json:"email"`
	Reason    string  `json:"reason"`
	EmailID   *string `json:"email_id"`
	CreatedAt string  `json:"created_at"`
}

// suppressionPage is one page of GET /api/v1/suppressions.
type suppressionPage struct {
	Data       []suppressionEntry `json:"data"`
	HasMore    bool               `json:"has_more"`
	NextCursor *string            `json:"next_cursor"`
}

// suppressionItem is one result of POST /api/v1/suppressions with emails.
type suppressionItem struct {
	Index int `json:"index"`
	suppressionEntry
	Created *bool `json:"created"`
	Error   *struct {
		Code  string  `json:"code"`
		Param *string `json:"param"`
	} `json:"error"`
}

// suppressions reads one page of the list (query starts with "?" or is "").
func (e *env) suppressions(t *testing.T, key, query string) suppressionPage {
	t.Helper()
	var p suppressionPage
	e.get(bearer(key), "/api/v1/suppressions"+query).decode(t, http.StatusOK, &p)
	return p
}

// suppressedAddresses lists every address of the key's workspace, newest
// first, page by page.
func (e *env) suppressedAddresses(t *testing.T, key string, limit int) []string {
	t.Helper()
	var out []string
	query := "?limit=" + strconv.Itoa(limit)
	for range 100 {
		p := e.suppressions(t, key, query)
		for _, s := range p.Data {
			out = append(out, s.Email)
		}
		if !p.HasMore {
			return out
		}
		query = "?limit=" + strconv.Itoa(limit) + "&cursor=" + url.QueryEscape(*p.NextCursor)
	}
	t.Fatal("more than 100 pages")
	return nil
}

// suppress adds one address through the API and returns the answer.
func (e *env) suppress(t *testing.T, key string, body map[string]any) response {
	t.Helper()
	return e.post(key, "/api/v1/suppressions", body)
}

// entry decodes a {data: Suppression} answer of status.
func (r response) entry(t *testing.T, status int) suppressionEntry {
	t.Helper()
	var b struct {
		Data suppressionEntry `json:"data"`
	}
	r.decode(t, status, &b)
	return b.Data
}

// suppressionItems decodes the answer to a list of addresses.
func (r response) suppressionItems(t *testing.T, n int) []suppressionItem {
	return indexedItems[suppressionItem](t, r, n)
}

func (s suppressionItem) itemIndex() int { return s.Index }

// unsuppress sends DELETE /api/v1/suppressions/{segment}; segment is the
// address as it goes in the path, URL-encoded by the caller.
func (e *env) unsuppress(t *testing.T, key, segment string) response {
	t.Helper()
	r, err := e.do(e.url, key, http.MethodDelete, "/api/v1/suppressions/"+segment, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// presetKey is a live key of the workspace with a preset's scopes.
func presetKey(t *testing.T, e *env, workspaceID string, p apikey.Preset) string {
	t.Helper()
	scopes, err := apikey.Resolve(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	k, _, err := e.store.Keys.CreateKey(t.Context(), workspaceID, apikey.Live, "", scopes)
	if err != nil {
		t.Fatal(err)
	}
	return k
}
