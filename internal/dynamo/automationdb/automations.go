package automationdb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// listenerCountItem counts the active automations listening for one
// event name: activation adds 1 under the condition that fewer than
// automation.MaxActivePerEvent listen, in the transaction that writes the
// listener, so concurrent activations never pass the limit.
type listenerCountItem struct {
	PK    string `dynamodbav:"pk"`
	SK    string `dynamodbav:"sk"`
	Count int    `dynamodbav:"count"`
}

func listenerCountKey(workspaceID, event string) map[string]ddbtypes.AttributeValue {
	return dynamo.Key(dynamo.WSPK(workspaceID, dynamo.KindAutomationListenerCount), event)
}

func newAutomationItem(a automation.Automation) (automationItem, error) {
	steps, err := json.Marshal(a.Steps)
	if err != nil {
		return automationItem{}, err
	}
	pk, sk := automationKey(a.WorkspaceID, a.ID)
	return automationItem{
		PK: pk, SK: sk, ID: a.ID, Name: a.Name, Event: a.Event, Status: string(a.Status), Steps: string(steps),
		Version: a.Version, CreatedAt: a.CreatedAt.UTC(), UpdatedAt: a.UpdatedAt.UTC(),
	}, nil
}

func (it automationItem) automation(workspaceID string) (automation.Automation, error) {
	var steps []automation.Step
	if err := json.Unmarshal([]byte(it.Steps), &steps); err != nil {
		return automation.Automation{}, fmt.Errorf("automation %s: stored steps: %w", it.ID, err)
	}
	return automation.Automation{
		ID: it.ID, WorkspaceID: workspaceID, Name: it.Name, Event: it.Event, Status: automation.Status(it.Status),
		Steps: steps, Version: it.Version, CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt,
	}, nil
}

// versionPut is the write of version a.Version of a's steps, which is
// never overwritten.
func (s *Automations) versionPut(it automationItem, workspaceID string) (*ddbtypes.Put, error) {
	pk, sk := versionKey(workspaceID, it.ID, it.Version)
	return s.PutOf(versionItem{PK: pk, SK: sk, Steps: it.Steps, CreatedAt: it.UpdatedAt}, dynamo.ItemAbsent())
}

// CreateAutomation stores a new automation (its id set by the caller) as
// version 1, with that version kept; workspace.ErrNotFound when its
// workspace does not exist.
func (s *Automations) CreateAutomation(ctx context.Context, a automation.Automation) (automation.Automation, error) {
	now := s.Time().UTC()
	a.Version, a.CreatedAt, a.UpdatedAt = 1, now, now
	it, err := newAutomationItem(a)
	if err != nil {
		return automation.Automation{}, err
	}
	put, err := s.PutOf(it, dynamo.ItemAbsent())
	if err != nil {
		return automation.Automation{}, err
	}
	ver, err := s.versionPut(it, a.WorkspaceID)
	if err != nil {
		return automation.Automation{}, err
	}
	wsCheck, err := s.WorkspaceCheck(a.WorkspaceID)
	if err != nil {
		return automation.Automation{}, err
	}
	failed, err := s.transact(ctx, []ddbtypes.TransactWriteItem{wsCheck, {Put: put}, {Put: ver}}, "create automation")
	switch {
	case err != nil:
		return automation.Automation{}, err
	case len(failed) > 0 && failed[0] == 0:
		return automation.Automation{}, workspace.ErrNotFound
	case len(failed) > 0:
		return automation.Automation{}, fmt.Errorf("create automation: id %s is taken", a.ID)
	}
	return a, nil
}

// GetAutomation reads an automation of the workspace
// (automation.ErrNotFound when absent).
func (s *Automations) GetAutomation(ctx context.Context, workspaceID, id string) (automation.Automation, error) {
	var it automationItem
	pk, sk := automationKey(workspaceID, id)
	found, err := s.GetItem(ctx, dynamo.Key(pk, sk), &it)
	if err != nil {
		return automation.Automation{}, fmt.Errorf("get automation: %w", err)
	}
	if !found {
		return automation.Automation{}, automation.ErrNotFound
	}
	return it.automation(workspaceID)
}

