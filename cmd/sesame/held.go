package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/owner"
	"github.com/sesame-mail/sesame/internal/sending"
)

func (c *console) heldCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "held", Short: "Emails held for the security review"}
	workspaceFlag(cmd)
	list := &cobra.Command{
		Use:   "list",
		Short: "List held emails and why each is held",
		Args:  cobra.NoArgs,
		RunE: c.withOwner(func(cmd *cobra.Command, _ []string, svc *owner.Service) error {
			held, err := svc.Held.List(cmd.Context(), c.cfg.WorkspaceID)
			if err != nil {
				return err
			}
			return c.printHeld(held)
		}),
	}
	decide := func(use, short, verb string, decision func(h *sending.Held, ctx context.Context, workspaceID, emailID string) error) *cobra.Command {
		return &cobra.Command{
			Use:   use + " EMAIL_ID",
			Short: short,
			Args:  cobra.ExactArgs(1),
			RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
				err := decision(svc.Held, cmd.Context(), c.cfg.WorkspaceID, args[0])
				if errors.Is(err, sending.ErrNoReviewQueue) {
					return fmt.Errorf("SESAME_REVIEW_QUEUE_URL is not set: the review function releases held email (stack output ReviewQueueUrl, or .sesame/dev.env)")
				}
				if err != nil {
					return err
				}
				return c.print(map[string]string{verb: args[0]}, func(w io.Writer) {
					fmt.Fprintf(w, "%s %s; the review function releases it (and any email waiting with its template) shortly\n", verb, args[0])
				})
			}),
		}
	}
	cmd.AddCommand(list,
		decide("clear", "Clear the email's template: it is sent, and the emails waiting with it get their own check", "cleared", (*sending.Held).Clear),
		decide("deny", "Deny the email's template: it and the emails waiting with it are not sent", "denied", (*sending.Held).Deny))
	return cmd
}

func (c *console) capturedCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "captured", Short: "Emails captured by test keys"}
	workspaceFlag(cmd)
	var raw bool
	show := &cobra.Command{
		Use:   "show ID",
		Short: "Show one captured email; --raw prints its exact MIME (kept by the local stack only)",
		Args:  cobra.ExactArgs(1),
		RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
			if raw {
				msg, err := svc.Captured.Message(cmd.Context(), c.cfg.WorkspaceID, args[0])
				if errors.Is(err, email.ErrNoRawMessages) {
					return fmt.Errorf("%w: for the local stack, source its settings (set -a; . .sesame/dev.env; set +a), whose SESAME_LOCAL_DATA names where they are", err)
				}
				if err != nil {
					return err
				}
				_, err = c.out.Write(msg)
				return err
			}
			e, err := svc.Captured.Get(cmd.Context(), c.cfg.WorkspaceID, args[0])
			if err != nil {
				return err
			}
			v := e.View()
			return c.print(v, func(w io.Writer) {
				fmt.Fprintf(w, "id\t%s\nsent\t%s\nstatus\t%s\nenvironment\t%s\nto\t%s\nsubject\t%s\n", v.ID, v.SentAt, v.Status, v.Environment, v.To, v.Subject)
			})
		}),
	}
	show.Flags().BoolVar(&raw, "raw", false, "print the message's exact MIME (message/rfc822), as the test key's send built it")
	cmd.AddCommand(show, &cobra.Command{
		Use:   "list",
		Short: "List emails captured in test mode (newest first)",
		Args:  cobra.NoArgs,
		RunE: c.withOwner(func(cmd *cobra.Command, _ []string, svc *owner.Service) error {
			captured, err := svc.Captured.List(cmd.Context(), c.cfg.WorkspaceID)
			if err != nil {
				return err
			}
			return c.printEmails(captured)
		}),
	})
	return cmd
}

// heldView is a held email as the API shows it, and why it is held.
type heldView struct {
	email.View
	HeldBecause []string `json:"held_because"`
}

// printHeld prints held emails with their reasons.
func (c *console) printHeld(held []sending.HeldEntry) error {
	views := make([]heldView, len(held))
	for i, h := range held {
		views[i] = heldView{View: h.View(), HeldBecause: h.Reasons}
	}
	return c.print(views, func(w io.Writer) {
		fmt.Fprintln(w, "ID\tSENT\tSTATUS\tENV\tTO\tSUBJECT\tHELD BECAUSE")
		for _, v := range views {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", v.ID, v.SentAt, v.Status, v.Environment, v.To, v.Subject, strings.Join(v.HeldBecause, "; "))
		}
	})
}

// printEmails prints emails as the API shows them.
func (c *console) printEmails(emails []email.Email) error {
	views := make([]email.View, len(emails))
	for i, e := range emails {
		views[i] = e.View()
	}
	return c.print(views, func(w io.Writer) {
		fmt.Fprintln(w, "ID\tSENT\tSTATUS\tENV\tTO\tSUBJECT")
		for _, v := range views {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", v.ID, v.SentAt, v.Status, v.Environment, v.To, v.Subject)
		}
	})
}
