package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/sesame-mail/sesame/internal/owner"
)

func (c *console) ownersCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "owners", Short: "Who signs in to the workspace's dashboard: add, remove, list"}
	workspaceFlag(cmd)

	add := &cobra.Command{
		Use:   "add EMAIL",
		Short: "Let EMAIL sign in to the workspace's dashboard (by a link emailed to it)",
		Args:  cobra.ExactArgs(1),
		RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
			o, err := svc.Owners.Add(cmd.Context(), c.cfg.WorkspaceID, args[0])
			if err != nil {
				return flagged(cmd, err)
			}
			return c.print(o, func(w io.Writer) { fmt.Fprintf(w, "%s owns workspace %s\n", o.Address, o.WorkspaceID) })
		}),
	}
	remove := &cobra.Command{
		Use:   "remove EMAIL",
		Short: "Stop EMAIL signing in to the workspace's dashboard (its sessions end at their next request)",
		Args:  cobra.ExactArgs(1),
		RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
			if err := svc.Owners.Remove(cmd.Context(), c.cfg.WorkspaceID, args[0]); err != nil {
				return err
			}
			return c.print(map[string]string{"removed": args[0]}, func(w io.Writer) { fmt.Fprintf(w, "removed %s\n", args[0]) })
		}),
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the workspace's owners",
		Args:  cobra.NoArgs,
		RunE: c.withOwner(func(cmd *cobra.Command, _ []string, svc *owner.Service) error {
			all, err := svc.Owners.List(cmd.Context(), c.cfg.WorkspaceID)
			if err != nil {
				return err
			}
			return c.print(all, func(w io.Writer) {
				fmt.Fprintln(w, "EMAIL\tADDED")
				for _, o := range all {
					fmt.Fprintf(w, "%s\t%s\n", o.Address, o.AddedAt.Format("2006-01-02T15:04:05Z"))
				}
			})
		}),
	}
	cmd.AddCommand(add, remove, list)
	return cmd
}
