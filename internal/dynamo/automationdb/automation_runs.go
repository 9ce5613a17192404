package automationdb

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/schema"
)

// The runs side of automations: reading a run and its kept version,
// advancing it, its wake-up items and the tick's cursor.

// GetRun reads one run (automation.ErrRunNotFound when absent).
func (s *AutomationRuns) GetRun(ctx context.Context, workspaceID, automationID, runID string) (automation.Run, error) {
	pk, sk := runKey(workspaceID, automationID, runID)
	return dynamo.GetAs(ctx, s.Table, "automation run", dynamo.Key(pk, sk), func(it runItem) automation.Run { return it.run(workspaceID) }, automation.ErrRunNotFound)
}

// ListRuns reads a page of an automation's runs, newest first, after the
// run id after ("" for the first page).
func (s *AutomationRuns) ListRuns(ctx context.Context, workspaceID, automationID, after string, limit int) ([]automation.Run, string, bool, error) {
	pk, _ := runKey(workspaceID, automationID, "")
	in, err := s.Partition("", schema.AttrPK, pk)
	if err != nil {
		return nil, "", false, err
	}
	in.ScanIndexForward = aws.Bool(false)
	if after != "" {
		in.ExclusiveStartKey = dynamo.Key(pk, after)
	}
	return dynamo.FilteredPage(ctx, s.Table, "automation runs", in, limit, schema.AttrSK, func(it runItem) automation.Run { return it.run(workspaceID) })
}

// GetRuns reads runs by automation and run id in BatchGetItems; a
// missing one is left out.
func (s *AutomationRuns) GetRuns(ctx context.Context, workspaceID string, refs []automation.WakeMessage) ([]automation.Run, error) {
	keys := make([]map[string]ddbtypes.AttributeValue, 0, len(refs))
	for _, r := range refs {
		keys = append(keys, dynamo.Key(runKey(workspaceID, r.AutomationID, r.RunID)))
	}
	items, err := s.BatchGet(ctx, keys)
	if err != nil {
		return nil, fmt.Errorf("read automation runs: %w", err)
	}
	var its []runItem
	if err := attributevalue.UnmarshalListOfMaps(items, &its); err != nil {
		return nil, err
	}
	out := make([]automation.Run, 0, len(its))
	for _, it := range its {
		out = append(out, it.run(workspaceID))
	}
	return out, nil
}

// Steps reads a kept version of an automation's steps: one GetItem of an
// item never changed, so the runner caches it.
func (s *AutomationRuns) Steps(ctx context.Context, workspaceID, automationID string, version int) ([]automation.Step, error) {
	return (&Automations{s.Table}).GetVersion(ctx, workspaceID, automationID, version)
}

