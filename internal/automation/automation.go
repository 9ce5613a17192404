// Package automation is a workspace's automations: a named sequence of
// steps (send, wait, tag) that an event reported by the team's backend
// starts for one contact, once per event_key for ever. Its definitions
// are the owner's (Service), its trigger route is served by
// automationhttp, and its runs are executed by the runner (runner.go).
package automation

import (
	"errors"
	"time"

	"github.com/sesame-mail/sesame/internal/fail"
)

// Status is where an automation is in its life: only an active one
// receives events.
type Status string

const (
	StatusDraft    Status = "draft"
	StatusActive   Status = "active"
	StatusInactive Status = "inactive"
)

// StepType is what a step does.
type StepType string

const (
	StepSend StepType = "send"
	StepWait StepType = "wait"
	StepTag  StepType = "tag"
)

// StepTypes are the step types, in the order a form offers them.
var StepTypes = []StepType{StepSend, StepWait, StepTag}

// Step is one step of an automation; the fields of its Type alone are set.
type Step struct {
	Type StepType `json:"type"`
	// send: content rendered for the run's contact and frozen payload.
	// SenderID "" is the workspace's default sender.
	Subject  string `json:"subject,omitempty"`
	HTML     string `json:"html,omitempty"`
	SenderID string `json:"sender_id,omitempty"`
	// wait
	Duration Duration `json:"duration,omitempty"`
	// tag
	Add    []string `json:"add,omitempty"`
	Remove []string `json:"remove,omitempty"`
}

// Automation is one automation of a workspace. Version counts edits of
// its steps: each version is kept unchanged, and a run executes the
// version it started with, so an edit changes only runs started after it.
type Automation struct {
	ID          string    `json:"id"`
	WorkspaceID string    `json:"-"`
	Name        string    `json:"name"`
	Event       string    `json:"event"`
	Status      Status    `json:"status"`
	Steps       []Step    `json:"steps"`
	Version     int       `json:"version"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// Limits of the spec and of the issue.
const (
	// MaxActivePerEvent active automations may listen for one event name,
	// so one event never starts more runs.
	MaxActivePerEvent = 10
	// EventsPerMinute events per minute start runs of one automation;
	// past them its result is rate_limited.
	EventsPerMinute = 60
	// MaxEventKey is the event_key's length in characters.
	MaxEventKey = 200
	// MaxPayloadBytes is the payload's size as JSON.
	MaxPayloadBytes = 8 << 10
	// MinWait and MaxWait bound a wait step.
	MinWait = time.Minute
	MaxWait = 90 * 24 * time.Hour
)

// Errors of the automation store and service.
var (
	ErrNotFound error = fail.NotFound("automation")
	// ErrConflict is an automation changed by someone else since it was
	// read (its version moved).
	ErrConflict = errors.New("the automation changed meanwhile")
)
