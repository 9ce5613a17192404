package status_test

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/status"
	"github.com/sesame-mail/sesame/internal/suppression"
)

// timeField reads one of the email's first-event times by its API name.
func timeField(e email.Email, name string) *time.Time {
	switch name {
	case "delivered_at":
		return e.DeliveredAt
	case "opened_at":
		return e.OpenedAt
	case "clicked_at":
		return e.ClickedAt
	case "bounced_at":
		return e.BouncedAt
	case "complained_at":
		return e.ComplainedAt
	}
	panic("no time field " + name)
}

var timeFields = []string{"delivered_at", "opened_at", "clicked_at", "bounced_at", "complained_at"}

func TestPlanTransitions(t *testing.T) {
	type want struct {
		status   email.Status
		field    string    // the *_at the event sets; "" for none
		when     time.Time // its value (and the feed item's time)
		feed     event.Type
		metric   string
		suppress bool   // the recipient goes on the do-not-send list
		errText  string // part of the failed email's error
	}
	cases := map[string]want{
		"delivery":               {email.StatusDelivered, "delivered_at", at(10, 0, 1, 250), event.Delivered, "delivered", false, ""},
		"bounce-permanent":       {email.StatusBounced, "bounced_at", at(10, 0, 2, 669), event.Bounced, "bounced", true, ""},
		"bounce-suppressionlist": {email.StatusBounced, "bounced_at", at(10, 0, 0, 500), event.Bounced, "bounced", true, ""},
		"bounce-transient":       {email.StatusBounced, "bounced_at", at(22, 0, 2, 0), event.Bounced, "bounced", false, ""},
		"complaint":              {email.StatusComplained, "complained_at", at(10, 5, 0, 0), event.Complained, "complained", true, ""},
		"reject":                 {email.StatusFailed, "", at(10, 0, 0, 0), event.Failed, "failed", false, "rejected by SES: Bad content"},
		"rendering-failure":      {email.StatusFailed, "", at(10, 0, 0, 0), event.Failed, "failed", false, "rendering failed: Attribute 'attributeName' is not present"},
		"open":                   {email.StatusOpened, "opened_at", at(10, 10, 0, 0), event.Opened, "opened", false, ""},
		"click":                  {email.StatusClicked, "clicked_at", at(10, 12, 0, 0), event.Clicked, "clicked", false, ""},
	}
	for name, w := range cases {
		t.Run(name, func(t *testing.T) {
			e := sentEmail()
			c := status.Plan(e, sesEvent(t, name))
			if c == nil {
				t.Fatal("Plan = nil, want a change")
			}
			if c.WorkspaceID != wsID || c.EmailID != emailID || c.ExpectStatus != email.StatusSent {
				t.Errorf("change is for %s/%s expecting %q", c.WorkspaceID, c.EmailID, c.ExpectStatus)
			}
			if !c.OccurredAt.Equal(w.when) {
				t.Errorf("OccurredAt = %v, want %v", c.OccurredAt, w.when)
			}
			if c.Email == nil {
				t.Fatal("the email does not change")
			}
			if c.Email.Status != w.status {
				t.Errorf("status = %s, want %s", c.Email.Status, w.status)
			}
			for _, f := range timeFields {
				got := timeField(*c.Email, f)
				switch {
				case f == w.field && (got == nil || !got.Equal(w.when)):
					t.Errorf("%s = %s, want %v", f, timeOf(got), w.when)
				case f != w.field && got != nil:
					t.Errorf("%s = %s, want it unset", f, timeOf(got))
				}
			}
			if w.errText == "" && c.Email.Error != "" {
				t.Errorf("error = %q, want none", c.Email.Error)
			}
			if !strings.Contains(c.Email.Error, w.errText) {
				t.Errorf("error = %q, want it to contain %q", c.Email.Error, w.errText)
			}
			want := []string{"transactional_live_" + w.metric}
			if w.metric == "delivered" || w.metric == "bounced" {
				// "sent" is counted when SES finishes with the email.
				want = append(want, "transactional_live_sent")
			}
			if !slices.Equal(c.Metrics, want) {
				t.Errorf("metrics = %v, want %v", c.Metrics, want)
			}
			// The allowance counts the email when SES finishes with it, in
			// the month SES took it (the fixtures' mail timestamp).
			wantUsage := map[string]string{"delivered": "2026-11", "bounced": "2026-11", "failed": "2026-11"}[w.metric]
			if c.UsageMonth != wantUsage || c.OptOutClick {
				t.Errorf("usage month %q, opt-out %v; want %q and none", c.UsageMonth, c.OptOutClick, wantUsage)
			}
			switch {
			case w.suppress && (c.Suppress != recipient || c.Reason == ""):
				t.Errorf("suppress %q (reason %q), want %s with a reason", c.Suppress, c.Reason, recipient)
			case !w.suppress && c.Suppress != "":
				t.Errorf("suppress %q, want no suppression", c.Suppress)
			}
			ev := c.Event
			if ev == nil {
				t.Fatal("no feed event")
			}
			if ev.Type != w.feed || ev.ID != c.DedupeID || !strings.HasPrefix(ev.ID, "evt_") || ev.WorkspaceID != wsID || !ev.CreatedAt.Equal(w.when) {
				t.Errorf("event = %+v (dedupe id %s)", ev, c.DedupeID)
			}
			if ev.Data == nil || ev.Data.ID != emailID || ev.Data.Status != w.status {
				t.Fatalf("event data = %+v, want the email after the event", ev.Data)
			}
			if want := c.Email.View(); !reflect.DeepEqual(*ev.Data, want) {
				t.Errorf("event data = %+v, want %+v", *ev.Data, want)
			}
			if name == "click" {
				want := status.ClickRecord{ID: c.DedupeID, EmailID: emailID, URL: "https://demo.sesame.test/orders/123",
					UserAgent: "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/537.36", ClickedAt: w.when}
				if c.Click == nil || *c.Click != want {
					t.Errorf("click record = %+v, want %+v", c.Click, want)
				}
			} else if c.Click != nil {
				t.Errorf("click record %+v for a %s event", c.Click, name)
			}
		})
	}
}

