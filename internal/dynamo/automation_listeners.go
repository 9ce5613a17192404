package dynamo

import (
	"context"

	"github.com/sesame-mail/sesame/internal/automation"
)

// Listeners are the active automations listening for event, each at the
// version a run started now executes: one Query of the event's listener
// partition, which activation and deactivation keep (Automations).
func (s *Automations) Listeners(ctx context.Context, workspaceID, event string) ([]automation.Listener, error) {
	return listAs(ctx, s.Table, "automation listeners", listenerPK(workspaceID, event), listenerItem.listener)
}
