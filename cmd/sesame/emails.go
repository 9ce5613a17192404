package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/owner"
	"github.com/sesame-mail/sesame/internal/webhook"
)

func (c *console) emailsCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "emails", Short: "The workspace's emails: one email with its content, an email's webhook deliveries"}
	workspaceFlag(cmd)
	deliveries := &cobra.Command{
		Use:   "deliveries EMAIL_ID",
		Short: "Show the attempts to deliver an email's events to the workspace's webhook endpoints, oldest first",
		Args:  cobra.ExactArgs(1),
		RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
			m, err := svc.Emails.Get(cmd.Context(), c.cfg.WorkspaceID, args[0])
			if err != nil {
				return err
			}
			d, err := svc.Webhooks.DeliveriesOf(cmd.Context(), m)
			if err != nil {
				return err
			}
			return c.print(d, func(w io.Writer) {
				if len(d.Attempts) == 0 {
					fmt.Fprintln(w, "No webhook deliveries for this email.")
				} else {
					fmt.Fprintln(w, "TIME\tENDPOINT\tEVENT\tATTEMPT\tRESULT\tLATENCY")
				}
				for _, a := range d.Attempts {
					result := a.Error
					if result == "" {
						result = fmt.Sprintf("HTTP %d", a.StatusCode)
					}
					fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%s\t%dms\n", a.At.Format(time.RFC3339Nano), a.EndpointURL, a.EventType, a.Number, result, a.LatencyMS)
				}
				if d.Partial {
					fmt.Fprintf(w, "\nThe search stopped early (at most %d attempts since the email was sent, shared by the first %d endpoints): later deliveries may be missing; `sesame webhooks deliveries` lists an endpoint's attempts.\n", webhook.EmailDeliveriesExamined, webhook.EmailDeliveriesEndpoints)
				}
			})
		}),
	}
	show := &cobra.Command{
		Use:   "show EMAIL_ID",
		Short: "Show an email and its content as it went: subject, attachments, the text part and the html",
		Args:  cobra.ExactArgs(1),
		RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
			return c.showEmail(cmd.Context(), svc, args[0])
		}),
	}
	cmd.AddCommand(deliveries, show)
	return cmd
}

// shownEmail is `emails show`'s JSON: the API's Email object and its
// content, or why the content is not shown.
type shownEmail struct {
	Email     email.View   `json:"email"`
	Content   *contentView `json:"content"`
	NoContent string       `json:"content_not_shown,omitempty"`
}

type contentView struct {
	Subject     string                 `json:"subject"`
	Text        string                 `json:"text"`
	HTML        string                 `json:"html"`
	Attachments []email.AttachmentInfo `json:"attachments"`
}

func (c *console) showEmail(ctx context.Context, svc *owner.Service, id string) error {
	shown, err := svc.Emails.Show(ctx, c.cfg.WorkspaceID, id)
	if err != nil {
		return err
	}
	out := shownEmail{Email: shown.View()}
	content, err := svc.Emails.Content(ctx, c.cfg.WorkspaceID, shown.ID)
	var missing *email.ContentUnavailable
	switch {
	case errors.As(err, &missing):
		out.NoContent = missing.Reason
	case err != nil:
		return err
	default:
		out.Content = &contentView{Subject: content.Subject, Text: content.Text, HTML: content.HTML, Attachments: content.Attachments}
		if out.Content.Attachments == nil {
			out.Content.Attachments = []email.AttachmentInfo{}
		}
	}
	v := out.Email
	if err := c.print(out, func(w io.Writer) {
		fmt.Fprintf(w, "id\t%s\nsent\t%s\nstatus\t%s\ntype\t%s\nenvironment\t%s\nto\t%s\nsubject\t%s\n", v.ID, v.SentAt, v.Status, v.Type, v.Environment, v.To, v.Subject)
		if v.ScheduledAt != nil {
			fmt.Fprintf(w, "scheduled for\t%s\n", *v.ScheduledAt)
		}
		for _, t := range v.Tags {
			fmt.Fprintf(w, "tag\t%s\n", t.Key())
		}
		if out.Content == nil {
			fmt.Fprintf(w, "\nThe content is not shown: %s.\n", out.NoContent)
			return
		}
		if len(out.Content.Attachments) == 0 {
			fmt.Fprintln(w, "\nNo attachment.")
		} else {
			fmt.Fprintln(w, "\nATTACHMENT\tTYPE\tBYTES")
		}
		for _, a := range out.Content.Attachments {
			fmt.Fprintf(w, "%s\t%s\t%d\n", a.Filename, a.ContentType, a.Size)
		}
	}); err != nil || c.output == "json" || out.Content == nil {
		return err
	}
	// The parts go after the table, as they are: a tab in them is theirs.
	_, err = fmt.Fprintf(c.out, "\n--- text part ---\n%s\n--- html part ---\n%s\n", strings.TrimRight(out.Content.Text, "\n"), strings.TrimRight(out.Content.HTML, "\n"))
	return err
}
