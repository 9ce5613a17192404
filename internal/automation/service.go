package automation

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/ident"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// AutomationStore keeps a workspace's automations: each edit a new kept
// version, activation under the per-event limit (automationdb.Automations).
type AutomationStore interface {
	CreateAutomation(ctx context.Context, a Automation) (Automation, error)
	GetAutomation(ctx context.Context, workspaceID, id string) (Automation, error)
	ListAutomations(ctx context.Context, workspaceID string) ([]Automation, error)
	UpdateAutomation(ctx context.Context, read Automation, d Definition) (Automation, error)
	ActivateAutomation(ctx context.Context, read Automation) (Automation, error)
	DeactivateAutomation(ctx context.Context, read Automation) (Automation, error)
}

// SenderReader reads one sender of a workspace.
type SenderReader interface {
	GetSender(ctx context.Context, workspaceID, id string) (identity.Sender, error)
}

// Service is the owner's automation definitions: create from a
// blueprint or a definition, list, show, edit, activate, deactivate. An
// API key never reaches them; it only reports events.
type Service struct {
	Store      AutomationStore
	Senders    SenderReader
	Workspaces workspace.Reader
}

// AutomationRequest asks for a new automation: from a blueprint or from
// a definition written as JSON (a file), exactly one; Name and Event,
// when set, replace the source's.
type AutomationRequest struct {
	WorkspaceID string
	Blueprint   string
	Definition  []byte
	Name, Event string
}

// AutomationEdit changes an automation: a whole new definition (JSON),
// and/or its name or event (nil: unchanged). Version, when not 0, is the
// version the edit was made from: another one refuses the edit
// (ErrAutomationChanged), so a form kept open does not undo a later save.
type AutomationEdit struct {
	Definition  []byte
	Name, Event *string
	Version     int
}

// ActivationError refuses to make an automation active, or to edit an
// active one into what could not be: every problem, each with where it is.
type ActivationError struct {
	ID       string
	Problems Problems
}

func (e *ActivationError) Error() string {
	return fmt.Sprintf("automation %s cannot be active:\n%s", e.ID, e.Problems)
}

func (e *ActivationError) Unwrap() error { return e.Problems }

// ErrAutomationChanged refuses an edit or a status change of an
// automation someone changed meanwhile; read it again and retry.
var ErrAutomationChanged error = fail.Errorf(fail.KindConflict, "", "", "the automation changed meanwhile (edited, activated or deactivated); show it again and retry")

// Create stores a new draft automation from a blueprint or a definition;
// the draft is checked as a definition (Check), not yet for activation.
func (s *Service) Create(ctx context.Context, req AutomationRequest) (Automation, error) {
	if err := ident.RequireWorkspace(req.WorkspaceID); err != nil {
		return Automation{}, err
	}
	var d Definition
	var err error
	source := "file"
	switch {
	case (req.Blueprint == "") == (req.Definition == nil):
		return Automation{}, fail.Invalid("blueprint", "blueprint or file is required, one of them")
	case req.Blueprint != "":
		source = "blueprint"
		if d, err = Blueprint(req.Blueprint); err != nil {
			return Automation{}, fail.Refused(source, err)
		}
	default:
		if d, err = ParseDefinition(req.Definition); err != nil {
			return Automation{}, fail.Refused(source, err)
		}
	}
	if req.Name != "" {
		d.Name = req.Name
	}
	if req.Event != "" {
		d.Event = req.Event
	}
	if err := definitionError(source, d.Check()); err != nil {
		return Automation{}, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return Automation{}, err
	}
	return s.Store.CreateAutomation(ctx, Automation{
		ID: id.String(), WorkspaceID: req.WorkspaceID, Name: d.Name, Event: d.Event,
		Status: StatusDraft, Steps: d.Steps,
	})
}

// List returns the workspace's automations, oldest first.
func (s *Service) List(ctx context.Context, workspaceID string) ([]Automation, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return nil, err
	}
	return s.Store.ListAutomations(ctx, workspaceID)
}

// Show reads one automation with its current steps.
func (s *Service) Show(ctx context.Context, workspaceID, id string) (Automation, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return Automation{}, err
	}
	a, err := s.Store.GetAutomation(ctx, workspaceID, strings.ToLower(strings.TrimSpace(id)))
	if errors.Is(err, ErrNotFound) {
		return Automation{}, fail.Errorf(fail.KindNotFound, "", "automation", "automation %q is not an automation of the workspace", id)
	}
	return a, err
}

