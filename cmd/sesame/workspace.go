package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sesame-mail/sesame/internal/owner"
	"github.com/sesame-mail/sesame/internal/workspace"
)

func (c *console) workspaceCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "workspace", Short: "Create and inspect workspaces"}
	var name string
	create := &cobra.Command{
		Use:   "create",
		Short: "Create a workspace and print its id",
		Args:  cobra.NoArgs,
		RunE: c.withOwner(func(cmd *cobra.Command, _ []string, svc *owner.Service) error {
			ws, err := svc.Workspaces.Create(cmd.Context(), name)
			if err != nil {
				return err
			}
			return c.print(ws, func(w io.Writer) { fmt.Fprintln(w, ws.ID) })
		}),
	}
	create.Flags().StringVar(&name, "name", "", "workspace name")
	list := &cobra.Command{
		Use:   "list",
		Short: "List workspaces",
		Args:  cobra.NoArgs,
		RunE: c.withOwner(func(cmd *cobra.Command, _ []string, svc *owner.Service) error {
			all, err := svc.Workspaces.List(cmd.Context())
			if err != nil {
				return err
			}
			return c.print(all, func(w io.Writer) {
				fmt.Fprintln(w, "ID\tNAME\tCREATED")
				for _, ws := range all {
					fmt.Fprintf(w, "%s\t%s\t%s\n", ws.ID, ws.Name, ws.CreatedAt.Format("2006-01-02 15:04"))
				}
			})
		}),
	}
	show := &cobra.Command{
		Use:   "show [ID]",
		Short: "Show one workspace (default: SESAME_WORKSPACE_ID)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := c.workspaceArg(args)
			if err != nil {
				return err
			}
			svc, err := c.owner(cmd.Context())
			if err != nil {
				return err
			}
			ws, err := svc.Workspaces.Get(cmd.Context(), id)
			if err != nil {
				return err
			}
			return c.printWorkspace(ws)
		},
	}
	cmd.AddCommand(create, list, show, c.workspaceSetCommand())
	return cmd
}

func (c *console) workspaceSetCommand() *cobra.Command {
	var allowance int
	var trackingOff bool
	var defaultTracking string
	var brands []string
	var postalAddress string
	var bulkApproved bool
	cmd := &cobra.Command{
		Use:   "set [ID]",
		Short: "Change a workspace's sending settings (default: SESAME_WORKSPACE_ID)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var change workspace.Settings
			flags := cmd.Flags()
			if flags.Changed("monthly-allowance") {
				change.MonthlyAllowance = &allowance
			}
			if flags.Changed("tracking-off-provisioned") {
				change.TrackingOffProvisioned = &trackingOff
			}
			if flags.Changed("default-tracking") {
				change.DefaultTracking = &defaultTracking
			}
			if flags.Changed("brands") {
				change.Brands = &brands
			}
			if flags.Changed("postal-address") {
				change.PostalAddress = &postalAddress
			}
			if flags.Changed("bulk-approved") {
				change.BulkApproved = &bulkApproved
			}
			id, err := c.workspaceArg(args)
			if err != nil {
				return err
			}
			svc, err := c.owner(cmd.Context())
			if err != nil {
				return err
			}
			ws, err := svc.Workspaces.Update(cmd.Context(), id, change)
			if errors.Is(err, workspace.ErrNothingToChange) {
				return fmt.Errorf("%w; see --help", err)
			}
			if err != nil {
				return err
			}
			return c.printWorkspace(ws)
		},
	}
	cmd.Flags().IntVar(&allowance, "monthly-allowance", 0, "live emails per calendar month (0: no cap)")
	cmd.Flags().BoolVar(&trackingOff, "tracking-off-provisioned", false, "allow tracking off on sends")
	cmd.Flags().StringVar(&defaultTracking, "default-tracking", "", "full, essential or off")
	cmd.Flags().StringSliceVar(&brands, "brands", nil, "brand names the workspace owns (comma-separated)")
	cmd.Flags().StringVar(&postalAddress, "postal-address", "", `the sender's postal address, one line, shown in every campaign's footer ("" clears it)`)
	cmd.Flags().BoolVar(&bulkApproved, "bulk-approved", false, "allow the workspace to draft bulk campaigns (POST /send/bulk); --bulk-approved=false revokes it")
	return cmd
}

// printWorkspace prints every setting of a workspace, each on its line,
// saying what an unset one means.
func (c *console) printWorkspace(ws workspace.Workspace) error {
	or := func(list []string, none string) string {
		if len(list) == 0 {
			return none
		}
		return strings.Join(list, ", ")
	}
	sender := "none (sends must give from or sender_id; set one with sesame senders add --default)"
	if d := ws.DefaultSender; d != nil {
		sender = d.Email + " (" + d.ID + ")"
		if d.Name != "" {
			sender = d.Name + " <" + d.Email + "> (" + d.ID + ")"
		}
		if len(d.ReplyTo) > 0 {
			sender += ", reply-to " + strings.Join(d.ReplyTo, ", ")
		}
	}
	tracking := ws.DefaultTracking
	if tracking == "" {
		tracking = "full (the default)"
	}
	allowance := fmt.Sprint(ws.MonthlyAllowance)
	if ws.MonthlyAllowance == 0 {
		allowance = "0 (no cap)"
	}
	return c.print(ws, func(w io.Writer) {
		fmt.Fprintf(w, "id\t%s\nname\t%s\ncreated\t%s\n", ws.ID, ws.Name, ws.CreatedAt.Format("2006-01-02 15:04:05 MST"))
		fmt.Fprintf(w, "verified domains\t%s\n", or(ws.VerifiedDomains, "none (sesame domains add, then domains status)"))
		fmt.Fprintf(w, "default sender\t%s\n", sender)
		fmt.Fprintf(w, "default tracking\t%s\n", tracking)
		fmt.Fprintf(w, "tracking off provisioned\t%v\n", ws.TrackingOffProvisioned)
		fmt.Fprintf(w, "monthly allowance\t%s\n", allowance)
		fmt.Fprintf(w, "brands\t%s\n", or(ws.Brands, "none (its name and verified domains only)"))
		fmt.Fprintf(w, "postal address\t%s\n", or(nonEmpty(ws.PostalAddress), "none (campaign footers need one: sesame workspace set --postal-address)"))
		fmt.Fprintf(w, "bulk approved\t%v\n", ws.BulkApproved)
	})
}

// nonEmpty is s as a list of one, or none when empty.
func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// workspaceArg is the workspace a command names, or else the console's
// default workspace (SESAME_WORKSPACE_ID).
func (c *console) workspaceArg(args []string) (string, error) {
	if len(args) == 1 {
		return args[0], nil
	}
	if c.cfg.WorkspaceID == "" {
		return "", &usageError{errors.New("name the workspace: give its id, or set SESAME_WORKSPACE_ID")}
	}
	return c.cfg.WorkspaceID, nil
}
