package devstack_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// An address put on the list through the API is never sent to: not by
// /send, not by /send/batch, with a live or a test key, nor when an email
// held before it was listed is released. Removed, it is sent to again.
func TestSuppressedThroughTheAPIIsNeverSent(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	to := rcpt("listed")
	heldReq := msg("held", map[string]any{"to": to, "html": "<div><h2>A layout never seen</h2></div>"})
	held := e.post(s.key, "/api/v1/send", heldReq).sent(t, http.StatusAccepted)
	held.want(t, true, "held")

	e.suppress(t, s.key, map[string]any{"email": strings.ToUpper(to)}).entry(t, http.StatusCreated)

	for name, key := range map[string]string{"live key": s.key, "test key": s.testKey} {
		t.Run("send, "+name, func(t *testing.T) {
			b := e.postTo(t, e.url, key, "/api/v1/send", msg("x", map[string]any{"to": "Sue <" + to + ">"})).sent(t, http.StatusOK)
			b.want(t, false, "suppressed")
			e.wantEmail(t, key, b.ID, "suppressed", "")
		})
		t.Run("batch, "+name, func(t *testing.T) {
			r, err := e.do(e.url, key, http.MethodPost, "/api/v1/send/batch", map[string]any{"emails": []any{msg("b", map[string]any{"to": to}), msg("b", nil)}})
			if err != nil {
				t.Fatal(err)
			}
			items := r.batch(t, 2)
			if it := items[0]; it.Status != "suppressed" || it.Success == nil || *it.Success {
				t.Errorf("item to the listed address = %+v, want suppressed", it)
			}
			if it := items[1]; it.Status != "sent" {
				t.Errorf("item to another address = %+v, want sent", it)
			}
			e.wantEmail(t, key, items[0].ID, "suppressed", "")
		})
	}
	// The held email's template is cleared, but its recipient is listed now.
	clearTemplate(t, e, s.id, heldReq["html"].(string))
	e.reviewHeld(t, 1)
	e.wantEmail(t, s.key, held.ID, "suppressed", "")
	if got := e.ses.sendsTo(to); len(got) != 0 {
		t.Fatalf("the listed address reached SES %d times", len(got))
	}

	e.unsuppress(t, s.key, url.PathEscape(to)).entry(t, http.StatusOK)
	e.post(s.key, "/api/v1/send", msg("again", map[string]any{"to": to})).sent(t, http.StatusOK).want(t, true, "sent")
	if got := e.ses.sendsTo(to); len(got) != 1 {
		t.Errorf("%d SES sends after removal, want 1", len(got))
	}
}
