package status_test

// The first tracked click of an email rides on the email's own update
// (no click record for it) when the item stays one write unit; these
// tests read what the click list then answers, over DynamoDB Local.

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"

	"github.com/sesame-mail/sesame/internal/cost"
	"github.com/sesame-mail/sesame/internal/dynamo/emaildb"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/status"
)

// clickBody is the click fixture about e, on link at minute min of 10:00
// with user agent ua ("" keeps the fixture's).
func clickBody(t *testing.T, e email.Email, link string, min int, ua string) []byte {
	t.Helper()
	return edited(t, "click", func(m map[string]any) {
		mail := obj(t, m, "mail")
		tags := obj(t, mail, "tags")
		tags["email_id"], tags["workspace_id"] = []string{e.ID}, []string{e.WorkspaceID}
		c := obj(t, m, "click")
		c["link"], c["timestamp"] = link, at(10, min, 0, 0).Format("2006-01-02T15:04:05.000Z")
		if ua != "" {
			c["userAgent"] = ua
		}
	})
}

// clickRecords is the click records stored for e, apart from the email.
func (w *world) clickRecords(t *testing.T, e email.Email) []email.Click {
	t.Helper()
	records, _, err := w.store.Clicks.ListClicks(t.Context(), e.WorkspaceID, e.ID, 100)
	if err != nil {
		t.Fatal(err)
	}
	return records
}

// handleCounting handles bodies and returns the items written.
func (w *world) handleCounting(t *testing.T, bodies ...[]byte) int {
	t.Helper()
	w.rec.Reset()
	if failed := handle(t, w.p, bodies...); len(failed) != 0 {
		t.Fatalf("batch item failures %v", failed)
	}
	return w.rec.Writes()
}

const browserAgent = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/537.36"