func TestPlanBounceReasons(t *testing.T) {
	cases := map[string]suppression.Reason{
		"bounce-permanent":       suppression.Bounced,
		"bounce-suppressionlist": suppression.Bounced,
		"complaint":              suppression.Complained,
	}
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			c := status.Plan(sentEmail(), sesEvent(t, name))
			if c == nil || c.Reason != want {
				t.Errorf("reason = %+v, want %q", c, want)
			}
		})
	}
}

// The monthly allowance counts a live email once, when SES finishes with
// it: its first Delivery, Bounce, Reject or Rendering Failure; never a
// Send (SES no longer publishes it), a DeliveryDelay or a later event.
func TestPlanUsage(t *testing.T) {
	set := at(10, 0, 1, 0)
	delivered := func(e *email.Email) { e.Status, e.DeliveredAt = email.StatusDelivered, &set }
	bounced := func(e *email.Email) { e.Status, e.BouncedAt = email.StatusBounced, &set }
	cases := map[string]struct {
		fixture string
		email   func(*email.Email)
		usage   string // "" for none
	}{
		"first delivery":           {"delivery", nil, "2026-11"},
		"first bounce":             {"bounce-transient", nil, "2026-11"},
		"reject":                   {"reject", nil, "2026-11"},
		"rendering failure":        {"rendering-failure", nil, "2026-11"},
		"live campaign":            {"delivery", func(e *email.Email) { e.Type = email.TypeCampaign }, "2026-11"},
		"test automation":          {"delivery", func(e *email.Email) { e.Environment, e.Type = apikey.Test, email.TypeAutomation }, ""},
		"delivery after a bounce":  {"delivery", bounced, ""},
		"bounce after a delivery":  {"bounce-permanent", delivered, ""},
		"complaint":                {"complaint", delivered, ""},
		"open":                     {"open", delivered, ""},
		"reject of a failed email": {"reject", func(e *email.Email) { e.Status = email.StatusFailed }, ""},
		"delivery delay":           {"delivery-delay", nil, ""},
		"send":                     {"send", nil, ""},
		"send of a campaign email": {"send", func(e *email.Email) { e.Type = email.TypeCampaign }, ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := sentEmail()
			if tc.email != nil {
				tc.email(&e)
			}
			c := status.Plan(e, sesEvent(t, tc.fixture))
			got := ""
			if c != nil {
				got = c.UsageMonth
			}
			if got != tc.usage {
				t.Errorf("usage month %q, want %q", got, tc.usage)
			}
		})
	}
	// A retry after a fault between the email's update and the dedupe
	// record finds the email changed by this very event: the usage is
	// still owed, with the metrics.
	first := status.Plan(sentEmail(), sesEvent(t, "delivery"))
	e := sentEmail(func(e *email.Email) {
		*e = *first.Email
		e.LastEventID, e.LastEventMetrics = first.DedupeID, first.Metrics
	})
	if again := status.Plan(e, sesEvent(t, "delivery")); again == nil || again.UsageMonth != "2026-11" {
		t.Errorf("retried delivery: %+v, want the usage still owed", again)
	}
}

