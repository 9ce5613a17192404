package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/owner"
)

// automationRunCommands are `runs AUTOMATION_ID` and `run RUN_ID`, which
// `sesame automations` holds (its --workspace flag names the workspace).
func (c *console) automationRunCommands() []*cobra.Command {
	var page automation.RunPage
	runs := &cobra.Command{
		Use:   "runs AUTOMATION_ID",
		Short: "List an automation's runs, newest first",
		Args:  cobra.ExactArgs(1),
		RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
			list, err := svc.AutomationRuns.Runs(cmd.Context(), c.cfg.WorkspaceID, args[0], page)
			if err != nil {
				return err
			}
			return c.print(list, func(w io.Writer) {
				fmt.Fprintln(w, "RUN ID\tCONTACT\tSTATUS\tSTEP\tDUE\tSTARTED")
				for _, r := range list.Runs {
					fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%s\t%s\n", r.ID, r.ContactID, r.Status, r.Step, due(r), stamp(r.StartedAt))
				}
				if list.Next != "" {
					fmt.Fprintf(w, "more: --after %s\n", list.Next)
				}
			})
		}),
	}
	runs.Flags().IntVar(&page.Limit, "limit", automation.DefaultRunLimit, "how many runs to show at most (1 to 100)")
	runs.Flags().StringVar(&page.After, "after", "", "show the runs older than this run id (the previous page's last)")

	run := &cobra.Command{
		Use:   "run RUN_ID",
		Short: "Show one run and its step log",
		Args:  cobra.ExactArgs(1),
		RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
			r, err := svc.AutomationRuns.Run(cmd.Context(), c.cfg.WorkspaceID, args[0])
			if err != nil {
				return err
			}
			return c.print(r, func(w io.Writer) { printRun(w, r) })
		}),
	}
	return []*cobra.Command{runs, run}
}

// due is when a run's next step is due; an ended run has none.
func due(r automation.Run) string {
	if r.Status != automation.RunActive {
		return "-"
	}
	return stamp(r.DueAt)
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func printRun(w io.Writer, r automation.Run) {
	ended, reason := "-", r.Reason
	if r.EndedAt != nil {
		ended = stamp(*r.EndedAt)
	}
	if reason == "" {
		reason = "-"
	}
	fmt.Fprintf(w, "id\t%s\nautomation\t%s\nversion\t%d\ncontact\t%s\nevent\t%s\nevent_key\t%s\nenvironment\t%s\n",
		r.ID, r.AutomationID, r.Version, r.ContactID, r.Event, r.EventKey, r.Environment)
	fmt.Fprintf(w, "status\t%s\nreason\t%s\nstep\t%d\ndue\t%s\nstarted\t%s\nended\t%s\n", r.Status, reason, r.Step, due(r), stamp(r.StartedAt), ended)
	for _, k := range slices.Sorted(maps.Keys(r.Payload)) {
		fmt.Fprintf(w, "payload.%s\t%s\n", k, r.Payload[k])
	}
	fmt.Fprintln(w, "\nSTEP\tTYPE\tAT\tOUTCOME\tEMAIL\tDETAIL")
	for _, l := range r.Log {
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\n", l.Step, l.Type, stamp(l.At), l.Outcome, dash(l.EmailID), dash(l.Detail))
	}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
