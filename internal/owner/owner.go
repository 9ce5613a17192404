// Package owner is what a workspace owner does, and never an API key:
// workspaces, keys, domains and senders, held email, suppressions, webhook
// endpoints, automations. The console (cmd/sesame, signed in by AWS credentials) and
// the web dashboard call these methods; they parse input and render
// output, and the rules live here. Each concern declares the few store
// methods it uses, so any repository with those methods serves it.
package owner

import "fmt"

// Service is every owner action, one concern per field.
type Service struct {
	Workspaces   *Workspaces
	Keys         *Keys
	Domains      *Domains
	Senders      *Senders
	Held         *Held
	Captured     *Captured
	Suppressions *Suppressions
	Webhooks     *Webhooks
	Contacts     *Contacts
	Segments     *Segments
	Approvals    *Approvals
	Automations  *Automations
	// Owners sign in to the dashboard; Audit is the log of what they did.
	Owners *Owners
	Audit  *Audit
}

// InputError refuses an input of an owner action. Field is the input's
// name, one name for the console (its flag) and the dashboard (its form
// field), e.g. "monthly-allowance". The service returns it unwrapped, so
// a surface can name the input its own way.
type InputError struct {
	Field string
	// Value is the value refused, when the input takes several.
	Value string
	// Reason says what the input must be ("is required"), or Err is why
	// it was refused (a parse error).
	Reason string
	Err    error
}

func (e *InputError) Error() string {
	name := e.Field
	if e.Value != "" {
		name += fmt.Sprintf(" %q", e.Value)
	}
	if e.Err != nil {
		return name + ": " + e.Err.Error()
	}
	return name + " " + e.Reason
}

func (e *InputError) Unwrap() error { return e.Err }

// requireWorkspace refuses an action on no workspace: the store would
// read an empty id as an absent workspace, or act outside every one.
func requireWorkspace(id string) error {
	if id == "" {
		return &InputError{Field: "workspace", Reason: "is required"}
	}
	return nil
}