// The reputation breaker counts the first bounce and the complaint of a
// campaign or automation email, in the hour it was sent; transactional
// email never pauses a campaign.
func TestPlanReputation(t *testing.T) {
	sent := at(9, 30, 0, 0)
	campaign := func(e *email.Email) { e.Type, e.SentAt = email.TypeCampaign, sent }
	cases := map[string]struct {
		fixture string
		email   []func(*email.Email)
		want    []string // nil: nothing for the breaker
	}{
		"campaign bounce":      {"bounce-permanent", []func(*email.Email){campaign}, []string{"bounced"}},
		"automation bounce":    {"bounce-transient", []func(*email.Email){func(e *email.Email) { e.Type, e.SentAt = email.TypeAutomation, sent }}, []string{"bounced"}},
		"campaign complaint":   {"complaint", []func(*email.Email){campaign}, []string{"complained"}},
		"transactional bounce": {"bounce-permanent", nil, nil},
		"second bounce": {"bounce-permanent", []func(*email.Email){campaign, func(e *email.Email) {
			e.Status, e.BouncedAt = email.StatusBounced, ptr(at(9, 31, 0, 0))
		}}, nil},
		"second complaint": {"complaint", []func(*email.Email){campaign, func(e *email.Email) {
			e.Status, e.ComplainedAt = email.StatusComplained, ptr(at(9, 31, 0, 0))
		}}, nil},
		"campaign delivery": {"delivery", []func(*email.Email){campaign}, nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := status.Plan(sentEmail(tc.email...), sesEvent(t, tc.fixture))
			if c == nil {
				t.Fatal("Plan = nil")
			}
			if !slices.Equal(c.Reputation, tc.want) {
				t.Errorf("reputation = %v, want %v", c.Reputation, tc.want)
			}
			wantSent := time.Time{}
			if tc.want != nil {
				wantSent = sent
			}
			if !c.SentAt.Equal(wantSent) {
				t.Errorf("sent at = %v, want %v", c.SentAt, wantSent)
			}
		})
	}
}

func TestPlanMetricNames(t *testing.T) {
	cases := map[string]struct {
		typ  email.Type
		env  apikey.Environment
		want string
	}{
		"campaign live":      {email.TypeCampaign, apikey.Live, "campaign_live_delivered"},
		"automation test":    {email.TypeAutomation, apikey.Test, "automation_test_delivered"},
		"transactional test": {email.TypeTransactional, apikey.Test, "transactional_test_delivered"},
		"transactional live": {email.TypeTransactional, apikey.Live, "transactional_live_delivered"},
		"campaign test":      {email.TypeCampaign, apikey.Test, "campaign_test_delivered"},
		"automation live":    {email.TypeAutomation, apikey.Live, "automation_live_delivered"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := status.Plan(sentEmail(func(e *email.Email) { e.Type, e.Environment = tc.typ, tc.env }), sesEvent(t, "delivery"))
			sent := strings.TrimSuffix(tc.want, "delivered") + "sent"
			if c == nil || !slices.Equal(c.Metrics, []string{tc.want, sent}) {
				t.Errorf("metrics = %+v, want [%s %s]", c, tc.want, sent)
			}
		})
	}
}

func TestPlanNothing(t *testing.T) {
	off := func(e *email.Email) { e.TrackingMode = email.TrackingOff }
	cases := map[string]struct {
		fixture string
		email   func(*email.Email)
	}{
		// SES keeps trying after a delay; the final outcome comes later.
		"delivery delay on a sent email":      {"delivery-delay", nil},
		"delivery delay on a delivered email": {"delivery-delay", func(e *email.Email) { e.Status, e.DeliveredAt = email.StatusDelivered, ptr(at(10, 0, 1, 0)) }},
		"open, tracking off":                  {"open", off},
		"click, tracking off":                 {"click", off},
		"unsubscribe click, tracking off":     {"click-unsubscribe", off},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := sentEmail()
			if tc.email != nil {
				tc.email(&e)
			}
			if c := status.Plan(e, sesEvent(t, tc.fixture)); c != nil {
				t.Errorf("Plan = %+v, want nil", c)
			}
		})
	}
}

