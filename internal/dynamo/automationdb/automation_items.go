package automationdb

import (
	"fmt"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/dynamo"
)

// The items of automations and their runs (layout.go names their keys).
// Steps are stored as the API writes them (JSON), so the definition, a
// kept version and the owner's view read the same shape.

// automationItem is an automation with its current steps.
type automationItem struct {
	PK        string    `dynamodbav:"pk"`
	SK        string    `dynamodbav:"sk"`
	ID        string    `dynamodbav:"id"`
	Name      string    `dynamodbav:"name"`
	Event     string    `dynamodbav:"event"`
	Status    string    `dynamodbav:"status"`
	Steps     string    `dynamodbav:"steps"`
	Version   int       `dynamodbav:"version"`
	CreatedAt time.Time `dynamodbav:"created_at"`
	UpdatedAt time.Time `dynamodbav:"updated_at"`
}

func automationKey(workspaceID, id string) (string, string) {
	return dynamo.WSPK(workspaceID, dynamo.KindAutomation), id
}

// versionItem is one version of an automation's steps, never changed.
type versionItem struct {
	PK        string    `dynamodbav:"pk"`
	SK        string    `dynamodbav:"sk"`
	Steps     string    `dynamodbav:"steps"`
	CreatedAt time.Time `dynamodbav:"created_at"`
}

func versionKey(workspaceID, automationID string, version int) (string, string) {
	return dynamo.WSSubPK(workspaceID, dynamo.KindAutomationVersion, automationID), fmt.Sprintf("%06d", version)
}

// listenerItem is an active automation listening for an event name: one
// Query of AUTOEVENT#<event> finds every automation an event starts.
type listenerItem struct {
	PK           string `dynamodbav:"pk"`
	SK           string `dynamodbav:"sk"`
	AutomationID string `dynamodbav:"automation_id"`
	Version      int    `dynamodbav:"version"`
}

func listenerPK(workspaceID, event string) string {
	return dynamo.WSSubPK(workspaceID, dynamo.KindAutomationListener, event)
}

func (it listenerItem) listener() automation.Listener {
	return automation.Listener{AutomationID: it.AutomationID, Version: it.Version}
}

// eventKeyItem claims an event_key for an automation, for ever: the run
// it started, and the environment of the key that reported it.
type eventKeyItem struct {
	PK          string    `dynamodbav:"pk"`
	SK          string    `dynamodbav:"sk"`
	RunID       string    `dynamodbav:"run_id"`
	Environment string    `dynamodbav:"environment"`
	CreatedAt   time.Time `dynamodbav:"created_at"`
}

func eventKeyKey(workspaceID, automationID, eventKey string) (string, string) {
	return dynamo.WSSubPK(workspaceID, dynamo.KindAutomationKey, automationID), eventKey
}

// liveItem claims a contact's one live run of an automation (rule 3); it
// is deleted when the run ends.
type liveItem struct {
	PK    string `dynamodbav:"pk"`
	SK    string `dynamodbav:"sk"`
	RunID string `dynamodbav:"run_id"`
}

func liveKey(workspaceID, automationID, contactID string) (string, string) {
	return dynamo.WSSubPK(workspaceID, dynamo.KindAutomationLive, automationID), contactID
}

// rateItem counts the runs an automation started in one minute.
type rateItem struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	Count     int    `dynamodbav:"count"`
	ExpiresAt int64  `dynamodbav:"expires_at"`
}

func rateKey(workspaceID, automationID string, minute time.Time) (string, string) {
	return dynamo.WSSubPK(workspaceID, dynamo.KindAutomationRate, automationID), minute.UTC().Format("2006-01-02T15:04")
}

// runItem is one run; Log holds its step log as JSON.
type runItem struct {
	PK           string            `dynamodbav:"pk"`
	SK           string            `dynamodbav:"sk"`
	ID           string            `dynamodbav:"id"`
	AutomationID string            `dynamodbav:"automation_id"`
	Version      int               `dynamodbav:"version"`
	ContactID    string            `dynamodbav:"contact_id"`
	Event        string            `dynamodbav:"event"`
	EventKey     string            `dynamodbav:"event_key"`
	Environment  string            `dynamodbav:"environment"`
	Payload      map[string]string `dynamodbav:"payload,omitempty"`
	Status       string            `dynamodbav:"status"`
	Step         int               `dynamodbav:"step"`
	DueAt        time.Time         `dynamodbav:"due_at"`
	StartedAt    time.Time         `dynamodbav:"started_at"`
	UpdatedAt    time.Time         `dynamodbav:"updated_at"`
	EndedAt      *time.Time        `dynamodbav:"ended_at,omitempty"`
	Reason       string            `dynamodbav:"reason,omitempty"`
	Log          []stepLogItem     `dynamodbav:"log,omitempty"`
}

