package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/owner"
)

func (c *console) keysCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "keys", Short: "Manage API keys (shown once, stored as hashes)"}
	workspaceFlag(cmd)

	var env, preset, scopes, name string
	create := &cobra.Command{
		Use:   "create",
		Short: "Create a key and print it once",
		Args:  cobra.NoArgs,
		RunE: c.withOwner(func(cmd *cobra.Command, _ []string, svc *owner.Service) error {
			req := apikey.KeyRequest{WorkspaceID: c.cfg.WorkspaceID, Environment: apikey.Environment(env), Preset: apikey.Preset(preset), Name: name}
			if scopes != "" {
				req.Scopes = strings.Split(scopes, ",")
			}
			created, err := svc.Keys.Create(cmd.Context(), req)
			if err != nil {
				return err
			}
			return c.printKey(created)
		}),
	}
	create.Flags().StringVar(&env, "env", "live", "live or test")
	create.Flags().StringVar(&preset, "preset", "full", "full, send, read or custom")
	create.Flags().StringVar(&scopes, "scopes", "", "comma-separated scopes (custom preset only)")
	create.Flags().StringVar(&name, "name", "", "a label for the key")

	list := &cobra.Command{
		Use:   "list",
		Short: "List keys (no secrets)",
		Args:  cobra.NoArgs,
		RunE: c.withOwner(func(cmd *cobra.Command, _ []string, svc *owner.Service) error {
			keys, err := svc.Keys.List(cmd.Context(), c.cfg.WorkspaceID)
			if err != nil {
				return err
			}
			return c.print(keys, func(w io.Writer) {
				fmt.Fprintln(w, "ID\tNAME\tENV\tKEY\tSCOPES\tSTATE")
				for _, k := range keys {
					state := "active"
					if k.RevokedAt != nil {
						state = "revoked"
					}
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Name, k.Environment, k.Hint, scopeText(k.Scopes), state)
				}
			})
		}),
	}
	regenerate := &cobra.Command{
		Use:   "regenerate KEY_ID",
		Short: "Replace a key's secret; the old key stops working at once",
		Args:  cobra.ExactArgs(1),
		RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
			created, err := svc.Keys.Regenerate(cmd.Context(), c.cfg.WorkspaceID, args[0])
			if err != nil {
				return err
			}
			return c.printKey(created)
		}),
	}
	revoke := &cobra.Command{
		Use:   "revoke KEY_ID",
		Short: "Revoke a key; it stops working at once",
		Args:  cobra.ExactArgs(1),
		RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
			if err := svc.Keys.Revoke(cmd.Context(), c.cfg.WorkspaceID, args[0]); err != nil {
				return err
			}
			return c.print(map[string]string{"revoked": args[0]}, func(w io.Writer) { fmt.Fprintf(w, "revoked %s\n", args[0]) })
		}),
	}
	cmd.AddCommand(create, list, regenerate, revoke)
	return cmd
}

// printKey prints a key created or regenerated: the key in plain text,
// shown this once and never again.
func (c *console) printKey(k apikey.CreatedKey) error {
	return c.print(k, func(w io.Writer) {
		fmt.Fprintf(w, "%s\n\nid\t%s\nenv\t%s\nscopes\t%s\n\nStore the key now: it is shown only this once.\n", k.Key, k.Record.ID, k.Record.Environment, scopeText(k.Record.Scopes))
	})
}

func scopeText(scopes []apikey.Scope) string {
	if scopes == nil {
		return "full access (legacy)"
	}
	parts := make([]string, len(scopes))
	for i, s := range scopes {
		parts[i] = string(s)
	}
	return strings.Join(parts, ",")
}