// Delivery, bounce, complaint and failure fire in every tracking mode.
func TestPlanTrackingModes(t *testing.T) {
	modes := map[string]email.TrackingMode{"legacy row": "", "full": email.TrackingFull, "essential": email.TrackingEssential, "off": email.TrackingOff}
	always := []string{"delivery", "bounce-permanent", "bounce-transient", "complaint", "reject", "rendering-failure"}
	tracked := []string{"open", "click", "click-unsubscribe"}
	for name, mode := range modes {
		t.Run(name, func(t *testing.T) {
			e := sentEmail(func(e *email.Email) { e.TrackingMode = mode })
			for _, f := range always {
				if status.Plan(e, sesEvent(t, f)) == nil {
					t.Errorf("%s: Plan = nil, want a change in every mode", f)
				}
			}
			for _, f := range tracked {
				if got := status.Plan(e, sesEvent(t, f)) != nil; got != (mode != email.TrackingOff) {
					t.Errorf("%s: planned = %v, want %v", f, got, mode != email.TrackingOff)
				}
			}
		})
	}
}

// Every event on every status: the status never moves backwards, a time
// already set is never changed, and the change is conditioned on the
// status it was planned from.
func TestPlanNeverMovesBackwards(t *testing.T) {
	set := at(9, 0, 0, 0) // earlier than every fixture
	for _, st := range email.Statuses {
		for _, name := range fixtureNames(t) {
			for _, mode := range []email.TrackingMode{email.TrackingFull, email.TrackingEssential} {
				e := sentEmail(func(e *email.Email) {
					e.Status, e.TrackingMode = st, mode
					e.DeliveredAt, e.OpenedAt, e.ClickedAt, e.BouncedAt, e.ComplainedAt = &set, &set, &set, &set, &set
				})
				c := status.Plan(e, sesEvent(t, name))
				if c == nil {
					continue
				}
				if c.ExpectStatus != st {
					t.Errorf("%s on %s: ExpectStatus = %s", name, st, c.ExpectStatus)
				}
				failure := name == "reject" || name == "rendering-failure" // no time of its own: counted while not yet failed
				if len(c.Metrics) > 0 && !(failure && st.Rank() < email.StatusFailed.Rank()) {
					t.Errorf("%s on %s with every time set: metrics %v counted again", name, st, c.Metrics)
				}
				if c.Email == nil {
					continue
				}
				if c.Email.Status.Rank() < st.Rank() {
					t.Errorf("%s (%s) moved %s back to %s", name, mode, st, c.Email.Status)
				}
				for _, f := range timeFields {
					if got := timeField(*c.Email, f); got == nil || !got.Equal(set) {
						t.Errorf("%s on %s: %s = %s, want it kept at %v", name, st, f, timeOf(got), set)
					}
				}
			}
		}
	}
}

