package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/mail"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/email"
)

// deps builds the services the functions use, for the held decisions,
// which queue the review of held email.
func (c *console) deps(ctx context.Context) (api.Deps, error) {
	table, err := c.cfg.RequireTable()
	if err != nil {
		return api.Deps{}, err
	}
	awsCfg, err := c.aws(ctx)
	if err != nil {
		return api.Deps{}, err
	}
	cfg := config.API{Table: table, ReviewQueueURL: c.cfg.ReviewQueueURL}
	return api.NewDeps(cfg, api.NewClients(awsCfg), api.NewLogger(slog.LevelWarn)), nil
}

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

func (c *console) heldCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "held", Short: "Emails held for the security review"}
	workspaceFlag(cmd)
	list := &cobra.Command{
		Use:   "list",
		Short: "List held emails",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.listEmails(cmd, email.Filter{Status: email.StatusHeld})
		},
	}
	decide := func(use, short string, cleared bool) *cobra.Command {
		return &cobra.Command{
			Use:   use + " EMAIL_ID",
			Short: short,
			Args:  cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				if err := requireWorkspace(c.cfg.WorkspaceID); err != nil {
					return err
				}
				deps, err := c.deps(cmd.Context())
				if err != nil {
					return err
				}
				if c.cfg.ReviewQueueURL == "" {
					return fmt.Errorf("SESAME_REVIEW_QUEUE_URL is not set: the review function releases held email (stack output ReviewQueueUrl, or .sesame/dev.env)")
				}
				if err := deps.Reviewer.OwnerDecision(cmd.Context(), c.cfg.WorkspaceID, args[0], cleared); err != nil {
					return fmt.Errorf("email %s: %w", args[0], err)
				}
				verb := map[bool]string{true: "cleared", false: "denied"}[cleared]
				return c.print(map[string]string{verb: args[0]}, func(w io.Writer) {
					fmt.Fprintf(w, "%s %s; the review function releases it (and any email waiting with its template) shortly\n", verb, args[0])
				})
			},
		}
	}
	cmd.AddCommand(list,
		decide("clear", "Clear the email's template: it is sent, and the emails waiting with it get their own check", true),
		decide("deny", "Deny the email's template: it and the emails waiting with it are not sent", false))
	return cmd
}

func (c *console) capturedCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "captured", Short: "Emails captured by test keys"}
	workspaceFlag(cmd)
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List emails captured in test mode (newest first)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.listEmails(cmd, email.Filter{Environment: apikey.Test})
		},
	})
	return cmd
}

func (c *console) listEmails(cmd *cobra.Command, f email.Filter) error {
	workspaceID := c.cfg.WorkspaceID
	store, err := c.workspaceStore(cmd.Context(), workspaceID)
	if err != nil {
		return err
	}
	// Every page: a filter reads at most 1,000 emails per call, so a held
	// email older than that is on a later page.
	views := []email.View{}
	for after, more := "", true; more; {
		var emails []email.Email
		emails, after, more, err = store.ListEmails(cmd.Context(), workspaceID, f, after, 100)
		if err != nil {
			return err
		}
		for _, e := range emails {
			views = append(views, e.View())
		}
	}
	return c.print(views, func(w io.Writer) {
		fmt.Fprintln(w, "ID\tSENT\tSTATUS\tENV\tTO\tSUBJECT")
		for _, v := range views {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", v.ID, v.SentAt, v.Status, v.Environment, v.To, v.Subject)
		}
	})
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