// Edit writes a new version of an automation: runs started afterwards
// execute it, runs under way keep theirs, and the event_keys it saw stay
// seen. An active automation stays active only with a definition that
// activates (ActivationError), and keeps its event (deactivate first).
func (s *Service) Edit(ctx context.Context, workspaceID, id string, edit AutomationEdit) (Automation, error) {
	a, err := s.Show(ctx, workspaceID, id)
	if err != nil {
		return Automation{}, err
	}
	if edit.Version != 0 && edit.Version != a.Version {
		return Automation{}, ErrAutomationChanged
	}
	d, source := a.Definition(), "name"
	if edit.Definition != nil {
		if d, err = ParseDefinition(edit.Definition); err != nil {
			return Automation{}, fail.Refused("file", err)
		}
		source = "file"
	} else if edit.Name == nil && edit.Event == nil {
		return Automation{}, fail.Invalid("file", "file or name or event is required: nothing to change")
	}
	if edit.Name != nil {
		d.Name = *edit.Name
	}
	if edit.Event != nil {
		d.Event = *edit.Event
	}
	if err := definitionError(source, d.Check()); err != nil {
		return Automation{}, err
	}
	if a.Status == StatusActive {
		if d.Event != a.Event {
			return Automation{}, fail.Invalid("event", "event of an active automation stays %s: deactivate it, edit, and activate it again", a.Event)
		}
		if err := s.checkActivation(ctx, a.ID, workspaceID, d); err != nil {
			return Automation{}, err
		}
	}
	edited, err := s.Store.UpdateAutomation(ctx, a, d)
	if errors.Is(err, ErrConflict) {
		return Automation{}, ErrAutomationChanged
	}
	return edited, err
}

// Activate makes an automation receive events, after checking that it
// can: a valid event name, every send step rendering with its fallbacks,
// its senders verified, waits in range, and room among the event's
// MaxActivePerEvent. An active automation is returned as it is.
func (s *Service) Activate(ctx context.Context, workspaceID, id string) (Automation, error) {
	a, err := s.Show(ctx, workspaceID, id)
	if err != nil || a.Status == StatusActive {
		return a, err
	}
	if err := s.checkActivation(ctx, a.ID, workspaceID, a.Definition()); err != nil {
		return Automation{}, err
	}
	active, err := s.Store.ActivateAutomation(ctx, a)
	switch {
	case errors.Is(err, ErrEventFull):
		return Automation{}, &ActivationError{ID: a.ID, Problems: Problems{{
			Path: "event", Message: fmt.Sprintf("%s: %s", a.Event, err),
		}}}
	case errors.Is(err, ErrConflict):
		return Automation{}, ErrAutomationChanged
	}
	return active, err
}

// Deactivate stops an automation receiving events; runs under way go on.
// An automation that is not active is returned as it is.
func (s *Service) Deactivate(ctx context.Context, workspaceID, id string) (Automation, error) {
	a, err := s.Show(ctx, workspaceID, id)
	if err != nil || a.Status != StatusActive {
		return a, err
	}
	inactive, err := s.Store.DeactivateAutomation(ctx, a)
	if errors.Is(err, ErrConflict) {
		return Automation{}, ErrAutomationChanged
	}
	return inactive, err
}

// checkActivation is every problem keeping d from being active: the
// definition's (CheckActivation), the workspace's postal address when d
// sends, and each send step's sender, the workspace's default or the one
// sender_id names, on a verified domain of the workspace.
func (s *Service) checkActivation(ctx context.Context, id, workspaceID string, d Definition) error {
	p := d.CheckActivation()
	ws, err := s.Workspaces.GetWorkspace(ctx, workspaceID)
	if err != nil {
		return err
	}
	refusals := map[string]string{} // by sender id, "" the default
	for i, step := range d.Steps {
		if step.Type != StepSend {
			continue
		}
		if ws.PostalAddress == "" && len(refusals) == 0 {
			p = append(p, Problem{Path: "postal_address", Message: errNoFooterAddress})
		}
		why, seen := refusals[step.SenderID]
		if !seen {
			if why, err = s.senderRefusal(ctx, ws, step.SenderID); err != nil {
				return err
			}
			refusals[step.SenderID] = why
		}
		if why != "" {
			p = append(p, Problem{Path: fmt.Sprintf("steps[%d].sender_id", i), Message: why})
		}
	}
	if len(p) > 0 {
		return &ActivationError{ID: id, Problems: p}
	}
	return nil
}

// errNoFooterAddress refuses to activate sends of a workspace without the
// postal address every automation email's footer shows (as approving a
// campaign does): the runner could compose none of them.
const errNoFooterAddress = "the workspace has no postal address for the footer of automation emails; set one with `sesame workspace set --postal-address \"…\"`"

// senderRefusal says why a send naming senderID ("" the default) could
// not send from ws now, "" when it could.
func (s *Service) senderRefusal(ctx context.Context, ws workspace.Workspace, senderID string) (string, error) {
	if senderID == "" {
		_, err := sending.DefaultSender(ws)
		return refusal(err)
	}
	sender, err := s.Senders.GetSender(ctx, ws.ID, senderID)
	if errors.Is(err, identity.ErrSenderNotFound) {
		return "no sender with this id in the workspace (see `sesame senders list`)", nil
	}
	if err != nil {
		return "", err
	}
	return refusal(sending.CheckSender(ws, sender))
}

// refusal is the message of a sender's refusal, or err itself when it
// is not a refusal (a store fault).
func refusal(err error) (string, error) {
	if err == nil {
		return "", nil
	}
	if f, ok := fail.As(err); ok && !f.Transient && f.Kind != fail.KindInternal {
		return f.Message, nil
	}
	return "", err
}

// definitionError is p as an input error: a lone problem of the name or
// the event names that input, others the source the definition came from.
func definitionError(source string, p Problems) error {
	switch {
	case len(p) == 0:
		return nil
	case len(p) == 1 && (p[0].Path == "name" || p[0].Path == "event"):
		return fail.Refused(p[0].Path, errors.New(p[0].Message))
	}
	return fail.Refused(source, p)
}