func TestPlanLateEvents(t *testing.T) {
	cases := map[string]struct {
		status  email.Status
		fixture string
		want    email.Status
		field   string // the time the late event fills in
		when    time.Time
	}{
		"delivery after open":       {email.StatusOpened, "delivery", email.StatusOpened, "delivered_at", at(10, 0, 1, 250)},
		"delivery after click":      {email.StatusClicked, "delivery", email.StatusClicked, "delivered_at", at(10, 0, 1, 250)},
		"open after click":          {email.StatusClicked, "open", email.StatusClicked, "opened_at", at(10, 10, 0, 0)},
		"delivery after bounce":     {email.StatusBounced, "delivery", email.StatusBounced, "delivered_at", at(10, 0, 1, 250)},
		"delivery after complaint":  {email.StatusComplained, "delivery", email.StatusComplained, "delivered_at", at(10, 0, 1, 250)},
		"click after complaint":     {email.StatusComplained, "click", email.StatusComplained, "clicked_at", at(10, 12, 0, 0)},
		"bounce after complaint":    {email.StatusComplained, "bounce-permanent", email.StatusComplained, "bounced_at", at(10, 0, 2, 669)},
		"complaint after bounce":    {email.StatusBounced, "complaint", email.StatusComplained, "complained_at", at(10, 5, 0, 0)},
		"open after delivery":       {email.StatusDelivered, "open", email.StatusOpened, "opened_at", at(10, 10, 0, 0)},
		"click before any open":     {email.StatusDelivered, "click", email.StatusClicked, "clicked_at", at(10, 12, 0, 0)},
		"bounce after delivery":     {email.StatusDelivered, "bounce-transient", email.StatusBounced, "bounced_at", at(22, 0, 2, 0)},
		"delivery of a failed mail": {email.StatusFailed, "delivery", email.StatusFailed, "delivered_at", at(10, 0, 1, 250)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := status.Plan(sentEmail(func(e *email.Email) { e.Status = tc.status }), sesEvent(t, tc.fixture))
			if c == nil || c.Email == nil {
				t.Fatalf("Plan = %+v, want the email changed", c)
			}
			if c.Email.Status != tc.want {
				t.Errorf("status = %s, want %s", c.Email.Status, tc.want)
			}
			if got := timeField(*c.Email, tc.field); got == nil || !got.Equal(tc.when) {
				t.Errorf("%s = %s, want %v", tc.field, timeOf(got), tc.when)
			}
			// The late event counts its own first (a delivery or bounce also
			// counts "sent", as these fixtures set no other outcome time).
			if len(c.Metrics) == 0 || !strings.HasSuffix(c.Metrics[0], "_"+strings.TrimSuffix(tc.field, "_at")) || c.Event == nil || c.Event.Data.Status != tc.want {
				t.Errorf("metrics %v, event %+v", c.Metrics, c.Event)
			}
		})
	}
}

// Each *_at is set once, by the first event of its kind: a later event of
// the kind (another SES event, other timestamp) still shows in the feed but
// changes neither the email nor the counters.
func TestPlanFirstEventOfAKindWins(t *testing.T) {
	first := at(9, 30, 0, 0)
	cases := map[string]struct {
		fixture string
		set     func(e *email.Email)
		feed    event.Type
	}{
		"second delivery":  {"delivery", func(e *email.Email) { e.Status, e.DeliveredAt = email.StatusDelivered, &first }, event.Delivered},
		"second open":      {"open", func(e *email.Email) { e.Status, e.OpenedAt = email.StatusOpened, &first }, event.Opened},
		"second click":     {"click", func(e *email.Email) { e.Status, e.ClickedAt = email.StatusClicked, &first }, event.Clicked},
		"second bounce":    {"bounce-transient", func(e *email.Email) { e.Status, e.BouncedAt = email.StatusBounced, &first }, event.Bounced},
		"second complaint": {"complaint", func(e *email.Email) { e.Status, e.ComplainedAt = email.StatusComplained, &first }, event.Complained},
		"second reject": {"reject", func(e *email.Email) {
			e.Status, e.Error = email.StatusFailed, "rejected by SES: first reason"
		}, event.Failed},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := sentEmail(tc.set)
			c := status.Plan(e, sesEvent(t, tc.fixture))
			if c == nil {
				t.Fatal("Plan = nil, want the event in the feed")
			}
			if c.Email != nil {
				t.Errorf("email changed to %+v, want it unchanged", *c.Email)
			}
			if len(c.Metrics) != 0 {
				t.Errorf("metrics %v counted again", c.Metrics)
			}
			if c.Event == nil || c.Event.Type != tc.feed || !reflect.DeepEqual(*c.Event.Data, e.View()) {
				t.Errorf("event = %+v, want %s showing the unchanged email", c.Event, tc.feed)
			}
		})
	}
	// The same through two Plans: the first delivery's change, then another
	// Delivery event with a later timestamp.
	c1 := status.Plan(sentEmail(), sesEvent(t, "delivery"))
	later := parsed(t, edited(t, "delivery", func(m map[string]any) { obj(t, m, "delivery")["timestamp"] = "2026-11-22T11:00:00.000Z" }))
	c2 := status.Plan(*c1.Email, later)
	if c2.Email != nil || !c1.Email.DeliveredAt.Equal(at(10, 0, 1, 250)) {
		t.Errorf("second delivery changed the email: %+v", c2.Email)
	}
	if c2.Event.ID == c1.Event.ID {
		t.Error("two Delivery events share an event id")
	}
}

