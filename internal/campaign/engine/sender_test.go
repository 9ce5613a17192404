package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/emulatortest/inbox"
	"github.com/sesame-mail/sesame/internal/queue/batch"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/unsubscribe"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// deliver hands every chunk of the campaign to the sender once, as the
// sends queue would, and returns the ids it asked to retry.
func deliver(t *testing.T, s *Sender, w *world) []string {
	t.Helper()
	var msgs []batch.Message
	for n := range w.c.Chunks {
		b, _ := json.Marshal(ChunkMessage{WorkspaceID: w.c.WorkspaceID, CampaignID: w.c.ID, Chunk: n})
		msgs = append(msgs, batch.Message{ID: fmt.Sprint(n), Body: string(b)})
	}
	return s.Handle(t.Context(), msgs)
}

// wantExactlyOnce checks every recipient got one SES send and has one
// email, and the campaign counted them all and is sent.
func wantExactlyOnce(t *testing.T, w *world) {
	t.Helper()
	sent := w.sentTo()
	for id, r := range w.contacts {
		if sent[r.Email] != 1 {
			t.Errorf("%s got %d sends, want 1", r.Email, sent[r.Email])
		}
		if _, ok := w.emails[campaign.EmailID(w.c.ID, id, *w.c.StartedAt)]; !ok {
			t.Errorf("%s has no email", r.Email)
		}
	}
	if len(w.emails) != len(w.contacts) {
		t.Errorf("%d emails, want %d", len(w.emails), len(w.contacts))
	}
	if w.c.SentCount != w.c.RecipientCount || w.c.Status != campaign.StatusSent {
		t.Errorf("campaign %s with %d sent of %d", w.c.Status, w.c.SentCount, w.c.RecipientCount)
	}
}

