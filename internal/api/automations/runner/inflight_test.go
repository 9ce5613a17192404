package runner

import (
	"testing"

	runs "github.com/sesame-mail/sesame/internal/automation/runner"
	"github.com/sesame-mail/sesame/internal/queue/queues"
)

// A claim counts as in flight for as long as its delivery may still hold
// the message: the automations queue's visibility timeout.
func TestClaimInFlightIsTheVisibilityTimeout(t *testing.T) {
	if runs.ClaimInFlight != queues.Automations.VisibilityTimeout {
		t.Errorf("ClaimInFlight %v, the automations queue's visibility timeout %v", runs.ClaimInFlight, queues.Automations.VisibilityTimeout)
	}
}
