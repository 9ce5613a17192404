package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/sesame-mail/sesame/internal/owner"
)

func (c *console) emailsCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "emails", Short: "The workspace's emails: an email's webhook deliveries"}
	workspaceFlag(cmd)
	deliveries := &cobra.Command{
		Use:   "deliveries EMAIL_ID",
		Short: "Show the attempts to deliver an email's events to the workspace's webhook endpoints, oldest first",
		Args:  cobra.ExactArgs(1),
		RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
			d, err := svc.Emails.Deliveries(cmd.Context(), c.cfg.WorkspaceID, args[0])
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
					fmt.Fprintf(w, "\nThe search stopped early (at most %d attempts since the email was sent, shared by the first %d endpoints): later deliveries may be missing; `sesame webhooks deliveries` lists an endpoint's attempts.\n", owner.DeliveriesExamined, owner.DeliveriesEndpoints)
				}
			})
		}),
	}
	cmd.AddCommand(deliveries)
	return cmd
}
