package devstack_test

import (
	"testing"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/queue"
)

// startRun creates an automation of the workspace with steps through the
// owner service, activates it, and reports its event for the contact with
// the workspace's live or test key: the event route starts the run and
// wakes it on the automations queue.
func startRun(t *testing.T, e *env, b *bulkWS, contactID string, env apikey.Environment, payload map[string]any, steps ...automation.Step) automation.WakeMessage {
	t.Helper()
	autoID := activeAutomation(t, e, b.id, automation.Definition{Name: "Cart", Event: "cart_abandoned", Steps: steps})
	key := b.key
	if env == apikey.Test {
		key = b.testKey
	}
	res := e.report(t, key, event("cart_abandoned", "order-"+uuid.NewString(), contactID, payload))
	wantRuns(t, res, automation.OutcomeStarted)
	return automation.WakeMessage{WorkspaceID: b.id, AutomationID: autoID, RunID: res.Runs[0].RunID}
}

// drainAutomations polls the automations queue until it is empty.
func drainAutomations(t *testing.T, q *queue.Poller) {
	t.Helper()
	drainQueue(t, q, "automations")
}

// drainQueue polls q until it is empty.
func drainQueue(t *testing.T, q *queue.Poller, name string) {
	t.Helper()
	for range 20 {
		n, err := q.PollOnce(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
	t.Fatalf("the %s queue never emptied", name)
}

// runOf reads a run back.
func runOf(t *testing.T, e *env, m automation.WakeMessage) automation.Run {
	t.Helper()
	r, err := e.store.AutomationRuns.GetRun(t.Context(), m.WorkspaceID, m.AutomationID, m.RunID)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
