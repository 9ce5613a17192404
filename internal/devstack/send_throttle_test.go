package devstack_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/ses"
)

// A brief SES throttle (two refusals for rate) is invisible to the
// caller: /send tries again within the request and answers 200 sent, the
// recipient gets the message once, and the email is listed once.
func TestSendBriefSESThrottleIsInvisible(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	var mu sync.Mutex
	refused := 0
	e.ses.setFail(func(sending.SendInput) error {
		mu.Lock()
		defer mu.Unlock()
		if refused < 2 {
			refused++
			return fmt.Errorf("%w: maximum sending rate exceeded", ses.ErrThrottled)
		}
		return nil
	})
	req := msg("brief-throttle", nil)
	b := e.post(s.key, "/api/v1/send", req).sent(t, http.StatusOK)
	b.want(t, true, "sent")
	if got := len(e.ses.sendsTo(req["to"].(string))); got != 3 {
		t.Errorf("%d SES tries, want 3 (two throttled, one taken)", got)
	}
	if got := emulated(t, req["subject"].(string)); len(got) != 1 {
		t.Errorf("the recipient got %d messages, want 1", len(got))
	}
	e.wantEmail(t, s.key, b.ID, "sent", "")
	if ids := e.emailIDs(t, s.key); len(ids) != 1 || ids[0] != b.ID {
		t.Errorf("emails = %v, want only %s", ids, b.ID)
	}
}
