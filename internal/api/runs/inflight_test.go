package runs

import (
	"testing"

	"github.com/sesame-mail/sesame/internal/automation/runner"
	"github.com/sesame-mail/sesame/internal/queue/queues"
)

// A claim counts as in flight for as long as its delivery may still hold
// the message: the automations queue's visibility timeout.
func TestClaimInFlightIsTheVisibilityTimeout(t *testing.T) {
	if runner.ClaimInFlight != queues.Automations.VisibilityTimeout {
		t.Errorf("ClaimInFlight %v, the automations queue's visibility timeout %v", runner.ClaimInFlight, queues.Automations.VisibilityTimeout)
	}
}
