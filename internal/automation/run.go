package automation

import (
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/email"
)

// RunStatus is where a run is in its life.
type RunStatus string

const (
	// RunActive is a run executing or waiting for its next step: the
	// contact's live run of the automation (rule 3).
	RunActive RunStatus = "active"
	// RunCompleted is a run that executed every step.
	RunCompleted RunStatus = "completed"
	// RunStopped is a run ended early, Reason says why (the contact
	// unsubscribed, was suppressed or deleted, the allowance ran out).
	RunStopped RunStatus = "stopped"
	// RunFailed is a run ended by a send step whose email could not go
	// (its sender cannot send, its content does not build, the provider
	// refused it); Reason says why.
	RunFailed RunStatus = "failed"
)

// Run is one execution of an automation version for one contact, started
// by one event. Step is the index of the next step to execute, due at
// DueAt. The payload's values were frozen when the run started.
type Run struct {
	ID           string             `json:"id"`
	WorkspaceID  string             `json:"-"`
	AutomationID string             `json:"automation_id"`
	Version      int                `json:"version"`
	ContactID    string             `json:"contact_id"`
	Event        string             `json:"event"`
	EventKey     string             `json:"event_key"`
	Environment  apikey.Environment `json:"environment"`
	Payload      map[string]string  `json:"payload"`
	Status       RunStatus          `json:"status"`
	Step         int                `json:"step"`
	DueAt        time.Time          `json:"due_at"`
	StartedAt    time.Time          `json:"started_at"`
	UpdatedAt    time.Time          `json:"updated_at"`
	EndedAt      *time.Time         `json:"ended_at"`
	Reason       string             `json:"reason,omitempty"`
	Log          []StepLog          `json:"log"`
}

// StepLog is what one executed step did.
type StepLog struct {
	Step    int       `json:"step"`
	Type    StepType  `json:"type"`
	At      time.Time `json:"at"`
	Outcome string    `json:"outcome"`
	EmailID string    `json:"email_id,omitempty"`
	Detail  string    `json:"detail,omitempty"`
}

// EmailID is the id of the email step sends in run: derived from both, so
// a redelivered or retried step finds the email it already claimed and
// never sends twice; stamped with the run's start so it sorts among the
// workspace's emails near when the run began.
func EmailID(r Run, step int) string {
	return email.DerivedID(r.ID+"/"+strconv.Itoa(step), r.StartedAt)
}

// WakeMessage is what the automation queue carries: look at this run and
// execute what is due. A message is only a wake-up; the run's record says
// what to do, so a duplicate or stale message does nothing twice.
type WakeMessage struct {
	WorkspaceID  string `json:"workspace_id"`
	AutomationID string `json:"automation_id"`
	RunID        string `json:"run_id"`
	// Step is the step the message was sent to execute: one for another
	// step (the start's safety net of a run already past its first step)
	// does nothing. Nil: any step (messages from before the field).
	Step *int `json:"step,omitempty"`
	// EmailID marks the wake-up of a scheduled single send, which shares
	// the runs' durable timer: the tick hands it to the review queue
	// (sending.ReviewMessage with Scheduled); no run has it.
	EmailID string `json:"email_id,omitempty"`
}

// WakeBodies are ms as the automations queue carries them (JSON), for a
// WakeQueue.
func WakeBodies(ms []WakeMessage) ([][]byte, error) {
	bodies := make([][]byte, 0, len(ms))
	for _, m := range ms {
		b, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		bodies = append(bodies, b)
	}
	return bodies, nil
}

// ForStep is m for step n.
func (m WakeMessage) ForStep(n int) WakeMessage {
	m.Step = &n
	return m
}

// MaxQueueDelay is the longest wait the queue holds (SQS DelaySeconds):
// a longer one is a wake-up item the tick reads.
const MaxQueueDelay = 15 * time.Minute

// Errors of the run store.
var (
	ErrRunNotFound = errors.New("run not found")
	// ErrRunMoved is an advance that lost a race: another delivery
	// executed the step, or the run ended, since it was read.
	ErrRunMoved = errors.New("the run moved meanwhile")
)

// Advance is what executing one step changes in its run.
type Advance struct {
	// Step is the next step to execute, due at DueAt.
	Step   int
	DueAt  time.Time
	Status RunStatus
	Reason string
	Log    StepLog
	// Wake writes a wake-up item at DueAt, for a wait longer than the
	// queue's delay holds.
	Wake bool
}
