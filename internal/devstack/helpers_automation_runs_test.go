package devstack_test

import (
	"testing"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/devstack"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/queue/queuetest"
	"github.com/sesame-mail/sesame/internal/routes"
)

// startAutomations is a dev server on clock whose automation emails are
// kept raw, and the poller of its automations queue with the dev
// server's runner.
func startAutomations(t *testing.T, clock *dynamotest.Clock) (*env, *queue.Poller) {
	t.Helper()
	dir := t.TempDir()
	e := newEnv(t, func(deps api.Deps, _ *queuetest.Set) (api.Deps, []httpapi.Route) {
		deps.Repos.Table.Now = clock.Now
		raw := &devstack.RawMessages{Dir: dir, Next: deps.AutomationRunner.Transport, Emails: deps.Repos.Emails}
		deps.AutomationRunner.Transport = raw
		deps.AutomationRunner.Captures = raw
		return deps, raw.Routes()
	})
	return e, e.queues.Poller(t, queue.Automations.Name, api.Consumers(e.deps)[routes.AutomationRunner])
}

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
	for range 20 {
		n, err := q.PollOnce(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
	t.Fatal("the automations queue never emptied")
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
