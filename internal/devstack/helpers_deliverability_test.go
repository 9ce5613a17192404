package devstack_test

import (
	"net/http"
	"testing"

	"github.com/sesame-mail/sesame/internal/deliverability"
	"github.com/sesame-mail/sesame/internal/httpapi"
)

const checkPath = "/api/v1/deliverability/check"

// checkedHTML passes every rule: text enough for its image, links on the
// sender's domain, an unsubscribe link.
const checkedHTML = `<html><head><title>November</title></head><body>
<h1>What is new in November</h1>
<p>We shipped faster exports, a calendar view and a cleaner settings page. Each came from your feedback,
so thank you for writing to us. The details are on our blog, with screenshots and a short video.</p>
<p><a href="https://www.acme.example/blog/november">Read the November notes</a></p>
<p><a href="https://acme.example/unsubscribe?u=1">Unsubscribe</a></p>
</body></html>`

// checkBody is a request for checkedHTML, changed by edit.
func checkBody(edit func(map[string]any)) map[string]any {
	b := map[string]any{"subject": "What is new in November", "html": checkedHTML, "from": "News <news@mail.acme.example>", "bulk": true}
	if edit != nil {
		edit(b)
	}
	return b
}

// check posts body to the deliverability check and returns its report.
func (e *env) check(t *testing.T, key string, body any) deliverability.Report {
	t.Helper()
	var out httpapi.Data[deliverability.Report]
	e.post(key, checkPath, body).decode(t, http.StatusOK, &out)
	return out.Data
}

// findingIDs are the ids of r's findings, in order.
func findingIDs(r deliverability.Report) []deliverability.ID {
	var ids []deliverability.ID
	for _, c := range r.Checks {
		ids = append(ids, c.ID)
	}
	return ids
}
