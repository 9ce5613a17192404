package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/sesame-mail/sesame/internal/owner"
	"github.com/sesame-mail/sesame/internal/suppression"
)

// suppressionAdded is what `suppressions add` prints: the entry, and
// whether this command added it (false: it was listed already, unchanged).
type suppressionAdded struct {
	suppression.View
	Created bool `json:"created"`
}

func (c *console) suppressionsCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "suppressions", Short: "The workspace's do-not-send list: list, add, remove"}
	workspaceFlag(cmd)

	var reason string
	add := &cobra.Command{
		Use:   "add ADDRESS",
		Short: "Put an address on the do-not-send list (listed already: left as it is)",
		Args:  cobra.ExactArgs(1),
		RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
			s, created, err := svc.Suppressions.Add(cmd.Context(), c.cfg.WorkspaceID, args[0], reason)
			if err != nil {
				return err
			}
			return c.print(suppressionAdded{View: s.View(), Created: created}, func(w io.Writer) {
				if created {
					fmt.Fprintf(w, "suppressed %s\n", s.Email)
					return
				}
				fmt.Fprintf(w, "%s was suppressed already (%s, %s)\n", s.Email, s.Reason, s.View().CreatedAt)
			})
		}),
	}
	add.Flags().StringVar(&reason, "reason", suppression.ManualReason, "why: bounced, complained, unsubscribed or manual")

	var filter struct{ email, reason string }
	list := &cobra.Command{
		Use:   "list",
		Short: "List the do-not-send list, newest first",
		Args:  cobra.NoArgs,
		RunE: c.withOwner(func(cmd *cobra.Command, _ []string, svc *owner.Service) error {
			all, err := svc.Suppressions.List(cmd.Context(), c.cfg.WorkspaceID, suppression.Filter{Email: filter.email, Reason: suppression.Reason(filter.reason)})
			if err != nil {
				return err
			}
			views := make([]suppression.View, len(all))
			for i, s := range all {
				views[i] = s.View()
			}
			return c.print(views, func(w io.Writer) {
				fmt.Fprintln(w, "EMAIL\tREASON\tEMAIL ID\tCREATED")
				for _, v := range views {
					emailID := "-"
					if v.EmailID != nil {
						emailID = *v.EmailID
					}
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", v.Email, v.Reason, emailID, v.CreatedAt)
				}
			})
		}),
	}
	list.Flags().StringVar(&filter.email, "email", "", "only this address")
	list.Flags().StringVar(&filter.reason, "reason", "", "only this reason: bounced, complained, unsubscribed or manual")

	remove := &cobra.Command{
		Use:   "remove ADDRESS",
		Short: "Take an address off the do-not-send list: email goes to it again",
		Args:  cobra.ExactArgs(1),
		RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
			s, err := svc.Suppressions.Remove(cmd.Context(), c.cfg.WorkspaceID, args[0])
			if err != nil {
				return err
			}
			return c.print(s.View(), func(w io.Writer) { fmt.Fprintf(w, "removed %s (%s)\n", s.Email, s.Reason) })
		}),
	}
	cmd.AddCommand(list, add, remove)
	return cmd
}
