package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/deliverability"
	"github.com/sesame-mail/sesame/internal/owner"
	"github.com/sesame-mail/sesame/internal/timestamp"
)

// approvalShown is what `approvals show` prints.
type approvalShown struct {
	campaign.View
	Sender         string                 `json:"sender"`
	ContentHash    string                 `json:"content_hash"`
	ApprovedBy     string                 `json:"approved_by,omitempty"`
	Deliverability *deliverability.Report `json:"deliverability"`
	Sample         []contact.View         `json:"sample"`
	Text           string                 `json:"text"`
	HTMLFile       string                 `json:"html_file"`
}

func (c *console) approvalsCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "approvals", Short: "Bulk campaigns drafted through the API, held for your approval: list, show, approve, edit, discard, resume"}
	workspaceFlag(cmd)

	list := &cobra.Command{
		Use:   "list",
		Short: "List campaigns pending approval, then scheduled ones",
		Args:  cobra.NoArgs,
		RunE: c.withOwner(func(cmd *cobra.Command, _ []string, svc *owner.Service) error {
			all, err := svc.Approvals.List(cmd.Context(), c.cfg.WorkspaceID)
			if err != nil {
				return err
			}
			views := make([]campaign.View, 0, len(all))
			for _, cp := range all {
				views = append(views, cp.View())
			}
			return c.print(views, func(w io.Writer) {
				fmt.Fprintln(w, "ID\tSTATUS\tRECIPIENTS\tSUBJECT\tCREATED")
				for _, v := range views {
					fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%s\n", v.ID, v.Status, v.RecipientCount, v.Subject, v.CreatedAt)
				}
			})
		}),
	}

	var sample int
	var htmlOut string
	show := &cobra.Command{
		Use:   "show ID",
		Short: "Show a campaign as its approver sees it, and write its HTML to a file to open in a browser",
		Args:  cobra.ExactArgs(1),
		RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
			s, err := svc.Approvals.Show(cmd.Context(), c.cfg.WorkspaceID, args[0], sample)
			if err != nil {
				return err
			}
			file := htmlOut
			if file == "" {
				file = filepath.Join(os.TempDir(), "sesame-campaign-"+s.ID+".html")
			}
			if err := os.WriteFile(file, []byte(s.HTML), 0o600); err != nil {
				return fmt.Errorf("write the html: %w", err)
			}
			sender := s.Sender.Address()
			out := approvalShown{
				View: s.View(), Sender: sender.String(), ContentHash: s.ContentHash,
				Sample: make([]contact.View, 0, len(s.Sample)), Text: s.Text, HTMLFile: file,
			}
			if s.Approved() {
				out.ApprovedBy = s.ApprovedBy
			}
			for _, ct := range s.Sample {
				out.Sample = append(out.Sample, ct.View())
			}
			if s.Verdict != nil {
				out.Deliverability = new(deliverability.Report)
				if err := json.Unmarshal(s.Verdict, out.Deliverability); err != nil {
					return fmt.Errorf("the deliverability verdict: %w", err)
				}
			}
			return c.print(out, func(w io.Writer) { printApproval(w, out) })
		}),
	}
	show.Flags().IntVar(&sample, "sample", 10, "how many frozen recipients to show")
	show.Flags().StringVar(&htmlOut, "html-out", "", "file to write the HTML to (default: sesame-campaign-ID.html in the temporary directory)")

	var at string
	approve := &cobra.Command{
		Use:   "approve ID",
		Short: "Approve the campaign's current content and start it now, or at --at",
		Args:  cobra.ExactArgs(1),
		RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
			var when *time.Time
			if at != "" {
				t, err := time.Parse(time.RFC3339, at)
				if err != nil {
					return fmt.Errorf("--at must be a time such as 2026-11-24T09:00:00Z or 2026-11-24T10:00:00+01:00: %w", err)
				}
				when = &t
			}
			a, err := svc.Approvals.Approve(cmd.Context(), c.cfg.WorkspaceID, args[0], when)
			if err != nil {
				return err
			}
			return c.print(a.View(), func(w io.Writer) {
				switch {
				case a.Already:
					fmt.Fprintf(w, "%s was approved already (%s); nothing changed\n", a.ID, a.Status)
				case a.Status == campaign.StatusScheduled:
					fmt.Fprintf(w, "approved %s by %s; it starts at %s to %d recipients\n", a.ID, a.ApprovedBy, timestamp.Format(*a.ScheduledAt), a.RecipientCount)
				default:
					fmt.Fprintf(w, "approved %s by %s; sending to %d recipients\n", a.ID, a.ApprovedBy, a.RecipientCount)
				}
			})
		}),
	}
	approve.Flags().StringVar(&at, "at", "", "start at this time (RFC 3339) instead of now; a past time starts now")

	var subject, htmlFile string
	edit := &cobra.Command{
		Use:   "edit ID",
		Short: "Change the subject or HTML of a campaign not yet started: it returns to pending approval",
		Args:  cobra.ExactArgs(1),
		RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
			var e campaign.Edit
			if cmd.Flags().Changed("subject") {
				e.Subject = &subject
			}
			if htmlFile != "" {
				b, err := os.ReadFile(htmlFile)
				if err != nil {
					return fmt.Errorf("--html-file: %w", err)
				}
				html := string(b)
				e.HTML = &html
			}
			cp, err := svc.Approvals.Edit(cmd.Context(), c.cfg.WorkspaceID, args[0], e)
			if err != nil {
				return err
			}
			return c.print(cp.View(), func(w io.Writer) {
				fmt.Fprintf(w, "edited %s; it is %s: approve it again to send it\n", cp.ID, cp.Status)
			})
		}),
	}
	edit.Flags().StringVar(&subject, "subject", "", "the new subject")
	edit.Flags().StringVar(&htmlFile, "html-file", "", "a file holding the new HTML")

	transition := func(use, short, verb string, do func(a *campaign.Approvals, cmd *cobra.Command, id string) (campaign.Campaign, error)) *cobra.Command {
		return &cobra.Command{
			Use:   use + " ID",
			Short: short,
			Args:  cobra.ExactArgs(1),
			RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
				cp, err := do(svc.Approvals, cmd, args[0])
				if err != nil {
					return err
				}
				return c.print(cp.View(), func(w io.Writer) { fmt.Fprintf(w, "%s %s; it is %s\n", verb, cp.ID, cp.Status) })
			}),
		}
	}
	discard := transition("discard", "Throw away a campaign not yet started: it is never sent", "discarded",
		func(a *campaign.Approvals, cmd *cobra.Command, id string) (campaign.Campaign, error) {
			return a.Discard(cmd.Context(), c.cfg.WorkspaceID, id)
		})
	resume := transition("resume", "Resume a paused campaign (recipients already sent are skipped)", "resumed",
		func(a *campaign.Approvals, cmd *cobra.Command, id string) (campaign.Campaign, error) {
			return a.Resume(cmd.Context(), c.cfg.WorkspaceID, id)
		})
	cancel := transition("cancel", "Cancel a campaign: not yet started, it is never sent; sending or paused, it sends nobody more", "cancelled",
		func(a *campaign.Approvals, cmd *cobra.Command, id string) (campaign.Campaign, error) {
			return a.Cancel(cmd.Context(), c.cfg.WorkspaceID, id)
		})
	cmd.AddCommand(list, show, approve, edit, discard, resume, cancel)
	return cmd
}

