package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/owner"
)

func (c *console) domainsCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "domains", Short: "Sending domains: add, verify, list"}
	workspaceFlag(cmd)
	add := &cobra.Command{
		Use:   "add DOMAIN",
		Short: "Create the SES identity (Easy DKIM) and print the DNS records to publish",
		Args:  cobra.ExactArgs(1),
		RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
			d, err := svc.Domains.Add(cmd.Context(), identity.DomainRequest{
				WorkspaceID: c.cfg.WorkspaceID, Name: args[0], ConfigurationSet: c.cfg.ConfigSetFull,
			})
			if err != nil {
				return err
			}
			return c.print(d, func(w io.Writer) {
				fmt.Fprintf(w, "Added %s (pending). Publish these DNS records, then run `sesame domains status %s`:\n\n", d.Name, d.Name)
				printRecords(w, d.Records)
			})
		}),
	}
	add.Flags().String("configuration-set", "", "default SES configuration set of the identity (env SESAME_CONFIG_SET_FULL)")
	status := &cobra.Command{
		Use:   "status DOMAIN",
		Short: "Read the domain's verification from SES and store it",
		Args:  cobra.ExactArgs(1),
		RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
			check, err := svc.Domains.Status(cmd.Context(), c.cfg.WorkspaceID, args[0])
			if err != nil {
				return err
			}
			d := check.Domain
			return c.print(d, func(w io.Writer) {
				fmt.Fprintf(w, "%s\t%s\t(DKIM %s)\n", d.Name, d.Status, check.DKIMStatus)
			})
		}),
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the workspace's domains",
		Args:  cobra.NoArgs,
		RunE: c.withOwner(func(cmd *cobra.Command, _ []string, svc *owner.Service) error {
			domains, err := svc.Domains.List(cmd.Context(), c.cfg.WorkspaceID)
			if err != nil {
				return err
			}
			return c.print(domains, func(w io.Writer) {
				fmt.Fprintln(w, "DOMAIN\tSTATUS\tADDED")
				for _, d := range domains {
					fmt.Fprintf(w, "%s\t%s\t%s\n", d.Name, d.Status, d.CreatedAt.Format("2006-01-02"))
				}
			})
		}),
	}
	cmd.AddCommand(add, status, list)
	return cmd
}

func printRecords(w io.Writer, records []identity.DNSRecord) {
	fmt.Fprintln(w, "TYPE\tNAME\tVALUE")
	for _, r := range records {
		fmt.Fprintf(w, "%s\t%s\t%s\n", r.Type, r.Name, r.Value)
	}
}
