package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/sesame-mail/sesame/internal/owner"
)

func (c *console) suppressionsCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "suppressions", Short: "The workspace's do-not-send list"}
	var reason string
	workspaceFlag(cmd)
	add := &cobra.Command{
		Use:   "add ADDRESS",
		Short: "Put an address on the do-not-send list",
		Args:  cobra.ExactArgs(1),
		RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
			address, err := svc.Suppressions.Add(cmd.Context(), c.cfg.WorkspaceID, args[0], reason)
			if err != nil {
				return err
			}
			return c.print(map[string]string{"suppressed": address}, func(w io.Writer) { fmt.Fprintf(w, "suppressed %s\n", address) })
		}),
	}
	add.Flags().StringVar(&reason, "reason", owner.ManualReason, "why the address is suppressed")
	cmd.AddCommand(add)
	return cmd
}
