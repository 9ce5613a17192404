package automation

import (
	"context"

	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/ident"
)

// RunReader reads automation runs (automationdb.AutomationRuns).
type RunReader interface {
	// ListRuns reads a page of an automation's runs, newest first, after
	// the run id after ("" for the first page).
	ListRuns(ctx context.Context, workspaceID, automationID, after string, limit int) ([]Run, string, bool, error)
	// GetRuns reads runs by automation and run id in BatchGetItems; a
	// missing one is left out.
	GetRuns(ctx context.Context, workspaceID string, refs []WakeMessage) ([]Run, error)
	// AutomationIDs are the ids of the workspace's automations.
	AutomationIDs(ctx context.Context, workspaceID string) ([]string, error)
}

// Runs is the owner's reads of automation runs: an
// automation's runs, and one run with its step log.
type Runs struct {
	Store RunReader
}

// RunPage asks for the runs after After (a run id, "" for the newest), at
// most Limit of them (0: DefaultRunLimit).
type RunPage struct {
	After string
	Limit int
}

// RunList is a page of runs, newest first; Next is the After of the page
// that follows, "" when none does.
type RunList struct {
	Runs []Run  `json:"runs"`
	Next string `json:"next,omitempty"`
}

// DefaultRunLimit and MaxRunLimit bound a page of runs.
const (
	DefaultRunLimit = 50
	MaxRunLimit     = 100
)

// Runs is a page of an automation's runs, newest first (one Query). An
// automation without runs, or not of the workspace, has none.
func (a *Runs) Runs(ctx context.Context, workspaceID, automationID string, page RunPage) (RunList, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return RunList{}, err
	}
	id, err := ident.Parse(automationID)
	if err != nil {
		return RunList{}, fail.Errorf(fail.KindNotFound, "", "automation", "automation %q is not an automation id", automationID)
	}
	limit := page.Limit
	switch {
	case limit == 0:
		limit = DefaultRunLimit
	case limit < 1 || limit > MaxRunLimit:
		return RunList{}, fail.Invalid("limit", "limit must be between 1 and 100")
	}
	after := ""
	if page.After != "" {
		p, err := ident.Parse(page.After)
		if err != nil {
			return RunList{}, fail.Invalid("after", "after %q is not a run id", page.After)
		}
		after = p.String()
	}
	runs, next, more, err := a.Store.ListRuns(ctx, workspaceID, id.String(), after, limit)
	if err != nil {
		return RunList{}, err
	}
	out := RunList{Runs: runs}
	if out.Runs == nil {
		out.Runs = []Run{}
	}
	if more {
		out.Next = next
	}
	return out, nil
}

// Run is one run of the workspace, found by its id alone: runs are kept
// under their automation, so every automation of the workspace is asked
// for it at once (one Query of the automation ids, then BatchGetItems of
// 100 keys).
func (a *Runs) Run(ctx context.Context, workspaceID, runID string) (Run, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return Run{}, err
	}
	notFound := fail.Errorf(fail.KindNotFound, "", "run", "run %q is not a run of the workspace", runID)
	id, err := ident.Parse(runID)
	if err != nil {
		return Run{}, notFound
	}
	automations, err := a.Store.AutomationIDs(ctx, workspaceID)
	if err != nil || len(automations) == 0 {
		return Run{}, orNotFound(err, notFound)
	}
	refs := make([]WakeMessage, 0, len(automations))
	for _, automationID := range automations {
		refs = append(refs, WakeMessage{WorkspaceID: workspaceID, AutomationID: automationID, RunID: id.String()})
	}
	found, err := a.Store.GetRuns(ctx, workspaceID, refs)
	if err != nil || len(found) == 0 {
		return Run{}, orNotFound(err, notFound)
	}
	// A UUIDv7 is made once: two automations never hold the same run id.
	return found[0], nil
}

// orNotFound is err, or notFound when there was none.
func orNotFound(err error, notFound *fail.Error) error {
	if err != nil {
		return err
	}
	return notFound
}