func TestPlanEssentialOpen(t *testing.T) {
	e := sentEmail(func(e *email.Email) {
		e.TrackingMode, e.Status, e.DeliveredAt = email.TrackingEssential, email.StatusDelivered, ptr(at(10, 0, 1, 250))
	})
	midnight := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	c := status.Plan(e, sesEvent(t, "open"))
	if c == nil || c.Email == nil || c.Event == nil {
		t.Fatalf("first open: %+v", c)
	}
	if got := c.Email.OpenedAt; got == nil || !got.Equal(midnight) {
		t.Errorf("opened_at = %s, want %v (the date at midnight UTC)", timeOf(got), midnight)
	}
	if c.Email.Status != email.StatusOpened || !c.OccurredAt.Equal(midnight) || !c.Event.CreatedAt.Equal(midnight) {
		t.Errorf("status %s, occurred %v, event at %v", c.Email.Status, c.OccurredAt, c.Event.CreatedAt)
	}
	if c.Event.Type != event.Opened || c.Event.ID != c.DedupeID || *c.Event.Data.OpenedAt != "2026-11-22T00:00:00.000Z" {
		t.Errorf("event = %+v, data opened_at %v", c.Event, *c.Event.Data.OpenedAt)
	}
	if c.Event.Data.OpenTrackingMode != email.TrackingEssential {
		t.Errorf("open_tracking_mode = %s", c.Event.Data.OpenTrackingMode)
	}
	if !slices.Equal(c.Metrics, []string{"transactional_live_opened"}) {
		t.Errorf("metrics = %v", c.Metrics)
	}
	// It fires once per message: a later open, the same day or not, changes
	// and counts nothing and carries the same event (whose feed item exists,
	// so it is only published again, and the dispatcher drops it).
	after := *c.Email
	for name, ts := range map[string]string{"same day": "2026-11-22T18:45:00.000Z", "next day": "2026-11-23T08:00:00.000Z"} {
		open := parsed(t, edited(t, "open", func(m map[string]any) { obj(t, m, "open")["timestamp"] = ts }))
		if c2 := status.Plan(after, open); c2 == nil || c2.Email != nil || len(c2.Metrics) != 0 || c2.Event == nil ||
			c2.Event.ID != c.Event.ID || !c2.Event.CreatedAt.Equal(midnight) {
			t.Errorf("%s open: Plan = %+v, want only the same opened event", name, c2)
		}
		// Two first opens planned from the same snapshot (processed
		// concurrently) share an id, so only one feed item can exist.
		if c2 := status.Plan(e, open); c2 == nil || c2.DedupeID != c.DedupeID {
			t.Errorf("%s open from the unopened email: dedupe id %v, want %s", name, c2, c.DedupeID)
		}
	}
	// Clicks are unaffected by essential.
	if c := status.Plan(after, sesEvent(t, "click")); c == nil || c.Email == nil || c.Email.Status != email.StatusClicked ||
		!c.Email.ClickedAt.Equal(at(10, 12, 0, 0)) || c.Click == nil {
		t.Errorf("click under essential: %+v", c)
	}
	// A precise open under full keeps its time.
	full := status.Plan(sentEmail(), sesEvent(t, "open"))
	if !full.Email.OpenedAt.Equal(at(10, 10, 0, 0)) {
		t.Errorf("full opened_at = %v", full.Email.OpenedAt)
	}
}

