package automation

// Event is one validated occurrence reported through
// POST /api/v1/automations/events.
type Event struct {
	Name    string
	Key     string
	Contact ContactRef
	// Payload holds the top-level strings, numbers and booleans, each as
	// its text (a number as JSON writes it); nested values are dropped.
	Payload map[string]string
}

// ContactRef names the event's contact: exactly one of ID and Email.
type ContactRef struct {
	ID    string `json:"id,omitempty"`
	Email string `json:"email,omitempty"`
}

// RunOutcome is what an event did to one matched automation.
type RunOutcome string

const (
	OutcomeStarted     RunOutcome = "started"
	OutcomeDuplicate   RunOutcome = "duplicate"
	OutcomeRateLimited RunOutcome = "rate_limited"
)

// RunResult is one entry of the event result's runs.
type RunResult struct {
	AutomationID string     `json:"automation_id"`
	Status       RunOutcome `json:"status"`
	RunID        string     `json:"run_id,omitempty"`
}

// EventResult is the answer of POST /api/v1/automations/events.
type EventResult struct {
	Event     string      `json:"event"`
	ContactID string      `json:"contact_id"`
	Matched   int         `json:"matched"`
	Started   int         `json:"started"`
	Runs      []RunResult `json:"runs"`
	Message   string      `json:"message,omitempty"`
}

// NothingListens is the message of an event no active automation listens for.
const NothingListens = "no active automation listens for this event: check the event name, and that the automation is active rather than a draft"

// Listener is an active automation listening for an event, at the
// version a run started now executes.
type Listener struct {
	AutomationID string
	Version      int
}
