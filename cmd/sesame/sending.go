package main

import (
	"context"
	"fmt"
	"io"
	"net/mail"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sesame-mail/sesame/internal/dynamo"
)

func requireWorkspace(id string) error {
	if id == "" {
		return fmt.Errorf("--workspace is required")
	}
	return nil
}

// workspaceStore is the store, once --workspace is known to be given.
func (c *console) workspaceStore(ctx context.Context, workspaceID string) (*dynamo.Store, error) {
	if err := requireWorkspace(workspaceID); err != nil {
		return nil, err
	}
	return c.dynamo(ctx)
}

func parseAddress(s string) (*mail.Address, error) {
	if strings.ContainsAny(s, "\r\n") {
		return nil, fmt.Errorf("line breaks are not allowed")
	}
	return mail.ParseAddress(s)
}

func (c *console) suppressionsCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "suppressions", Short: "The workspace's do-not-send list"}
	var reason string
	workspaceFlag(cmd)
	add := &cobra.Command{
		Use:   "add ADDRESS",
		Short: "Put an address on the do-not-send list",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := requireWorkspace(c.cfg.WorkspaceID); err != nil {
				return err
			}
			addr, err := parseAddress(args[0])
			if err != nil {
				return err
			}
			store, err := c.dynamo(cmd.Context())
			if err != nil {
				return err
			}
			if err := store.AddSuppression(cmd.Context(), c.cfg.WorkspaceID, addr.Address, reason); err != nil {
				return err
			}
			return c.print(map[string]string{"suppressed": addr.Address}, func(w io.Writer) { fmt.Fprintf(w, "suppressed %s\n", addr.Address) })
		},
	}
	add.Flags().StringVar(&reason, "reason", "manual", "why the address is suppressed")
	cmd.AddCommand(add)
	return cmd
}