// Every recipient gets one campaign email with the footer and the
// one-click headers, of type campaign, and the campaign ends sent.
func TestSenderSendsEachRecipientOnce(t *testing.T) {
	w := newWorld(120, 50)
	s, _ := newSender(w, 1000)
	if retry := deliver(t, s, w); len(retry) != 0 {
		t.Fatalf("retry %v", retry)
	}
	wantExactlyOnce(t, w)
	for _, e := range w.emails {
		if e.Type != email.TypeCampaign || e.Status != email.StatusSent || e.Environment != apikey.Live {
			t.Fatalf("email %+v", e)
		}
	}
	raw := string(w.ses[0].Raw)
	for _, want := range []string{"List-Unsubscribe-Post: List-Unsubscribe=One-Click", "1 Main St, Springfield"} {
		if !strings.Contains(raw, want) {
			t.Errorf("message lacks %q", want)
		}
	}
	msg, err := mail.ReadMessage(strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	link := unsubscribeLink(t, s, w, w.ses[0].To)
	if got, want := msg.Header.Get("List-Unsubscribe"), "<"+link+">, <mailto:news@shop.example?subject=unsubscribe>"; got != want {
		t.Errorf("List-Unsubscribe = %q, want %q", got, want)
	}
	if w.ses[0].Tags["email_id"] == "" || w.ses[0].ConfigurationSet != "full" {
		t.Errorf("send input %+v", w.ses[0].Tags)
	}
}

// A sender that crashes midway (its commit never happens, its claims
// stay) and a redelivered chunk never send anyone twice, and the
// campaign still counts every recipient once.
func TestSenderCrashThenRedeliveryNeverSendsTwice(t *testing.T) {
	for name, crashAfter := range map[string]int{"first group": 0, "mid chunk": 2} {
		t.Run(name, func(t *testing.T) {
			w := newWorld(180, 180)
			s, _ := newSender(w, 1000)
			commits := 0
			w.commitFail = func() error {
				if commits == crashAfter {
					return errors.New("crash")
				}
				commits++
				return nil
			}
			if retry := deliver(t, s, w); len(retry) != 1 {
				t.Fatalf("retry %v, want the chunk", retry)
			}
			if len(w.ses) == 0 || len(w.ses) == 180 {
				t.Fatalf("%d sends before the crash", len(w.ses))
			}
			w.commitFail = nil
			deliver(t, s, w) // redelivered
			deliver(t, s, w) // and once more, for good measure
			wantExactlyOnce(t, w)
		})
	}
}

// SES throttling is retried: nothing is lost, nothing sent twice.
func TestSenderRetriesThrottling(t *testing.T) {
	w := newWorld(60, 60)
	s, _ := newSender(w, 1000)
	throttles := 0
	w.sesFail = func(n int, _ sending.SendInput) error {
		if throttles < 30 && n%3 == 0 {
			throttles++
			return throttled
		}
		return nil
	}
	deliver(t, s, w)
	deliver(t, s, w) // what exhausted its tries in the first delivery
	if throttles == 0 {
		t.Fatal("no throttling happened")
	}
	wantExactlyOnce(t, w)
}

// Unsubscribed, suppressed and deleted contacts are skipped and counted;
// a refusal by SES fails that email and counts it skipped.
func TestSenderSkipsAndCounts(t *testing.T) {
	w := newWorld(10, 10)
	ids := w.chunks[0]
	w.contacts[ids[1]] = campaign.Recipient{Email: "u@example.com", Subscribed: false}
	w.contacts[ids[2]] = campaign.Recipient{Email: "s@example.com", Subscribed: true, Suppressed: true}
	delete(w.contacts, ids[3])
	w.sesFail = func(_ int, in sending.SendInput) error {
		if in.To == "r4@example.com" {
			return rejected
		}
		return nil
	}
	s, _ := newSender(w, 1000)
	deliver(t, s, w)
	if w.c.SentCount != 6 || w.c.SkippedCount != 4 || w.c.Status != campaign.StatusSent {
		t.Fatalf("campaign %s sent %d skipped %d", w.c.Status, w.c.SentCount, w.c.SkippedCount)
	}
	if len(w.ses) != 6 {
		t.Errorf("%d SES sends, want 6", len(w.ses))
	}
	refused := w.emails[campaign.EmailID(w.c.ID, ids[4], *w.c.StartedAt)]
	if refused.Status != email.StatusFailed || !strings.Contains(refused.Error, "address rejected") {
		t.Errorf("refused email %+v", refused)
	}
}

// A campaign cancelled or paused before a chunk sends nothing; one
// cancelled between groups stops there.
func TestSenderStopsWhenNotSending(t *testing.T) {
	w := newWorld(100, 100)
	w.c.Status = campaign.StatusCancelled
	s, _ := newSender(w, 1000)
	deliver(t, s, w)
	if len(w.ses) != 0 {
		t.Fatalf("%d sent for a cancelled campaign", len(w.ses))
	}
	w.c.Status = campaign.StatusSending
	w.sesFail = func(n int, _ sending.SendInput) error {
		if n == groupSize-1 {
			w.c.Status = campaign.StatusCancelled // the owner cancels mid-send
		}
		return nil
	}
	deliver(t, s, w)
	if len(w.ses) != groupSize || w.c.SentCount != groupSize || w.c.Status != campaign.StatusCancelled {
		t.Fatalf("%d sent, %d counted, status %s", len(w.ses), w.c.SentCount, w.c.Status)
	}
}

// The breaker pauses a sending campaign with its reason; resume sends
// the rest once.
func TestSenderBreakerPauses(t *testing.T) {
	w := newWorld(100, 100)
	s, _ := newSender(w, 1000)
	s.Breaker = Thresholds{BounceRate: 0.04, ComplaintRate: 0.0008, MinSample: 40, Window: DefaultThresholds.Window}
	w.sesFail = func(n int, _ sending.SendInput) error {
		if n < 5 {
			w.tally.Bounced++ // the pipeline counts bounces of the first sends
		}
		return nil
	}
	deliver(t, s, w)
	if w.c.Status != campaign.StatusPaused || !strings.Contains(w.c.PauseReason, "bounce rate") {
		t.Fatalf("campaign %s (%q)", w.c.Status, w.c.PauseReason)
	}
	if len(w.ses) != groupSize {
		t.Fatalf("%d sent before the pause, want %d", len(w.ses), groupSize)
	}
	w.tally = campaign.Tally{}
	// Resume as the owner's approvals do: back to sending, then start.
	resumed, err := w.TransitionCampaign(t.Context(), wsID, w.c.ID, []campaign.Status{campaign.StatusPaused}, campaign.StatusSending, start, "")
	if err != nil {
		t.Fatal(err)
	}
	st := &Starter{Campaigns: w, Queue: w}
	if err := st.Start(t.Context(), resumed); err != nil {
		t.Fatal(err)
	}
	deliver(t, s, w)
	wantExactlyOnce(t, w)
}

// A monthly allowance reached mid-campaign pauses it.
func TestSenderAllowancePauses(t *testing.T) {
	w := newWorld(30, 30)
	s, _ := newSender(w, 1000)
	s.Workspaces = allowance{w, 20}
	w.usage = 12
	deliver(t, s, w)
	if w.c.Status != campaign.StatusPaused || !strings.Contains(w.c.PauseReason, "allowance") || len(w.ses) != 8 {
		t.Fatalf("campaign %s (%q), %d sent", w.c.Status, w.c.PauseReason, len(w.ses))
	}
}

// The allowance counts what this chunk already sent: the usage counter
// is advanced by the status pipeline, later, so over four groups with 60
// left only 60 go out before the pause.
func TestSenderAllowanceCountsItsOwnSends(t *testing.T) {
	w := newWorld(200, 200)
	s, _ := newSender(w, 1000)
	s.Workspaces = allowance{w, 100}
	w.usage = 40 // the pipeline's count, which this chunk's sends do not move
	deliver(t, s, w)
	if w.c.Status != campaign.StatusPaused || !strings.Contains(w.c.PauseReason, "allowance") || len(w.ses) != 60 || w.c.SentCount != 60 {
		t.Fatalf("campaign %s (%q), %d sent, %d counted; want paused after 60", w.c.Status, w.c.PauseReason, len(w.ses), w.c.SentCount)
	}
}

type allowance struct {
	*world
	limit int
}

func (a allowance) GetWorkspace(ctx context.Context, id string) (ws workspace.Workspace, err error) {
	ws, err = a.world.GetWorkspace(ctx, id)
	ws.MonthlyAllowance = a.limit
	return ws, err
}

// unsubscribeLink is the unsubscribe link s gives the recipient at to.
func unsubscribeLink(t *testing.T, s *Sender, w *world, to string) string {
	t.Helper()
	for id, r := range w.contacts {
		if r.Email == to {
			link, err := s.Links.URL(unsubscribe.Token{WorkspaceID: w.c.WorkspaceID, ContactID: id,
				Source: unsubscribe.Source{Kind: unsubscribe.SourceCampaign, ID: w.c.ID}})
			if err != nil {
				t.Fatal(err)
			}
			return link
		}
	}
	t.Fatalf("no contact at %s", to)
	return ""
}

// The mailto of List-Unsubscribe is the sender's first reply-to, else
// the sender; a reply-to a mailto cannot carry plainly leaves the link
// alone, and the email still goes.
func TestSenderUnsubscribeMailto(t *testing.T) {
	for name, tc := range map[string]struct {
		replyTo []string
		want    string
	}{
		"sender":             {nil, ", <mailto:news@shop.example?subject=unsubscribe>"},
		"reply-to":           {[]string{"help@shop.example", "b@shop.example"}, ", <mailto:help@shop.example?subject=unsubscribe>"},
		"reply-to not plain": {[]string{"h%elp@shop.example"}, ""},
	} {
		t.Run(name, func(t *testing.T) {
			w := newWorld(1, 1)
			w.c.Sender.ReplyTo = tc.replyTo
			s, _ := newSender(w, 1000)
			deliver(t, s, w)
			if len(w.ses) != 1 {
				t.Fatalf("%d sends, want 1", len(w.ses))
			}
			msg, err := mail.ReadMessage(strings.NewReader(string(w.ses[0].Raw)))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := msg.Header.Get("List-Unsubscribe"), "<"+unsubscribeLink(t, s, w, w.ses[0].To)+">"+tc.want; got != want {
				t.Errorf("List-Unsubscribe = %q, want %q", got, want)
			}
		})
	}
}

// An invocation with less than chunkBudget left hands the chunk over: the
// same message goes back on the queue for a fresh invocation, nothing is
// sent, and the delivery is not retried.
func TestSenderHandsOverNearTheDeadline(t *testing.T) {
	w := newWorld(10, 10)
	s, _ := newSender(w, 1000)
	ctx, cancel := context.WithTimeout(t.Context(), chunkBudget/2)
	defer cancel()
	b, _ := json.Marshal(ChunkMessage{WorkspaceID: w.c.WorkspaceID, CampaignID: w.c.ID, Chunk: 0})
	if retry := s.Handle(ctx, []batch.Message{{ID: "m", Body: string(b)}}); len(retry) != 0 {
		t.Errorf("retry %v, want none", retry)
	}
	if len(w.ses) != 0 || w.c.SentCount != 0 {
		t.Errorf("%d sent, %d counted near the deadline, want none", len(w.ses), w.c.SentCount)
	}
	if len(w.enqueued) != 1 || string(w.enqueued[0]) != string(b) {
		t.Errorf("enqueued %q, want the chunk's message %s", w.enqueued, b)
	}
}

// Every recipient of a campaign larger than one group reads the
// campaign's content, not only its footer: the html of later groups once
// went out empty while the campaign reported sent.
func TestSenderEveryGroupCarriesTheContent(t *testing.T) {
	for _, n := range []int{1, 50, 51, 149} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			w := newWorld(n, 500)
			s, _ := newSender(w, 1000)
			if retry := deliver(t, s, w); len(retry) != 0 {
				t.Fatalf("retry %v", retry)
			}
			wantExactlyOnce(t, w)
			for _, in := range w.ses {
				m := inbox.Parse(in.Raw)
				if len(m.Defects) > 0 || !strings.Contains(m.HTML, "<p>Hello</p>") || !strings.Contains(m.Text, "Hello") {
					t.Fatalf("%s got a message without the campaign's content (defects %v): html %q, text %q", in.To, m.Defects, m.HTML, m.Text)
				}
			}
		})
	}
}