func TestFirstClickIsKeptOnTheEmail(t *testing.T) {
	w := newWorld(t)
	e := w.newEmail(t)
	twin := w.newEmail(t) // its first click spills: a URL too long to keep on the email
	long := "https://demo.sesame.test/orders/1?ref=" + strings.Repeat("x", 700)
	if failed := handle(t, w.p, body(t, "delivery", e), body(t, "delivery", twin)); len(failed) != 0 {
		t.Fatal(failed)
	}

	kept := w.handleCounting(t, clickBody(t, e, "https://demo.sesame.test/orders/1", 12, ""))
	spilled := w.handleCounting(t, clickBody(t, twin, long, 12, ""))
	if kept != spilled-1 {
		t.Errorf("a first click kept on the email wrote %d items, one spilled to a click record %d: want one fewer", kept, spilled)
	}
	if r := w.clickRecords(t, e); len(r) != 0 {
		t.Errorf("click records %+v, want none: the first click is on the email", r)
	}
	first := email.Click{URL: "https://demo.sesame.test/orders/1", UserAgent: browserAgent, ClickedAt: at(10, 12, 0, 0)}
	if s := w.snapshot(t, e); !reflect.DeepEqual(s.Clicks, []email.Click{first}) || s.Email.Status != email.StatusClicked ||
		s.Metrics["2026-11-22"]["transactional_live_clicked"] != 1 || len(s.Feed) != 2 {
		t.Errorf("after the first click: clicks %+v, status %s, metrics %v, %d feed items", s.Clicks, s.Email.Status, s.Metrics, len(s.Feed))
	}
	if s := w.snapshot(t, twin); len(s.Clicks) != 1 || s.Clicks[0].URL != long || s.Email.FirstClick != nil {
		t.Errorf("spilled click: %+v, email keeps %+v; want the long URL in a click record", s.Clicks, s.Email.FirstClick)
	}

	// The second click is a record of its own; the list merges both.
	second := email.Click{URL: "https://demo.sesame.test/help", UserAgent: browserAgent, ClickedAt: at(10, 15, 0, 0)}
	handle(t, w.p, clickBody(t, e, second.URL, 15, ""))
	if r := w.clickRecords(t, e); !reflect.DeepEqual(r, []email.Click{second}) {
		t.Errorf("click records %+v, want the second click alone", r)
	}
	after := w.snapshot(t, e)
	if !reflect.DeepEqual(after.Clicks, []email.Click{second, first}) {
		t.Errorf("clicks %+v, want both, newest first", after.Clicks)
	}

	// A redelivered first click finds itself on the email: no record, no
	// count, the same feed.
	handle(t, w.p, clickBody(t, e, first.URL, 12, ""))
	if again := w.snapshot(t, e); !reflect.DeepEqual(again, after) {
		t.Errorf("the redelivered first click changed what was written:\nbefore %+v\nafter  %+v", after, again)
	}
	if r := w.clickRecords(t, e); len(r) != 1 {
		t.Errorf("click records %+v after the redelivery, want the second click alone", r)
	}

	// A delivered, opened and clicked email stays one write unit.
	handle(t, w.p, body(t, "open", e))
	it, _, err := w.store.Emails.EmailItem(t.Context(), e.WorkspaceID, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	av, err := attributevalue.MarshalMap(it)
	if err != nil {
		t.Fatal(err)
	}
	size := cost.ItemSize(av)
	t.Logf("a delivered, opened and clicked email's item with its first click: %d bytes", size)
	if size > 1024 {
		t.Errorf("the email's item is %d bytes: every later update costs two write units", size)
	}
}

// Whichever write of a first click fails, its redelivery completes it:
// the click listed once, counted once.
func TestFirstClickFaultIsRetriedThenListedOnce(t *testing.T) {
	w := newWorld(t)
	link := "https://demo.sesame.test/orders/1"
	probe := w.newEmail(t)
	calls := w.handleCounting(t, clickBody(t, probe, link, 12, ""))
	for k := 1; k <= calls; k++ {
		t.Run(fmt.Sprintf("write %d fails", k), func(t *testing.T) {
			e := w.newEmail(t)
			n := 0
			failing(w.rec, func(op string) bool {
				if writeOps[op] {
					n++
					return n == k
				}
				return false
			})
			failed := handle(t, w.p, clickBody(t, e, link, 12, ""))
			w.rec.Fail = nil
			if len(failed) > 0 {
				if failed := handle(t, w.p, clickBody(t, e, link, 12, "")); len(failed) != 0 {
					t.Fatalf("retry failed: %v", failed)
				}
			}
			s := w.snapshot(t, e)
			want := []email.Click{{URL: link, UserAgent: browserAgent, ClickedAt: at(10, 12, 0, 0)}}
			if !reflect.DeepEqual(s.Clicks, want) || s.Metrics["2026-11-22"]["transactional_live_clicked"] != 1 || len(s.Feed) != 1 {
				t.Errorf("write %d of %d failed: clicks %+v, metrics %v, feed %d items; want the click once", k, calls, s.Clicks, s.Metrics, len(s.Feed))
			}
			if r := w.clickRecords(t, e); len(r) != 0 {
				t.Errorf("click records %+v, want none", r)
			}
		})
	}
}

// Two first clicks planned from the same read: one rides on the email,
// the other finds the email changed (nothing written) and, read again,
// becomes a record of its own.
func TestConcurrentFirstClicksAreBothListed(t *testing.T) {
	w := newWorld(t)
	e := w.newEmail(t)
	read, err := w.store.Emails.GetEmail(t.Context(), e.WorkspaceID, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	b1, b2 := clickBody(t, e, "https://demo.sesame.test/a", 12, ""), clickBody(t, e, "https://demo.sesame.test/b", 13, "")
	if err := w.applyAndCount(t, *status.Plan(read, parsed(t, b1))); err != nil {
		t.Fatal(err)
	}
	if err := w.store.Statuses.Apply(t.Context(), *status.Plan(read, parsed(t, b2))); err != status.ErrStale {
		t.Fatalf("the second first click: %v, want ErrStale", err)
	}
	if r := w.clickRecords(t, e); len(r) != 0 {
		t.Fatalf("a stale first click wrote a record: %+v", r)
	}
	handle(t, w.p, b2)
	s := w.snapshot(t, e)
	var urls []string
	for _, c := range s.Clicks {
		urls = append(urls, c.URL)
	}
	if !slices.Equal(urls, []string{"https://demo.sesame.test/b", "https://demo.sesame.test/a"}) || s.Metrics["2026-11-22"]["transactional_live_clicked"] != 1 {
		t.Errorf("clicks %v, metrics %v; want both, newest first, clicked counted once", urls, s.Metrics)
	}
}

// A long user agent is cut to its bound on the email; a long subject
// leaves no room, and the first click is a record, whole.
func TestFirstClickBounds(t *testing.T) {
	w := newWorld(t)
	ua := strings.Repeat("a", emaildb.FirstClickAgentBytes-1) + strings.Repeat("é", 100) // the bound falls inside an é
	cut := w.newEmail(t)
	handle(t, w.p, clickBody(t, cut, "https://demo.sesame.test/a", 12, ua))
	s := w.snapshot(t, cut)
	if len(s.Clicks) != 1 || s.Email.FirstClick == nil || s.Clicks[0].UserAgent != ua[:emaildb.FirstClickAgentBytes-1] {
		t.Errorf("clicks %+v: want the first click on the email, its user agent cut to %d bytes on a character boundary", s.Clicks, emaildb.FirstClickAgentBytes)
	}
	subject := strings.Repeat("Your order has shipped ", 30) // 690 bytes
	wordy := w.newEmail(t, func(e *email.Email) { e.Subject = subject })
	handle(t, w.p, clickBody(t, wordy, "https://demo.sesame.test/a", 12, ua))
	s = w.snapshot(t, wordy)
	if r := w.clickRecords(t, wordy); len(r) != 1 || r[0].UserAgent != ua || s.Email.FirstClick != nil {
		t.Errorf("records %+v, email keeps %+v: want the click in a record, user agent whole", r, s.Email.FirstClick)
	}
}
