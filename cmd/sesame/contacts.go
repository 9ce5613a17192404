package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/owner"
)

// importResult is what `contacts import` prints.
type importResult struct {
	contact.Report
	Errors []string `json:"errors"`
}

func (c *console) contactsCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "contacts", Short: "The workspace's contacts: import a CSV file, list, show, delete"}
	workspaceFlag(cmd)

	imp := &cobra.Command{
		Use:   "import FILE.csv",
		Short: "Create or update contacts from a CSV file (header: email, first_name, last_name, tags, any other column a property)",
		Args:  cobra.ExactArgs(1),
		RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
			f, err := os.Open(args[0])
			if err != nil {
				return err
			}
			defer f.Close()
			progress := func(r contact.Report) {
				fmt.Fprintf(cmd.ErrOrStderr(), "%d rows: %d created, %d updated, %d refused\n", r.Rows, r.Created, r.Updated, len(r.Failed))
			}
			rep, err := svc.Contacts.Import(cmd.Context(), c.cfg.WorkspaceID, f, progress)
			if err != nil {
				return err
			}
			res := importResult{Report: rep, Errors: make([]string, 0, len(rep.Failed))}
			for _, e := range rep.Failed {
				res.Errors = append(res.Errors, e.Error())
			}
			return c.print(res, func(w io.Writer) {
				fmt.Fprintf(w, "rows\t%d\ncreated\t%d\nupdated\t%d\nrefused\t%d\n", rep.Rows, rep.Created, rep.Updated, len(rep.Failed))
				for _, e := range res.Errors {
					fmt.Fprintln(w, e)
				}
			})
		}),
	}

	var limit int
	var email, tag, subscribed string
	list := &cobra.Command{
		Use:   "list",
		Short: "List contacts, newest first",
		Args:  cobra.NoArgs,
		RunE: c.withOwner(func(cmd *cobra.Command, _ []string, svc *owner.Service) error {
			f := contact.Filter{Email: email, Tag: tag}
			switch subscribed {
			case "":
			case "true", "false":
				f.Subscribed = new(subscribed == "true")
			default:
				return fail.Invalid("subscribed", "subscribed must be true or false")
			}
			cs, err := svc.Contacts.List(cmd.Context(), c.cfg.WorkspaceID, f, limit)
			if err != nil {
				return err
			}
			views := make([]contact.View, 0, len(cs))
			for _, ct := range cs {
				views = append(views, ct.View())
			}
			return c.print(views, func(w io.Writer) {
				fmt.Fprintln(w, "ID\tEMAIL\tSUBSCRIBED\tTAGS\tCREATED")
				for _, v := range views {
					fmt.Fprintf(w, "%s\t%s\t%v\t%s\t%s\n", v.ID, v.Email, v.Subscribed, strings.Join(v.Tags, ","), v.CreatedAt)
				}
			})
		}),
	}
	list.Flags().IntVar(&limit, "limit", 50, "how many contacts to show at most")
	list.Flags().StringVar(&email, "email", "", "only the contact with this address")
	list.Flags().StringVar(&tag, "tag", "", "only contacts with this tag")
	list.Flags().StringVar(&subscribed, "subscribed", "", "only subscribed (true) or unsubscribed (false) contacts")

	var withEmails bool
	show := &cobra.Command{
		Use:   "show ID|EMAIL",
		Short: "Show one contact",
		Args:  cobra.ExactArgs(1),
		RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
			ct, err := svc.Contacts.Show(cmd.Context(), c.cfg.WorkspaceID, args[0])
			if err != nil {
				return err
			}
			if !withEmails {
				return c.print(ct.View(), func(w io.Writer) { printContact(w, ct.View()) })
			}
			sent, err := svc.Contacts.EmailsTo(cmd.Context(), c.cfg.WorkspaceID, ct)
			if err != nil {
				return err
			}
			return c.print(sent, func(w io.Writer) {
				printContact(w, ct.View())
				fmt.Fprintln(w, "\nEMAIL\tSTATUS\tSENT\tSUBJECT")
				for _, e := range sent {
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", e.ID, e.Status, e.SentAt.Format("2006-01-02 15:04"), e.Subject)
				}
			})
		}),
	}
	show.Flags().BoolVar(&withEmails, "emails", false, fmt.Sprintf("also list the emails to the contact among the workspace's newest %d (with --json: the emails only)", contact.EmailsScanned))

	del := &cobra.Command{
		Use:   "delete ID|EMAIL",
		Short: "Delete a contact and its personal data (a do-not-send entry stays)",
		Args:  cobra.ExactArgs(1),
		RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
			ct, err := svc.Contacts.Show(cmd.Context(), c.cfg.WorkspaceID, args[0])
			if err != nil {
				return err
			}
			if err := svc.Contacts.Delete(cmd.Context(), c.cfg.WorkspaceID, ct.ID); err != nil {
				return err
			}
			return c.print(map[string]string{"deleted": ct.ID}, func(w io.Writer) { fmt.Fprintf(w, "deleted %s (%s)\n", ct.ID, ct.Email) })
		}),
	}
	cmd.AddCommand(imp, list, show, del)
	return cmd
}

func printContact(w io.Writer, v contact.View) {
	name := func(p *string) string {
		if p == nil {
			return "-"
		}
		return *p
	}
	fmt.Fprintf(w, "id\t%s\nemail\t%s\nfirst_name\t%s\nlast_name\t%s\nsubscribed\t%v\n", v.ID, v.Email, name(v.FirstName), name(v.LastName), v.Subscribed)
	fmt.Fprintf(w, "unsubscribed_at\t%s\ntags\t%s\ncreated_at\t%s\nupdated_at\t%s\n", name(v.UnsubscribedAt), strings.Join(v.Tags, ","), v.CreatedAt, v.UpdatedAt)
	for _, k := range slices.Sorted(maps.Keys(v.Properties)) {
		b, _ := v.Properties[k].MarshalJSON()
		fmt.Fprintf(w, "properties.%s\t%s\n", k, b)
	}
}