// Once a cancel or a pause is answered, no SES call starts for the
// campaign: only the sends already under way finish (at most one per
// worker), they are counted exactly, and the chunk is not retried. A
// paused campaign resumed sends the rest, each recipient once.
func TestSenderStopsMidGroup(t *testing.T) {
	for _, stopped := range []campaign.Status{campaign.StatusCancelled, campaign.StatusPaused} {
		t.Run(string(stopped), func(t *testing.T) {
			w := newWorld(149, 149)
			s, _ := newSender(w, 1000)
			const stopAt = 10
			w.sesFail = func(n int, _ sending.SendInput) error {
				if n == stopAt-1 {
					w.c.Status = stopped // answered while this send is under way
				}
				return nil
			}
			if retry := deliver(t, s, w); len(retry) != 0 {
				t.Fatalf("retry %v after the campaign stopped", retry)
			}
			if len(w.ses) < stopAt || len(w.ses) > stopAt+Workers-1 {
				t.Fatalf("%d sent; once stopped at the %dth only the %d sends under way may finish", len(w.ses), stopAt, Workers-1)
			}
			if w.c.SentCount != len(w.ses) || len(w.emails) != len(w.ses) {
				t.Fatalf("%d sent, %d counted, %d emails", len(w.ses), w.c.SentCount, len(w.emails))
			}
			w.sesFail = nil
			deliver(t, s, w) // redelivered: still stopped
			if w.c.SentCount != len(w.ses) {
				t.Fatalf("%d sent after a redelivery of a stopped campaign, %d counted", len(w.ses), w.c.SentCount)
			}
			if stopped == campaign.StatusPaused {
				resumed, err := w.TransitionCampaign(t.Context(), wsID, w.c.ID, []campaign.Status{campaign.StatusPaused}, campaign.StatusSending, start, "")
				if err != nil {
					t.Fatal(err)
				}
				if err := (&Starter{Campaigns: w, Queue: w}).Start(t.Context(), resumed); err != nil {
					t.Fatal(err)
				}
				deliver(t, s, w)
				wantExactlyOnce(t, w)
			}
		})
	}
}
