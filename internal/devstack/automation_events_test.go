package devstack_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/queue"
)

// Every refusal names its field exactly and starts nothing.
func TestAutomationEventBadInput(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	w := newEventWS(t, e)
	id := w.contact(t, e, "ada@example.com")
	aid := w.listen(t, e, "cart_abandoned", "", 1)
	big := map[string]any{"v": strings.Repeat("x", automation.MaxPayloadBytes-8)} // {"v":"…"} is 8 bytes more
	cases := map[string]struct {
		body        any
		code, param string
	}{
		"event with spaces":   {event("Cart Abandoned", "k", id, nil), "invalid_field", "event"},
		"event in capitals":   {event("CART_ABANDONED", "k", id, nil), "invalid_field", "event"},
		"event missing":       {map[string]any{"event_key": "k", "contact": map[string]any{"id": id}}, "missing_field", "event"},
		"event null":          {map[string]any{"event": nil, "event_key": "k", "contact": map[string]any{"id": id}}, "missing_field", "event"},
		"event not a string":  {map[string]any{"event": 1, "event_key": "k", "contact": map[string]any{"id": id}}, "invalid_field", "event"},
		"event_key missing":   {map[string]any{"event": "cart_abandoned", "contact": map[string]any{"id": id}}, "missing_field", "event_key"},
		"event_key empty":     {event("cart_abandoned", "", id, nil), "invalid_field", "event_key"},
		"event_key 201 chars": {event("cart_abandoned", strings.Repeat("é", 201), id, nil), "invalid_field", "event_key"},
		"contact missing":     {map[string]any{"event": "cart_abandoned", "event_key": "k"}, "missing_field", "contact"},
		"contact id and email": {map[string]any{"event": "cart_abandoned", "event_key": "k",
			"contact": map[string]any{"id": id, "email": "ada@example.com"}}, "invalid_field", "contact"},
		"contact empty":         {map[string]any{"event": "cart_abandoned", "event_key": "k", "contact": map[string]any{}}, "invalid_field", "contact"},
		"contact unknown field": {map[string]any{"event": "cart_abandoned", "event_key": "k", "contact": map[string]any{"phone": "1"}}, "invalid_field", "contact.phone"},
		"payload an array":      {map[string]any{"event": "cart_abandoned", "event_key": "k", "contact": map[string]any{"id": id}, "payload": []any{1}}, "invalid_field", "payload"},
		"payload a string":      {map[string]any{"event": "cart_abandoned", "event_key": "k", "contact": map[string]any{"id": id}, "payload": "x"}, "invalid_field", "payload"},
		"payload 8 KB + 1":      {event("cart_abandoned", "k", id, map[string]any{"v": strings.Repeat("x", automation.MaxPayloadBytes-7)}), "invalid_field", "payload"},
		"unknown field":         {map[string]any{"event": "cart_abandoned", "event_key": "k", "contact": map[string]any{"id": id}, "extra": 1}, "invalid_field", "extra"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e.bad().post(w.live, eventsPath, tc.body).wantError(t, http.StatusBadRequest, tc.code, tc.param)
		})
	}
	var b errorBody
	e.bad().post(w.live, eventsPath, event("CART_ABANDONED", "k", id, nil)).decode(t, http.StatusBadRequest, &b)
	if !strings.Contains(b.Error.Message, `"cart_abandoned"`) {
		t.Errorf("uppercase event refused with %q, want it to name the lowercase form", b.Error.Message)
	}
	if runs := w.runs(t, e, aid); len(runs) != 0 {
		t.Fatalf("refused events started %d runs", len(runs))
	}
	// The limits themselves are accepted: 200 characters, 8 KB of JSON.
	res := e.report(t, w.live, event("cart_abandoned", strings.Repeat("é", 200), id, big))
	wantRuns(t, res, automation.OutcomeStarted)
}

// An unknown contact is 404, whether named by id or email; so is another
// workspace's, and an id that is not a UUID. None is created.
func TestAutomationEventContactNotFound(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	w, other := newEventWS(t, e), newEventWS(t, e)
	w.listen(t, e, "cart_abandoned", "", 1)
	foreign := other.contact(t, e, "bob@example.com")
	for name, ref := range map[string]map[string]any{
		"unknown email":        {"email": "nobody@example.com"},
		"unknown id":           {"id": uuid.NewString()},
		"not a UUID":           {"id": "nope"},
		"another workspace id": {"id": foreign},
		"another ws email":     {"email": "bob@example.com"},
	} {
		t.Run(name, func(t *testing.T) {
			e.post(w.live, eventsPath, map[string]any{"event": "cart_abandoned", "event_key": "k", "contact": ref}).
				wantError(t, http.StatusNotFound, "not_found", "")
		})
	}
	if got := itemsUnder[runItem](t, e, "WS#"+w.id+"#CONTACT"); len(got) != 0 {
		t.Errorf("%d contact items created", len(got))
	}
}

