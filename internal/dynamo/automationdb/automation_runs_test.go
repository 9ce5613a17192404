package automationdb_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/dynamo/automationdb"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
)

// newRunStore is a table with one workspace, checked for its key layout
// when the test ends.
func newRunStore(t *testing.T) (*automationdb.AutomationRuns, string) {
	t.Helper()
	store, ws := dynamotest.StoreWithWorkspace(t)
	return store.AutomationRuns, ws
}

// startRun starts a run of automationID for contactID with eventKey, due
// now, and returns it with the start's outcome.
func startRun(t *testing.T, s *automationdb.AutomationRuns, ws, automationID, contactID, eventKey string) (automation.Run, automation.RunOutcome) {
	t.Helper()
	now := time.Now().UTC().Truncate(time.Millisecond)
	r := automation.Run{
		ID: uuid.Must(uuid.NewV7()).String(), WorkspaceID: ws, AutomationID: automationID, Version: 1, ContactID: contactID,
		Event: "cart_abandoned", EventKey: eventKey, Environment: apikey.Live, Status: automation.RunActive,
		DueAt: now, StartedAt: now, UpdatedAt: now,
	}
	out, err := s.StartRun(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	return r, out
}

// advanceOf is the advance of r's step to the next, ending the run with
// status when it is not active.
func advanceOf(r automation.Run, status automation.RunStatus, detail string) automation.Advance {
	now := time.Now().UTC()
	return automation.Advance{Step: r.Step + 1, DueAt: now, Status: status,
		Log: automation.StepLog{Step: r.Step, Type: automation.StepTag, At: now, Outcome: "tagged", Detail: detail}}
}

// Advances of one step raced by several deliveries: exactly one wins, the
// others get ErrRunMoved, and the step is logged once; both when the run
// goes on (one conditional update) and when it ends (a transaction with
// the delete of the live-run claim).
func TestAutomationRunAdvanceRaceHasOneWinner(t *testing.T) {
	s, ws := newRunStore(t)
	automationID := uuid.Must(uuid.NewV7()).String()
	for _, status := range []automation.RunStatus{automation.RunActive, automation.RunCompleted} {
		t.Run(string(status), func(t *testing.T) {
			r, out := startRun(t, s, ws, automationID, uuid.NewString(), uuid.NewString())
			if out != automation.OutcomeStarted {
				t.Fatalf("start: %s", out)
			}
			const racers = 8
			errs := make([]error, racers)
			var wg sync.WaitGroup
			for i := range racers {
				wg.Go(func() { errs[i] = s.Advance(t.Context(), r, advanceOf(r, status, "racer")) })
			}
			wg.Wait()
			won := 0
			for i, err := range errs {
				switch {
				case err == nil:
					won++
				case !errors.Is(err, automation.ErrRunMoved):
					t.Errorf("racer %d: %v, want ErrRunMoved", i, err)
				}
			}
			if won != 1 {
				t.Fatalf("%d advances won, want exactly 1: %v", won, errs)
			}
			got, err := s.GetRun(t.Context(), ws, automationID, r.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Step != 1 || got.Status != status || len(got.Log) != 1 {
				t.Errorf("run after the race: step %d, status %s, %d log entries; want 1, %s, 1", got.Step, got.Status, len(got.Log), status)
			}
			// The loser re-reads: the same step again is refused.
			if err := s.Advance(t.Context(), r, advanceOf(r, status, "late")); !errors.Is(err, automation.ErrRunMoved) {
				t.Errorf("a stale advance: %v, want ErrRunMoved", err)
			}
		})
	}
}

// A contact's live run blocks another start with a new event_key; when it
// ends, its live-run claim is gone in the same write, so the next event
// starts — while the ended run's own event_key stays used for ever.
func TestAutomationRunEndFreesTheContact(t *testing.T) {
	s, ws := newRunStore(t)
	automationID, contactID := uuid.Must(uuid.NewV7()).String(), uuid.NewString()
	for status, reason := range map[automation.RunStatus]string{automation.RunCompleted: "", automation.RunStopped: "the contact unsubscribed"} {
		t.Run(string(status), func(t *testing.T) {
			first := uuid.NewString()
			r, out := startRun(t, s, ws, automationID, contactID, first)
			if out != automation.OutcomeStarted {
				t.Fatalf("first event: %s", out)
			}
			if _, out := startRun(t, s, ws, automationID, contactID, uuid.NewString()); out != automation.OutcomeDuplicate {
				t.Fatalf("a new key while the run is live: %s, want duplicate", out)
			}
			a := advanceOf(r, status, "")
			a.Reason = reason
			if err := s.Advance(t.Context(), r, a); err != nil {
				t.Fatal(err)
			}
			if _, out := startRun(t, s, ws, automationID, contactID, first); out != automation.OutcomeDuplicate {
				t.Errorf("the ended run's key again: %s, want duplicate", out)
			}
			next, out := startRun(t, s, ws, automationID, contactID, uuid.NewString())
			if out != automation.OutcomeStarted {
				t.Fatalf("a new key after the run ended: %s, want started", out)
			}
			// End it too, so the next subtest's contact is free.
			if err := s.Advance(t.Context(), next, advanceOf(next, automation.RunCompleted, "")); err != nil {
				t.Fatal(err)
			}
		})
	}
}