func TestPlanUnsubscribeClick(t *testing.T) {
	link := func(u string, tags map[string]any) func(map[string]any) {
		return func(m map[string]any) {
			c := obj(t, m, "click")
			c["link"] = u
			c["linkTags"] = tags
		}
	}
	cases := map[string][]byte{
		"tagged fixture":          fixture(t, "click-unsubscribe"),
		"path says unsubscribe":   edited(t, "click", link("https://demo.sesame.test/email/Unsubscribe/abc", nil)),
		"tag on an ordinary path": edited(t, "click", link("https://demo.sesame.test/prefs", map[string]any{"sesame_link": []string{"unsubscribe"}})),
	}
	statuses := []email.Status{email.StatusDelivered, email.StatusOpened, email.StatusClicked}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			ev := parsed(t, body)
			if !status.IsUnsubscribe(ev.Click) {
				t.Errorf("IsUnsubscribe(%s) = false", ev.Click.Link)
			}
			for _, st := range statuses {
				c := status.Plan(sentEmail(func(e *email.Email) { e.Status = st }), ev)
				if c == nil {
					t.Fatalf("%s: Plan = nil, want the opt-out counted", st)
				}
				if !c.OptOutClick || !strings.HasPrefix(c.DedupeID, "evt_") || c.ExpectStatus != st {
					t.Errorf("%s: opt-out %v, dedupe %q, expect %s", st, c.OptOutClick, c.DedupeID, c.ExpectStatus)
				}
				// Counted, never listed, not engagement.
				if c.Event != nil || c.Click != nil || c.Email != nil || len(c.Metrics) != 0 || c.Suppress != "" || c.UsageMonth != "" {
					t.Errorf("%s: unsubscribe click changes more than its count: %+v", st, c)
				}
			}
		})
	}
}

func TestIsUnsubscribe(t *testing.T) {
	cases := map[string]struct {
		click status.Click
		want  bool
	}{
		"tagged":                 {status.Click{Link: "https://a.test/x", LinkTags: map[string][]string{"sesame_link": {"cta", "unsubscribe"}}}, true},
		"path":                   {status.Click{Link: "https://a.test/unsubscribe"}, true},
		"path, capitals":         {status.Click{Link: "https://a.test/l/UNSUBSCRIBE?id=1"}, true},
		"ordinary link":          {status.Click{Link: "https://a.test/orders/123"}, false},
		"word in the query only": {status.Click{Link: "https://a.test/page?next=unsubscribe"}, false},
		"word in the host only":  {status.Click{Link: "https://unsubscribe.a.test/page"}, false},
		"other tag value":        {status.Click{Link: "https://a.test/x", LinkTags: map[string][]string{"sesame_link": {"cta"}}}, false},
		"not a URL":              {status.Click{Link: "%zz"}, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := status.IsUnsubscribe(&tc.click); got != tc.want {
				t.Errorf("IsUnsubscribe(%q) = %v, want %v", tc.click.Link, got, tc.want)
			}
		})
	}
}

func TestPlanOrdinaryClickIsNotOptOut(t *testing.T) {
	c := status.Plan(sentEmail(), sesEvent(t, "click"))
	if c.OptOutClick {
		t.Error("an ordinary click counted as an opt-out")
	}
}

// Event ids are derived from the SES event: the same event (a redelivery,
// even after the email moved on) gets the same id, another event another.
func TestEventIDs(t *testing.T) {
	e := sentEmail()
	ids := map[string]string{} // id → what produced it
	add := func(what, id string) {
		t.Helper()
		if !strings.HasPrefix(id, "evt_") || len(id) != len("evt_")+32 {
			t.Errorf("%s: id %q is not evt_ and 32 hex digits", what, id)
		}
		if prev, dup := ids[id]; dup {
			t.Errorf("%s and %s share the id %s", what, prev, id)
		}
		ids[id] = what
	}
	for _, name := range fixtureNames(t) {
		c1 := status.Plan(e, sesEvent(t, name))
		if c1 == nil {
			continue // delivery-delay
		}
		c2 := status.Plan(e, parsed(t, sns(t, "Notification", fixture(t, name))))
		if c1.DedupeID != c2.DedupeID {
			t.Errorf("%s: the same SES event planned twice got ids %s and %s", name, c1.DedupeID, c2.DedupeID)
		}
		if c1.Email != nil {
			if c3 := status.Plan(*c1.Email, sesEvent(t, name)); c3 == nil || c3.DedupeID != c1.DedupeID {
				t.Errorf("%s: redelivered after it applied, the id changed: %+v", name, c3)
			}
		}
		add(name, c1.DedupeID)
	}
	other := func(what string, em email.Email, body []byte) {
		t.Helper()
		c := status.Plan(em, parsed(t, body))
		if c == nil {
			t.Fatalf("%s: Plan = nil", what)
		}
		add(what, c.DedupeID)
	}
	other("delivery, other timestamp", e, edited(t, "delivery", func(m map[string]any) { obj(t, m, "delivery")["timestamp"] = "2026-11-22T10:00:01.251Z" }))
	other("click, other link", e, edited(t, "click", func(m map[string]any) { obj(t, m, "click")["link"] = "https://demo.sesame.test/orders/124" }))
	other("delivery, other email", sentEmail(func(e *email.Email) { e.ID = "01937f4e-0000-7000-8000-000000000002" }), fixture(t, "delivery"))
	other("delivery, other workspace", sentEmail(func(e *email.Email) { e.WorkspaceID = "ws_0000000000000002" }), fixture(t, "delivery"))
}