// printApproval prints a campaign as its approver reads it.
func printApproval(w io.Writer, s approvalShown) {
	fmt.Fprintf(w, "id\t%s\nstatus\t%s\nsubject\t%s\nsender\t%s\n", s.ID, s.Status, s.Subject, s.Sender)
	fmt.Fprintf(w, "recipients\t%d (frozen at draft time, %s)\n", s.RecipientCount, s.CreatedAt)
	fmt.Fprintf(w, "content hash\t%s\n", s.ContentHash)
	if s.ApprovedBy != "" {
		fmt.Fprintf(w, "approved by\t%s at %s\n", s.ApprovedBy, *s.ApprovedAt)
	}
	if d := s.Deliverability; d != nil {
		fmt.Fprintf(w, "deliverability\t%s (score %d)\n", d.Verdict, d.Score)
		for _, f := range d.Checks {
			fmt.Fprintf(w, "  %s\t%s: %s\n", f.Severity, f.ID, f.Message)
		}
	} else {
		fmt.Fprintf(w, "deliverability\tunavailable (the check failed)\n")
	}
	fmt.Fprintf(w, "html\t%s (open it in a browser)\n", s.HTMLFile)
	if len(s.Sample) > 0 {
		fmt.Fprintf(w, "\nSAMPLE\tEMAIL\n")
		for _, v := range s.Sample {
			fmt.Fprintf(w, "%s\t%s\n", v.ID, v.Email)
		}
	}
	fmt.Fprintf(w, "\nTEXT\n%s\n", s.Text)
}