// A started run freezes the payload's top-level strings, numbers (as
// written) and booleans, ignores nested values, is due now, is claimed
// for its key and contact, and is woken through the automations queue.
func TestAutomationEventStartsRun(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	w := newEventWS(t, e)
	id := w.contact(t, e, "ada@example.com")
	aid := w.listen(t, e, "cart_abandoned", "", 3)
	body := `{"event":"cart_abandoned","event_key":"order-123","contact":{"email":" Ada@Example.com "},` +
		`"payload":{"product_name":"<script>alert(1)</script>","total":19.90,"big":1e3,"gift":true,"items":[1],"address":{"city":"x"},"none":null}}`
	res := e.report(t, w.live, body)
	if res.Event != "cart_abandoned" || res.ContactID != id || res.Message != "" {
		t.Errorf("answer %+v", res)
	}
	wantRuns(t, res, automation.OutcomeStarted)
	runs := w.runs(t, e, aid)
	if len(runs) != 1 {
		t.Fatalf("%d runs, want 1", len(runs))
	}
	r := runs[0]
	want := map[string]string{"product_name": "<script>alert(1)</script>", "total": "19.90", "big": "1e3", "gift": "true"}
	if fmt.Sprint(r.Payload) != fmt.Sprint(want) {
		t.Errorf("frozen payload %v, want %v", r.Payload, want)
	}
	if r.ID != res.Runs[0].RunID || r.Version != 3 || r.ContactID != id || r.EventKey != "order-123" ||
		r.Status != "active" || r.Step != 0 || r.Environment != string(apikey.Live) {
		t.Errorf("run %+v", r)
	}
	if visible, inFlight := e.queues.Counts(t, queue.Automations.Name); visible+inFlight != 1 {
		t.Errorf("%d wake-ups queued, want 1", visible+inFlight)
	}
	// The safety wake-up, two minutes after the run is due.
	type wake struct {
		PK    string `dynamodbav:"pk"`
		RunID string `dynamodbav:"run_id"`
	}
	wakes := itemsUnder[wake](t, e, "AUTODUE#")
	if len(wakes) != 1 || wakes[0].RunID != r.ID || !strings.HasPrefix(wakes[0].PK, "AUTODUE#"+r.DueAt.Add(2*time.Minute).UTC().Format("2006-01-02T15:04")+"#") {
		t.Errorf("wake-ups %+v, want one at %s + 2 min", wakes, r.DueAt)
	}
	// The same key again, or another key for the same contact while
	// its run lives: duplicate, nothing more written or queued.
	wantRuns(t, e.report(t, w.live, event("cart_abandoned", "order-123", id, nil)), automation.OutcomeDuplicate)
	wantRuns(t, e.report(t, w.live, event("cart_abandoned", "order-456", id, nil)), automation.OutcomeDuplicate)
	if n := len(w.runs(t, e, aid)); n != 1 {
		t.Errorf("%d runs after duplicates, want 1", n)
	}
}

// With nothing listening the call succeeds: matched 0, the spec's
// message. A draft or inactive automation has no listener (only
// activation writes one), so it receives nothing either.
func TestAutomationEventNothingListens(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	w := newEventWS(t, e)
	id := w.contact(t, e, "ada@example.com")
	w.listen(t, e, "order_placed", "", 1)
	res := e.report(t, w.live, event("cart_abandoned", "k", id, nil))
	if res.Matched != 0 || res.Started != 0 || res.Runs == nil || len(res.Runs) != 0 || res.Message != automation.NothingListens {
		t.Errorf("answer %+v", res)
	}
	if !strings.Contains(string(e.post(w.live, eventsPath, event("cart_abandoned", "k", id, nil)).body), `"runs":[]`) {
		t.Error("runs is not an empty array")
	}
}

// An event_key is claimed for ever, whichever key used it first: a test
// key's event, then a live key's with the same event_key, is a duplicate.
// So is the same key after an edit (a new version): history is per
// automation, not per version; the edit changes only runs started after.
func TestAutomationEventKeyHistory(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	w := newEventWS(t, e)
	a, b, c := w.contact(t, e, "a@example.com"), w.contact(t, e, "b@example.com"), w.contact(t, e, "c@example.com")
	aid := w.listen(t, e, "cart_abandoned", "", 1)
	wantRuns(t, e.report(t, w.test, event("cart_abandoned", "order-1", a, nil)), automation.OutcomeStarted)
	wantRuns(t, e.report(t, w.live, event("cart_abandoned", "order-1", b, nil)), automation.OutcomeDuplicate)
	w.listen(t, e, "cart_abandoned", aid, 2) // edited while active
	wantRuns(t, e.report(t, w.live, event("cart_abandoned", "order-1", c, nil)), automation.OutcomeDuplicate)
	wantRuns(t, e.report(t, w.live, event("cart_abandoned", "order-2", c, nil)), automation.OutcomeStarted)
	versions := map[string]int{}
	for _, r := range w.runs(t, e, aid) {
		versions[r.EventKey+"/"+r.Environment] = r.Version
	}
	if want := map[string]int{"order-1/test": 1, "order-2/live": 2}; fmt.Sprint(versions) != fmt.Sprint(want) {
		t.Errorf("runs by key/environment: version %v, want %v", versions, want)
	}
}

