package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/sesame-mail/sesame/internal/workspace"
)

func (c *console) workspaceCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "workspace", Short: "Create and inspect workspaces"}
	var name string
	create := &cobra.Command{
		Use:   "create",
		Short: "Create a workspace and print its id",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if name == "" {
				return fmt.Errorf("--name is required")
			}
			store, err := c.dynamo(cmd.Context())
			if err != nil {
				return err
			}
			ws, err := store.CreateWorkspace(cmd.Context(), name)
			if err != nil {
				return err
			}
			return c.print(ws, func(w io.Writer) { fmt.Fprintln(w, ws.ID) })
		},
	}
	create.Flags().StringVar(&name, "name", "", "workspace name")
	list := &cobra.Command{
		Use:   "list",
		Short: "List workspaces",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			store, err := c.dynamo(cmd.Context())
			if err != nil {
				return err
			}
			all, err := store.ListWorkspaces(cmd.Context())
			if err != nil {
				return err
			}
			if all == nil {
				all = []workspace.Workspace{}
			}
			return c.print(all, func(w io.Writer) {
				fmt.Fprintln(w, "ID\tNAME\tCREATED")
				for _, ws := range all {
					fmt.Fprintf(w, "%s\t%s\t%s\n", ws.ID, ws.Name, ws.CreatedAt.Format("2006-01-02 15:04"))
				}
			})
		},
	}
	show := &cobra.Command{
		Use:   "show ID",
		Short: "Show one workspace",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, err := c.dynamo(cmd.Context())
			if err != nil {
				return err
			}
			ws, err := store.GetWorkspace(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return c.print(ws, func(w io.Writer) {
				fmt.Fprintf(w, "id\t%s\nname\t%s\ncreated\t%s\n", ws.ID, ws.Name, ws.CreatedAt.Format("2006-01-02 15:04:05 MST"))
			})
		},
	}
	cmd.AddCommand(create, list, show)
	return cmd
}
