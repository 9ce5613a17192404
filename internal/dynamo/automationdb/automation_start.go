package automationdb

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/dynamo"
)

// The start of automation runs by an event (automation.TriggerStore).

// startWakeMargin is how long after a started run is due the wake-up item
// written with it lets the tick wake it: only a run whose queue message
// was lost (the enqueue after the start failed) is still due by then;
// any other has moved on, and the wake-up finds nothing to do.
const startWakeMargin = 2 * time.Minute

// rateKeep is how long a minute's event count is kept before its TTL.
const rateKeep = time.Hour

// StartRun writes run r in one transaction: the claim of its event_key
// for ever (0), the claim of its contact's live run (1), one more event
// in its automation's minute unless that has EventsPerMinute (2), the run
// (3), and a wake-up item startWakeMargin after it is due (4). A failed
// claim is a duplicate, whatever the minute; a full minute alone is
// rate_limited. Either way nothing is written, so the same event_key
// starts once the minute has room.
func (s *AutomationRuns) StartRun(ctx context.Context, r automation.Run) (automation.RunOutcome, error) {
	items, err := s.startItems(r)
	if err != nil {
		return "", err
	}
	failed, err := s.Transact(ctx, items)
	if err != nil {
		return "", fmt.Errorf("start run: %w", err)
	}
	for _, i := range failed {
		if i == 0 || i == 1 {
			return automation.OutcomeDuplicate, nil
		}
	}
	if len(failed) > 0 {
		return automation.OutcomeRateLimited, nil
	}
	return automation.OutcomeStarted, nil
}

func (s *AutomationRuns) startItems(r automation.Run) ([]ddbtypes.TransactWriteItem, error) {
	pk, sk := eventKeyKey(r.WorkspaceID, r.AutomationID, r.EventKey)
	claimKey, err := s.PutOf(eventKeyItem{PK: pk, SK: sk, RunID: r.ID, Environment: string(r.Environment), CreatedAt: r.StartedAt.UTC()}, dynamo.ItemAbsent())
	if err != nil {
		return nil, err
	}
	pk, sk = liveKey(r.WorkspaceID, r.AutomationID, r.ContactID)
	claimLive, err := s.PutOf(liveItem{PK: pk, SK: sk, RunID: r.ID}, dynamo.ItemAbsent())
	if err != nil {
		return nil, err
	}
	minute := r.StartedAt.UTC().Truncate(time.Minute)
	count, err := s.UpdateOf(dynamo.Key(rateKey(r.WorkspaceID, r.AutomationID, minute)),
		expression.Add(expression.Name("count"), expression.Value(1)).
			Set(expression.Name("expires_at"), expression.Value(minute.Add(rateKeep).Unix())),
		dynamo.ItemAbsent().Or(expression.Name("count").LessThan(expression.Value(automation.EventsPerMinute))))
	if err != nil {
		return nil, err
	}
	run, err := s.PutOf(newRunItem(r), dynamo.ItemAbsent())
	if err != nil {
		return nil, err
	}
	msg := automation.WakeMessage{WorkspaceID: r.WorkspaceID, AutomationID: r.AutomationID, RunID: r.ID}.ForStep(0)
	wake, err := s.PutOf(NewWakeItem(r.DueAt.Add(startWakeMargin), msg), dynamo.NoCondition)
	if err != nil {
		return nil, err
	}
	return []ddbtypes.TransactWriteItem{{Put: claimKey}, {Put: claimLive}, {Update: count}, {Put: run}, {Put: wake}}, nil
}