// Advance moves r as a says, unless it moved since it was read (status
// active and the step read): one UpdateItem, or a transaction with the
// delete of the live-run claim when the run ends, or the wake-up item
// of a long wait.
func (s *AutomationRuns) Advance(ctx context.Context, r automation.Run, a automation.Advance) error {
	now := s.Time().UTC()
	l := a.Log
	entry := []stepLogItem{{Step: l.Step, Type: string(l.Type), At: l.At.UTC(), Outcome: l.Outcome, EmailID: l.EmailID, Detail: l.Detail}}
	upd := expression.Set(expression.Name("step"), expression.Value(a.Step)).
		Set(expression.Name("due_at"), expression.Value(a.DueAt.UTC())).
		Set(expression.Name("status"), expression.Value(string(a.Status))).
		Set(expression.Name("updated_at"), expression.Value(now)).
		Set(expression.Name("log"), expression.ListAppend(expression.IfNotExists(expression.Name("log"), expression.Value([]stepLogItem{})), expression.Value(entry)))
	ended := a.Status != automation.RunActive
	if ended {
		upd = upd.Set(expression.Name("ended_at"), expression.Value(now))
	}
	if a.Reason != "" {
		upd = upd.Set(expression.Name("reason"), expression.Value(a.Reason))
	}
	cond := expression.Name("status").Equal(expression.Value(string(automation.RunActive))).
		And(expression.Name("step").Equal(expression.Value(r.Step)))
	u, err := s.UpdateOf(dynamo.Key(runKey(r.WorkspaceID, r.AutomationID, r.ID)), upd, cond)
	if err != nil {
		return err
	}
	items := []ddbtypes.TransactWriteItem{{Update: u}}
	if ended {
		items = append(items, ddbtypes.TransactWriteItem{Delete: &ddbtypes.Delete{TableName: &s.Name, Key: dynamo.Key(liveKey(r.WorkspaceID, r.AutomationID, r.ContactID))}})
	}
	if a.Wake {
		m := automation.WakeMessage{WorkspaceID: r.WorkspaceID, AutomationID: r.AutomationID, RunID: r.ID}.ForStep(a.Step)
		p, err := s.PutOf(NewWakeItem(a.DueAt, m), dynamo.NoCondition)
		if err != nil {
			return err
		}
		items = append(items, ddbtypes.TransactWriteItem{Put: p})
	}
	if len(items) == 1 {
		err = s.Update(ctx, u, nil)
		if dynamo.IsConditionFailed(err) {
			return automation.ErrRunMoved
		}
	} else {
		err = s.TransactGuarded(ctx, items, automation.ErrRunMoved)
	}
	if errors.Is(err, automation.ErrRunMoved) {
		return err
	}
	if err != nil {
		return fmt.Errorf("advance automation run: %w", err)
	}
	return nil
}

// DueWakes reads the wake-ups of one due minute: a Query of each of its
// shards.
func (s *AutomationRuns) DueWakes(ctx context.Context, minute time.Time) ([]automation.WakeMessage, error) {
	var out []automation.WakeMessage
	for shard := range wakeShards {
		items, err := dynamo.ListPartition[wakeItem](ctx, s.Table, wakePK(minute, shard))
		if err != nil {
			return nil, fmt.Errorf("read wake-ups: %w", err)
		}
		for _, it := range items {
			out = append(out, it.message())
		}
	}
	return out, nil
}

// ClearWakes deletes swept wake-ups of one due minute.
func (s *AutomationRuns) ClearWakes(ctx context.Context, minute time.Time, ms []automation.WakeMessage) error {
	requests := make([]ddbtypes.WriteRequest, 0, len(ms))
	for _, m := range ms {
		requests = append(requests, ddbtypes.WriteRequest{DeleteRequest: &ddbtypes.DeleteRequest{Key: dynamo.Key(wakeKey(minute, m))}})
	}
	if err := s.BatchWrite(ctx, requests); err != nil {
		return fmt.Errorf("clear wake-ups: %w", err)
	}
	return nil
}

func wakePK(minute time.Time, shard int) string {
	return dynamo.AutoDuePrefix + minute.UTC().Format("2006-01-02T15:04") + "#" + strconv.Itoa(shard)
}

// tickItem is the tick's cursor: the last minute it swept.
type tickItem struct {
	PK     string    `dynamodbav:"pk"`
	SK     string    `dynamodbav:"sk"`
	Minute time.Time `dynamodbav:"minute"`
}

const tickSK = "CURSOR"

// TickCursor is the last minute the tick swept; zero before its first.
func (s *AutomationRuns) TickCursor(ctx context.Context) (time.Time, error) {
	var it tickItem
	if _, err := s.GetItem(ctx, dynamo.Key(dynamo.AutoTickPK, tickSK), &it); err != nil {
		return time.Time{}, fmt.Errorf("read tick cursor: %w", err)
	}
	return it.Minute, nil
}

// SetTickCursor records the last minute swept.
func (s *AutomationRuns) SetTickCursor(ctx context.Context, minute time.Time) error {
	if err := s.PutItem(ctx, tickItem{PK: dynamo.AutoTickPK, SK: tickSK, Minute: minute.UTC()}, dynamo.NoCondition); err != nil {
		return fmt.Errorf("write tick cursor: %w", err)
	}
	return nil
}