// Each matched automation gets its own outcome: two listeners, one of
// which the contact already runs.
func TestAutomationEventTwoListeners(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	w := newEventWS(t, e)
	id := w.contact(t, e, "ada@example.com")
	first := w.listen(t, e, "cart_abandoned", "", 1)
	wantRuns(t, e.report(t, w.live, event("cart_abandoned", "k1", id, nil)), automation.OutcomeStarted)
	second := w.listen(t, e, "cart_abandoned", "", 1)
	res := e.report(t, w.live, event("cart_abandoned", "k2", id, nil))
	byAutomation := map[string]automation.RunOutcome{}
	for _, r := range res.Runs {
		byAutomation[r.AutomationID] = r.Status
	}
	if byAutomation[first] != automation.OutcomeDuplicate || byAutomation[second] != automation.OutcomeStarted || res.Started != 1 || res.Matched != 2 {
		t.Errorf("answer %+v", res)
	}
}

// Over 60 started runs in one minute an automation answers rate_limited,
// writes nothing, and the same event_key starts once the minute turns.
func TestAutomationEventRateLimit(t *testing.T) {
	t.Parallel()
	clock := dynamotest.NewClock(time.Date(2026, 3, 2, 10, 0, 5, 0, time.UTC))
	e := startDevAt(t, clock)
	w := newEventWS(t, e)
	aid := w.listen(t, e, "cart_abandoned", "", 1)
	contacts := w.contacts(t, e, automation.EventsPerMinute+1)
	for i := range automation.EventsPerMinute {
		wantRuns(t, e.report(t, w.live, event("cart_abandoned", fmt.Sprintf("k%d", i), contacts[i], nil)), automation.OutcomeStarted)
	}
	last := contacts[automation.EventsPerMinute]
	wantRuns(t, e.report(t, w.live, event("cart_abandoned", "k-last", last, nil)), automation.OutcomeRateLimited)
	// A duplicate is still told duplicate, not rate_limited.
	wantRuns(t, e.report(t, w.live, event("cart_abandoned", "k0", contacts[1], nil)), automation.OutcomeDuplicate)
	if n := len(w.runs(t, e, aid)); n != automation.EventsPerMinute {
		t.Errorf("%d runs, want %d", n, automation.EventsPerMinute)
	}
	clock.Set(clock.Now().Add(time.Minute))
	wantRuns(t, e.report(t, w.live, event("cart_abandoned", "k-last", last, nil)), automation.OutcomeStarted)
}

// 20 concurrent calls with one event_key (for 20 contacts, so only the key
// decides) start exactly one run; the others are duplicates, never 503.
func TestAutomationEventConcurrentKey(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	w := newEventWS(t, e)
	aid := w.listen(t, e, "cart_abandoned", "", 1)
	contacts := w.contacts(t, e, 20)
	results := make([]automation.EventResult, len(contacts))
	var wg sync.WaitGroup
	for i, id := range contacts {
		wg.Go(func() { results[i] = e.report(t, w.live, event("cart_abandoned", "same-key", id, nil)) })
	}
	wg.Wait()
	started := 0
	for _, r := range results {
		started += r.Started
	}
	if started != 1 {
		t.Errorf("%d runs started, want 1", started)
	}
	if n := len(w.runs(t, e, aid)); n != 1 {
		t.Errorf("%d run items, want 1", n)
	}
}

// One event with one matching automation costs 4 DynamoDB round trips:
// the key lookup and rate count, the contact (by id, or by its email's
// claim) and the listeners read at once, and the start's transaction;
// then one SendMessageBatch. docs/decisions.md holds the number.
func TestAutomationEventBudget(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	w := newEventWS(t, e)
	id := w.contact(t, e, "ada@example.com")
	w.contact(t, e, "bob@example.com")
	w.listen(t, e, "cart_abandoned", "", 1)
	for name, ref := range map[string]map[string]any{"by id": {"id": id}, "by email": {"email": "bob@example.com"}} {
		t.Run(name, func(t *testing.T) {
			e.rec.Reset()
			res := e.report(t, w.live, map[string]any{"event": "cart_abandoned", "event_key": name, "contact": ref})
			wantRuns(t, res, automation.OutcomeStarted)
			if got := e.rec.Total(); got != 4 {
				t.Errorf("%d DynamoDB calls, want 4 (UpdateItem %d, GetItem %d, Query %d, TransactWriteItems %d)", got,
					e.rec.Calls("UpdateItem"), e.rec.Calls("GetItem"), e.rec.Calls("Query"), e.rec.Calls("TransactWriteItems"))
			}
			for _, op := range []string{"UpdateItem", "GetItem", "Query", "TransactWriteItems"} {
				if n := e.rec.Calls(op); n != 1 {
					t.Errorf("%d %s calls, want 1", n, op)
				}
			}
		})
	}
}

// The route needs automations:trigger.
func TestAutomationEventScope(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	_, key := e.workspace(apikey.Live, apikey.ContactsWrite)
	e.post(key, eventsPath, event("cart_abandoned", "k", uuid.NewString(), nil)).
		wantError(t, http.StatusForbidden, "insufficient_scope", "")
}