var fuzzStatuses = []email.Status{
	email.StatusSent, email.StatusDelivered, email.StatusOpened, email.StatusClicked, email.StatusBounced,
	email.StatusFailed, email.StatusComplained, email.StatusSuppressed, email.StatusHeld,
}

// fuzzEmail is the email an event is planned against, in one of many
// states: its status, tracking mode, environment and which first times it
// has, all chosen by state.
func fuzzEmail(state uint16) email.Email {
	e := email.Email{
		ID: emailID, WorkspaceID: wsID, To: recipient, Subject: "Hi", Type: email.TypeTransactional,
		Status:       fuzzStatuses[int(state)%len(fuzzStatuses)],
		TrackingMode: []email.TrackingMode{email.TrackingFull, email.TrackingEssential, email.TrackingOff}[int(state>>4)%3],
		Environment:  apikey.Live, SentAt: time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC),
	}
	if state&(1<<6) != 0 {
		e.Environment = apikey.Test
	}
	at := e.SentAt.Add(time.Minute)
	for i, p := range []**time.Time{&e.DeliveredAt, &e.OpenedAt, &e.ClickedAt, &e.BouncedAt, &e.ComplainedAt} {
		if state&(1<<(7+i)) != 0 {
			*p = &at
		}
	}
	return e
}

// FuzzParsePlan: any queue body parses to an event or to one of Parse's
// errors, and planning a parsed event against an email in any state never
// panics, never lowers its status, never rewrites a first time it has,
// and is the same plan twice.
func FuzzParsePlan(f *testing.F) {
	f.Add([]byte(`{"eventType":"Delivery","mail":{"timestamp":"2026-11-20T10:00:00Z","tags":{"workspace_id":["w"],"email_id":["e"]}},"delivery":{"timestamp":"2026-11-20T10:00:01Z"}}`), uint16(0))
	f.Fuzz(func(t *testing.T, body []byte, state uint16) {
		ev, err := status.Parse(body)
		if err != nil {
			if !errors.Is(err, status.ErrMalformed) && !errors.Is(err, status.ErrUnknownType) && !errors.Is(err, status.ErrNoTags) {
				t.Fatalf("Parse: %v, not one of its errors", err)
			}
			return
		}
		e := fuzzEmail(state)
		c := status.Plan(e, ev)
		if again := status.Plan(e, ev); !reflect.DeepEqual(c, again) {
			t.Fatalf("two plans of one event differ:\n%+v\n%+v", c, again)
		}
		if c == nil {
			return
		}
		if c.WorkspaceID != e.WorkspaceID || c.EmailID != e.ID || c.ExpectStatus != e.Status {
			t.Fatalf("change of another email: %+v", c)
		}
		if !strings.HasPrefix(c.DedupeID, "evt_") || len(c.DedupeID) != 36 {
			t.Fatalf("dedupe id %q", c.DedupeID)
		}
		if c.Event != nil && c.Event.ID != c.DedupeID {
			t.Fatalf("feed item %s, dedupe id %s", c.Event.ID, c.DedupeID)
		}
		if c.Email == nil {
			return
		}
		next := *c.Email
		if next.Status.Rank() < e.Status.Rank() {
			t.Fatalf("status %s lowered to %s by %s", e.Status, next.Status, ev.EventType)
		}
		for _, name := range timeFields {
			before, after := timeField(e, name), timeField(next, name)
			switch {
			case before != nil && (after == nil || !after.Equal(*before)):
				t.Fatalf("%s rewritten from %v to %v", name, before, after)
			case before == nil && after != nil && !slices.Contains(c.FirstTimes, name):
				t.Fatalf("%s set but not among the first times %v", name, c.FirstTimes)
			}
		}
		for _, name := range c.FirstTimes {
			if timeField(e, name) != nil || timeField(next, name) == nil {
				t.Fatalf("first time %s was already set, or is not set", name)
			}
		}
	})
}
