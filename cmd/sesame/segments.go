package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/owner"
	"github.com/sesame-mail/sesame/internal/segment"
)

// segmentShown is what `segments show` prints: the segment, its
// recipients now and a sample of them.
type segmentShown struct {
	segment.View
	RecipientsNow int            `json:"recipients_now"`
	Sample        []contact.View `json:"sample"`
}

func (c *console) segmentsCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "segments", Short: "The workspace's segments: list, show with a sample of recipients, delete (the API creates them)"}
	workspaceFlag(cmd)

	list := &cobra.Command{
		Use:   "list",
		Short: "List segments, oldest first, with their recipient count at creation",
		Args:  cobra.NoArgs,
		RunE: c.withOwner(func(cmd *cobra.Command, _ []string, svc *owner.Service) error {
			segs, err := svc.Segments.List(cmd.Context(), c.cfg.WorkspaceID)
			if err != nil {
				return err
			}
			views := make([]segment.View, 0, len(segs))
			for _, s := range segs {
				views = append(views, s.View())
			}
			return c.print(views, func(w io.Writer) {
				fmt.Fprintln(w, "ID\tNAME\tCONTACTS AT CREATION\tCREATED")
				for _, v := range views {
					fmt.Fprintf(w, "%s\t%s\t%d\t%s\n", v.ID, v.Name, v.ContactCount, v.CreatedAt)
				}
			})
		}),
	}

	var sample int
	show := &cobra.Command{
		Use:   "show ID",
		Short: "Show a segment, evaluated now: its recipients and a sample of them",
		Args:  cobra.ExactArgs(1),
		RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
			s, err := svc.Segments.Show(cmd.Context(), c.cfg.WorkspaceID, args[0], sample)
			if err != nil {
				return flagged(cmd, err)
			}
			out := segmentShown{View: s.View(), RecipientsNow: s.Count, Sample: make([]contact.View, 0, len(s.Sample))}
			for _, ct := range s.Sample {
				out.Sample = append(out.Sample, ct.View())
			}
			filter, err := json.Marshal(s.Filter)
			if err != nil {
				return err
			}
			return c.print(out, func(w io.Writer) {
				fmt.Fprintf(w, "id\t%s\nname\t%s\nfilter\t%s\ncreated_at\t%s\n", s.ID, s.Name, filter, out.CreatedAt)
				fmt.Fprintf(w, "contacts at creation\t%d\nrecipients now\t%d\n", s.ContactCount, s.Count)
				if len(out.Sample) > 0 {
					fmt.Fprintf(w, "\nSAMPLE\tEMAIL\tTAGS\n")
					for _, v := range out.Sample {
						fmt.Fprintf(w, "%s\t%s\t%v\n", v.ID, v.Email, v.Tags)
					}
				}
			})
		}),
	}
	show.Flags().IntVar(&sample, "sample", 10, "how many recipients to show")

	del := &cobra.Command{
		Use:   "delete ID",
		Short: "Delete a segment (its contacts are untouched)",
		Args:  cobra.ExactArgs(1),
		RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
			s, err := svc.Segments.Delete(cmd.Context(), c.cfg.WorkspaceID, args[0])
			if err != nil {
				return err
			}
			return c.print(map[string]string{"deleted": s.ID}, func(w io.Writer) { fmt.Fprintf(w, "deleted %s (%s)\n", s.ID, s.Name) })
		}),
	}
	cmd.AddCommand(list, show, del)
	return cmd
}