// ListAutomations returns the workspace's automations, oldest first.
func (s *Automations) ListAutomations(ctx context.Context, workspaceID string) ([]automation.Automation, error) {
	items, err := dynamo.ListPartition[automationItem](ctx, s.Table, dynamo.WSPK(workspaceID, dynamo.KindAutomation))
	if err != nil {
		return nil, fmt.Errorf("list automations: %w", err)
	}
	out := make([]automation.Automation, 0, len(items))
	for _, it := range items {
		a, err := it.automation(workspaceID)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// UpdateAutomation replaces the name, event and steps of read, the
// automation as the caller read it, writing version read.Version+1 and
// keeping it; an active automation's listener moves to the new version
// in the same transaction, so runs started afterwards execute it. An
// active automation keeps its event (deactivate it to change it). An
// automation whose version or status moved since read is
// automation.ErrConflict.
func (s *Automations) UpdateAutomation(ctx context.Context, read automation.Automation, d automation.Definition) (automation.Automation, error) {
	if read.Status == automation.StatusActive && d.Event != read.Event {
		return automation.Automation{}, errors.New("update automation: an active automation keeps its event")
	}
	a := read
	a.Name, a.Event, a.Steps, a.Version, a.UpdatedAt = d.Name, d.Event, d.Steps, read.Version+1, s.Time().UTC()
	it, err := newAutomationItem(a)
	if err != nil {
		return automation.Automation{}, err
	}
	update := expression.Set(expression.Name("name"), expression.Value(it.Name)).
		Set(expression.Name("event"), expression.Value(it.Event)).
		Set(expression.Name("steps"), expression.Value(it.Steps)).
		Set(expression.Name("version"), expression.Value(it.Version)).
		Set(expression.Name("updated_at"), expression.Value(it.UpdatedAt))
	upd, err := s.UpdateOf(dynamo.Key(it.PK, it.SK), update, unchangedSince(read))
	if err != nil {
		return automation.Automation{}, err
	}
	ver, err := s.versionPut(it, a.WorkspaceID)
	if err != nil {
		return automation.Automation{}, err
	}
	items := []ddbtypes.TransactWriteItem{{Update: upd}, {Put: ver}}
	if read.Status == automation.StatusActive {
		listener, err := s.UpdateOf(dynamo.Key(listenerPK(a.WorkspaceID, a.Event), a.ID),
			expression.Set(expression.Name("version"), expression.Value(a.Version)), dynamo.ItemExists())
		if err != nil {
			return automation.Automation{}, err
		}
		items = append(items, ddbtypes.TransactWriteItem{Update: listener})
	}
	failed, err := s.transact(ctx, items, "update automation")
	if err != nil {
		return automation.Automation{}, err
	}
	if len(failed) > 0 {
		return automation.Automation{}, automation.ErrConflict
	}
	return a, nil
}

// ActivateAutomation makes read, the automation as the caller read and
// checked it, active: its status and the listener of its event at its
// version, and the event's count of listeners, in one transaction. An
// event with automation.MaxActivePerEvent listeners already is
// automation.ErrEventFull; an automation changed since read (another
// version, already active) is automation.ErrConflict.
func (s *Automations) ActivateAutomation(ctx context.Context, read automation.Automation) (automation.Automation, error) {
	if read.Status == automation.StatusActive {
		return automation.Automation{}, automation.ErrConflict
	}
	a := read
	a.Status, a.UpdatedAt = automation.StatusActive, s.Time().UTC()
	pk, sk := automationKey(a.WorkspaceID, a.ID)
	upd, err := s.UpdateOf(dynamo.Key(pk, sk), statusSet(a), unchangedSince(read))
	if err != nil {
		return automation.Automation{}, err
	}
	listener, err := s.PutOf(listenerItem{PK: listenerPK(a.WorkspaceID, a.Event), SK: a.ID, AutomationID: a.ID, Version: a.Version}, dynamo.NoCondition)
	if err != nil {
		return automation.Automation{}, err
	}
	count := expression.Name("count")
	room := expression.AttributeNotExists(count).Or(count.LessThan(expression.Value(automation.MaxActivePerEvent)))
	counter, err := s.UpdateOf(listenerCountKey(a.WorkspaceID, a.Event), expression.Add(count, expression.Value(1)), room)
	if err != nil {
		return automation.Automation{}, err
	}
	failed, err := s.transact(ctx, []ddbtypes.TransactWriteItem{{Update: upd}, {Put: listener}, {Update: counter}}, "activate automation")
	switch {
	case err != nil:
		return automation.Automation{}, err
	case len(failed) > 0 && failed[0] == 0:
		return automation.Automation{}, automation.ErrConflict
	case len(failed) > 0:
		return automation.Automation{}, automation.ErrEventFull
	}
	return a, nil
}

// DeactivateAutomation makes read, an active automation, inactive: its
// status, the listener deleted and the event's count of listeners, in one
// transaction; no new run starts. An automation changed since read is
// automation.ErrConflict.
func (s *Automations) DeactivateAutomation(ctx context.Context, read automation.Automation) (automation.Automation, error) {
	if read.Status != automation.StatusActive {
		return automation.Automation{}, automation.ErrConflict
	}
	a := read
	a.Status, a.UpdatedAt = automation.StatusInactive, s.Time().UTC()
	pk, sk := automationKey(a.WorkspaceID, a.ID)
	upd, err := s.UpdateOf(dynamo.Key(pk, sk), statusSet(a), unchangedSince(read))
	if err != nil {
		return automation.Automation{}, err
	}
	listener, err := s.DeleteOf(dynamo.Key(listenerPK(a.WorkspaceID, a.Event), a.ID), dynamo.ItemExists())
	if err != nil {
		return automation.Automation{}, err
	}
	counter, err := s.UpdateOf(listenerCountKey(a.WorkspaceID, a.Event), expression.Add(expression.Name("count"), expression.Value(-1)), dynamo.ItemExists())
	if err != nil {
		return automation.Automation{}, err
	}
	failed, err := s.transact(ctx, []ddbtypes.TransactWriteItem{{Update: upd}, {Delete: listener}, {Update: counter}}, "deactivate automation")
	if err != nil {
		return automation.Automation{}, err
	}
	if len(failed) > 0 {
		return automation.Automation{}, automation.ErrConflict
	}
	return a, nil
}

// Listeners are the active automations listening for event, each at the
// version a run started now executes: one Query.
func (s *Automations) Listeners(ctx context.Context, workspaceID, event string) ([]automation.Listener, error) {
	return dynamo.ListAs(ctx, s.Table, "automation listeners", listenerPK(workspaceID, event), listenerItem.listener)
}

// GetVersion reads the steps of one kept version of an automation
// (automation.ErrNotFound when absent). A version never changes, so a
// reader may cache it.
func (s *Automations) GetVersion(ctx context.Context, workspaceID, automationID string, version int) ([]automation.Step, error) {
	var it versionItem
	pk, sk := versionKey(workspaceID, automationID, version)
	found, err := s.GetItem(ctx, dynamo.Key(pk, sk), &it)
	if err != nil {
		return nil, fmt.Errorf("get automation version: %w", err)
	}
	if !found {
		return nil, automation.ErrNotFound
	}
	var steps []automation.Step
	if err := json.Unmarshal([]byte(it.Steps), &steps); err != nil {
		return nil, fmt.Errorf("automation %s version %d: stored steps: %w", automationID, version, err)
	}
	return steps, nil
}

// unchangedSince is the condition that the automation is as read: the
// same version, status and event.
func unchangedSince(read automation.Automation) expression.ConditionBuilder {
	return dynamo.ItemExists().
		And(expression.Name("version").Equal(expression.Value(read.Version))).
		And(expression.Name("status").Equal(expression.Value(string(read.Status)))).
		And(expression.Name("event").Equal(expression.Value(read.Event)))
}

func statusSet(a automation.Automation) expression.UpdateBuilder {
	return expression.Set(expression.Name("status"), expression.Value(string(a.Status))).
		Set(expression.Name("updated_at"), expression.Value(a.UpdatedAt.UTC()))
}

// transact runs items as one transaction, retrying one cancelled by a
// concurrent transaction (dynamo.Table.Transact): the indexes of the items
// whose condition failed, nil when it committed.
func (s *Automations) transact(ctx context.Context, items []ddbtypes.TransactWriteItem, what string) ([]int, error) {
	failed, err := s.Table.Transact(ctx, items)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return failed, nil
}
