package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/owner"
)

func (c *console) sendersCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "senders", Short: "From addresses of the workspace"}
	var from string
	var replyTo []string
	var makeDefault bool
	workspaceFlag(cmd)
	add := &cobra.Command{
		Use:   "add",
		Short: "Add a sender (an address on a domain of the workspace)",
		Args:  cobra.NoArgs,
		RunE: c.withOwner(func(cmd *cobra.Command, _ []string, svc *owner.Service) error {
			s, err := svc.Senders.Add(cmd.Context(), identity.SenderRequest{
				WorkspaceID: c.cfg.WorkspaceID, From: from, ReplyTo: replyTo, Default: makeDefault,
			})
			if err != nil {
				return err
			}
			return c.print(s, func(w io.Writer) { fmt.Fprintln(w, s.ID) })
		}),
	}
	add.Flags().StringVar(&from, "from", "", `sender, e.g. "Acme <hello@acme.com>"`)
	add.Flags().StringSliceVar(&replyTo, "reply-to", nil, "default reply-to address(es)")
	add.Flags().BoolVar(&makeDefault, "default", false, "make it the workspace default sender")
	list := &cobra.Command{
		Use:   "list",
		Short: "List the workspace's senders",
		Args:  cobra.NoArgs,
		RunE: c.withOwner(func(cmd *cobra.Command, _ []string, svc *owner.Service) error {
			list, err := svc.Senders.List(cmd.Context(), c.cfg.WorkspaceID)
			if err != nil {
				return err
			}
			return c.print(list.Senders, func(w io.Writer) {
				fmt.Fprintln(w, "ID\tFROM\tREPLY-TO\tDEFAULT")
				for _, s := range list.Senders {
					def := ""
					if s.ID == list.DefaultID {
						def = "yes"
					}
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", s.ID, addressText(s), strings.Join(s.ReplyTo, ","), def)
				}
			})
		}),
	}
	cmd.AddCommand(add, list)
	return cmd
}

func addressText(s identity.Sender) string {
	a := s.Address()
	return a.String()
}