type stepLogItem struct {
	Step    int       `dynamodbav:"step"`
	Type    string    `dynamodbav:"type"`
	At      time.Time `dynamodbav:"at"`
	Outcome string    `dynamodbav:"outcome"`
	EmailID string    `dynamodbav:"email_id,omitempty"`
	Detail  string    `dynamodbav:"detail,omitempty"`
}

func runKey(workspaceID, automationID, runID string) (string, string) {
	return dynamo.WSSubPK(workspaceID, dynamo.KindAutomationRun, automationID), runID
}

func newRunItem(r automation.Run) runItem {
	pk, sk := runKey(r.WorkspaceID, r.AutomationID, r.ID)
	it := runItem{
		PK: pk, SK: sk, ID: r.ID, AutomationID: r.AutomationID, Version: r.Version, ContactID: r.ContactID,
		Event: r.Event, EventKey: r.EventKey, Environment: string(r.Environment), Payload: r.Payload,
		Status: string(r.Status), Step: r.Step, DueAt: r.DueAt.UTC(), StartedAt: r.StartedAt.UTC(),
		UpdatedAt: r.UpdatedAt.UTC(), EndedAt: r.EndedAt, Reason: r.Reason,
	}
	for _, l := range r.Log {
		it.Log = append(it.Log, stepLogItem{Step: l.Step, Type: string(l.Type), At: l.At.UTC(), Outcome: l.Outcome, EmailID: l.EmailID, Detail: l.Detail})
	}
	return it
}

func (it runItem) run(workspaceID string) automation.Run {
	r := automation.Run{
		ID: it.ID, WorkspaceID: workspaceID, AutomationID: it.AutomationID, Version: it.Version, ContactID: it.ContactID,
		Event: it.Event, EventKey: it.EventKey, Environment: apikey.Environment(it.Environment), Payload: it.Payload,
		Status: automation.RunStatus(it.Status), Step: it.Step, DueAt: it.DueAt, StartedAt: it.StartedAt,
		UpdatedAt: it.UpdatedAt, EndedAt: it.EndedAt, Reason: it.Reason, Log: []automation.StepLog{},
	}
	for _, l := range it.Log {
		r.Log = append(r.Log, automation.StepLog{Step: l.Step, Type: automation.StepType(l.Type), At: l.At, Outcome: l.Outcome, EmailID: l.EmailID, Detail: l.Detail})
	}
	return r
}

// wakeItem wakes a run waiting longer than the queue's delay can hold:
// the tick reads the partitions of each minute and enqueues their runs.
type wakeItem struct {
	PK           string `dynamodbav:"pk"`
	SK           string `dynamodbav:"sk"`
	WorkspaceID  string `dynamodbav:"workspace_id"`
	AutomationID string `dynamodbav:"automation_id"`
	RunID        string `dynamodbav:"run_id"`
	Step         *int   `dynamodbav:"step,omitempty"`
	EmailID      string `dynamodbav:"email_id,omitempty"`
}

// NewWakeItem is the wake-up of m at at.
func NewWakeItem(at time.Time, m automation.WakeMessage) wakeItem {
	pk, sk := wakeKey(at, m)
	return wakeItem{PK: pk, SK: sk, WorkspaceID: m.WorkspaceID, AutomationID: m.AutomationID, RunID: m.RunID, Step: m.Step, EmailID: m.EmailID}
}

// message is the wake-up as the queue carries it.
func (it wakeItem) message() automation.WakeMessage {
	return automation.WakeMessage{WorkspaceID: it.WorkspaceID, AutomationID: it.AutomationID, RunID: it.RunID, Step: it.Step, EmailID: it.EmailID}
}

// wakeShards spread one minute's wake-ups so no partition runs hot.
const wakeShards = 8

func wakeKey(at time.Time, r automation.WakeMessage) (string, string) {
	if r.EmailID != "" { // a scheduled email's: workspace#EMAIL#email id
		return fmt.Sprintf("%s%s#%d", dynamo.AutoDuePrefix, at.UTC().Format("2006-01-02T15:04"), dynamo.ShardOf(r.EmailID, wakeShards)),
			r.WorkspaceID + "#" + dynamo.KindEmail + "#" + r.EmailID
	}
	shard := dynamo.ShardOf(r.RunID, wakeShards)
	return fmt.Sprintf("%s%s#%d", dynamo.AutoDuePrefix, at.UTC().Format("2006-01-02T15:04"), shard),
		r.WorkspaceID + "#" + r.AutomationID + "#" + r.RunID
}
