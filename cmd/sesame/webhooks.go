package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/owner"
	"github.com/sesame-mail/sesame/internal/webhook"
)

// webhookCreated is what `webhooks add` prints: the endpoint and its
// signing secret (retrievable later with `webhooks secret`).
type webhookCreated struct {
	Endpoint webhook.Endpoint `json:"endpoint"`
	Secret   string           `json:"secret"`
}

// webhookSecret is what `webhooks secret` prints.
type webhookSecret struct {
	ID     string `json:"id"`
	Secret string `json:"secret"`
}

// webhookRotated is what `webhooks rotate-secret` prints: the new secret
// and until when the one it replaced still signs beside it.
type webhookRotated struct {
	ID                  string    `json:"id"`
	Secret              string    `json:"secret"`
	PreviousSecretUntil time.Time `json:"previous_secret_until"`
}

func (c *console) webhooksCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "webhooks", Short: "Webhook endpoints: add, list, secrets and their rotation, enable/disable, delivery log"}
	workspaceFlag(cmd)

	var rawURL string
	var types []string
	var allowInsecure bool
	add := &cobra.Command{
		Use:   "add",
		Short: "Add an endpoint and print its id and signing secret",
		Args:  cobra.NoArgs,
		RunE: c.withOwner(func(cmd *cobra.Command, _ []string, svc *owner.Service) error {
			ep, err := svc.Webhooks.Add(cmd.Context(), webhook.EndpointRequest{
				WorkspaceID: c.cfg.WorkspaceID, URL: rawURL, Events: types, AllowInsecureHTTP: allowInsecure,
			})
			if err != nil {
				return err
			}
			return c.print(webhookCreated{Endpoint: ep, Secret: ep.Secret}, func(w io.Writer) {
				fmt.Fprintf(w, "id\t%s\nurl\t%s\nevents\t%s\nsecret\t%s\n\n", ep.ID, ep.URL, eventsText(ep.Events), ep.Secret)
				fmt.Fprintf(w, "Verify deliveries with this signing secret; it stays retrievable with `sesame webhooks secret %s`.\n", ep.ID)
			})
		}),
	}
	add.Flags().StringVar(&rawURL, "url", "", "https URL that receives the events")
	add.Flags().StringSliceVar(&types, "events", nil, "event types to send, comma-separated (default: all six)")
	add.Flags().BoolVar(&allowInsecure, "allow-insecure-http", false, "allow an http:// or loopback URL (local development only)")

	secret := &cobra.Command{
		Use:   "secret ENDPOINT_ID",
		Short: "Print an endpoint's signing secret",
		Args:  cobra.ExactArgs(1),
		RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
			secret, err := svc.Webhooks.Secret(cmd.Context(), c.cfg.WorkspaceID, args[0])
			if err != nil {
				return err
			}
			return c.print(webhookSecret{ID: args[0], Secret: secret}, func(w io.Writer) { fmt.Fprintln(w, secret) })
		}),
	}

	rotate := &cobra.Command{
		Use:   "rotate-secret ENDPOINT_ID",
		Short: "Give an endpoint a new signing secret; the old one also signs for 24 hours",
		Args:  cobra.ExactArgs(1),
		RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
			secret, err := svc.Webhooks.RotateSecret(cmd.Context(), c.cfg.WorkspaceID, args[0])
			if err != nil {
				return err
			}
			ep, err := svc.Webhooks.Endpoint(cmd.Context(), c.cfg.WorkspaceID, args[0])
			if err != nil {
				return err
			}
			out := webhookRotated{ID: ep.ID, Secret: secret}
			if ep.PreviousSecretUntil != nil {
				out.PreviousSecretUntil = *ep.PreviousSecretUntil
			}
			return c.print(out, func(w io.Writer) {
				fmt.Fprintf(w, "id\t%s\nsecret\t%s\n\n", out.ID, secret)
				fmt.Fprintf(w, "Until %s every delivery is signed with both the new and the previous secret (two v1= entries);\n"+
					"switch your receiver to the new secret before then. After that only the new secret signs.\n",
					out.PreviousSecretUntil.Format(time.RFC3339))
			})
		}),
	}

	list := &cobra.Command{
		Use:   "list",
		Short: "List the workspace's endpoints (no secrets)",
		Args:  cobra.NoArgs,
		RunE: c.withOwner(func(cmd *cobra.Command, _ []string, svc *owner.Service) error {
			eps, err := svc.Webhooks.List(cmd.Context(), c.cfg.WorkspaceID)
			if err != nil {
				return err
			}
			return c.print(eps, func(w io.Writer) {
				fmt.Fprintln(w, "ID\tURL\tEVENTS\tSTATE\tFAILURES\tLAST SUCCESS")
				for _, ep := range eps {
					last := "never"
					if ep.LastSuccessAt != nil {
						last = ep.LastSuccessAt.Format(time.RFC3339)
					}
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%s\n", ep.ID, ep.URL, eventsText(ep.Events), stateText(ep), ep.ConsecutiveFailures, last)
				}
			})
		}),
	}

	setEnabled := func(use, short string, set func(w *webhook.Service, ctx context.Context, workspaceID, id string) (webhook.Endpoint, error)) *cobra.Command {
		return &cobra.Command{
			Use:   use + " ENDPOINT_ID",
			Short: short,
			Args:  cobra.ExactArgs(1),
			RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
				ep, err := set(svc.Webhooks, cmd.Context(), c.cfg.WorkspaceID, args[0])
				if err != nil {
					return err
				}
				return c.print(ep, func(w io.Writer) { fmt.Fprintf(w, "%s %s\n", stateText(ep), ep.ID) })
			}),
		}
	}

	remove := &cobra.Command{
		Use:   "remove ENDPOINT_ID",
		Short: "Remove an endpoint; its pending deliveries are dropped",
		Args:  cobra.ExactArgs(1),
		RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
			if err := svc.Webhooks.Remove(cmd.Context(), c.cfg.WorkspaceID, args[0]); err != nil {
				return err
			}
			return c.print(map[string]string{"removed": args[0]}, func(w io.Writer) { fmt.Fprintf(w, "removed %s\n", args[0]) })
		}),
	}

	var limit int
	deliveries := &cobra.Command{
		Use:   "deliveries ENDPOINT_ID",
		Short: "Show an endpoint's delivery attempts, newest first",
		Args:  cobra.ExactArgs(1),
		RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
			attempts, err := svc.Webhooks.Deliveries(cmd.Context(), c.cfg.WorkspaceID, args[0], limit)
			if err != nil {
				return err
			}
			return c.print(attempts, func(w io.Writer) {
				fmt.Fprintln(w, "TIME\tEVENT\tATTEMPT\tSTATUS\tLATENCY\tERROR")
				for _, a := range attempts {
					status := "-"
					if a.StatusCode != 0 {
						status = fmt.Sprint(a.StatusCode)
					}
					fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%dms\t%s\n", a.At.Format(time.RFC3339Nano), a.EventID, a.Number, status, a.LatencyMS, a.Error)
				}
			})
		}),
	}
	deliveries.Flags().IntVar(&limit, "limit", 50, fmt.Sprintf("how many attempts to show (1 to %d)", webhook.MaxDeliveries))

	cmd.AddCommand(add, secret, rotate, list,
		setEnabled("enable", "Enable an endpoint again (clears its failure count)", (*webhook.Service).Enable),
		setEnabled("disable", "Disable an endpoint: its deliveries stop", (*webhook.Service).Disable),
		remove, deliveries)
	return cmd
}

func eventsText(types []event.Type) string {
	if len(types) == 0 {
		return "all"
	}
	s := make([]string, len(types))
	for i, t := range types {
		s[i] = string(t)
	}
	return strings.Join(s, ",")
}

func stateText(ep webhook.Endpoint) string {
	if ep.Enabled {
		return "enabled"
	}
	if ep.DisabledReason != "" {
		return "disabled (" + ep.DisabledReason + ")"
	}
	return "disabled"
}
