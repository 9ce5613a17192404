package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/spf13/cobra"

	"github.com/sesame-mail/sesame/internal/api/templates"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/emailtemplate"
	"github.com/sesame-mail/sesame/internal/fail"
)

// templatePage is how many templates `templates list` reads a request.
const templatePage = 100

// templateListed is one row of `templates list`: a template at its latest
// version.
type templateListed struct {
	ID        string               `json:"id"`
	Name      string               `json:"name"`
	Version   int                  `json:"version"`
	Variables []string             `json:"variables"`
	Review    emailtemplate.Review `json:"review"`
	UpdatedAt time.Time            `json:"updated_at"`
}

// templateShown is what `templates show` prints: one version, its review,
// and its subject and html rendered with sample values.
type templateShown struct {
	templateListed
	Subject       string `json:"subject"`
	SampleSubject string `json:"sample_subject"`
	SampleHTML    string `json:"sample_html"`
}

// templates is the stored template service over the console's table, the
// one the API and the dashboard use.
func (c *console) templates(ctx context.Context) (*emailtemplate.Service, error) {
	table, err := c.cfg.RequireTable()
	if err != nil {
		return nil, err
	}
	awsCfg, err := c.aws(ctx)
	if err != nil {
		return nil, err
	}
	return templates.Service(dynamo.NewTable(dynamodb.NewFromConfig(awsCfg, disableChecksumIfLocal()), table)), nil
}

// withTemplates is a command's RunE that first builds the template
// service and needs a workspace.
func (c *console) withTemplates(run func(cmd *cobra.Command, args []string, svc *emailtemplate.Service) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if c.cfg.WorkspaceID == "" {
			return fmt.Errorf("--workspace is required (or SESAME_WORKSPACE_ID)")
		}
		svc, err := c.templates(cmd.Context())
		if err != nil {
			return err
		}
		return run(cmd, args, svc)
	}
}

func (c *console) templatesCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "templates", Short: "Stored templates: list, show a version rendered with sample values (the API creates them)"}
	workspaceFlag(cmd)

	list := &cobra.Command{
		Use:   "list",
		Short: "List stored templates, newest first, at their latest version with its review",
		Args:  cobra.NoArgs,
		RunE: c.withTemplates(func(cmd *cobra.Command, _ []string, svc *emailtemplate.Service) error {
			rows := []templateListed{}
			for after, more := "", true; more; {
				var page []emailtemplate.Template
				var err error
				if page, after, more, err = svc.List(cmd.Context(), c.cfg.WorkspaceID, after, templatePage); err != nil {
					return err
				}
				for _, t := range page {
					rv, err := svc.Review(cmd.Context(), c.cfg.WorkspaceID, t)
					if err != nil {
						return err
					}
					rows = append(rows, listed(t, rv))
				}
			}
			return c.print(rows, func(w io.Writer) {
				fmt.Fprintln(w, "ID\tNAME\tVERSION\tVARIABLES\tREVIEW\tUPDATED")
				for _, r := range rows {
					fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%s\t%s\n", r.ID, r.Name, r.Version, orNone(r.Variables), r.Review.State, stamp(r.UpdatedAt))
				}
			})
		}),
	}

	var version int
	show := &cobra.Command{
		Use:   "show TEMPLATE_ID",
		Short: "Show a template version (the latest unless --version): its subject, variables, review, and html rendered with sample values",
		Args:  cobra.ExactArgs(1),
		RunE: c.withTemplates(func(cmd *cobra.Command, args []string, svc *emailtemplate.Service) error {
			if cmd.Flags().Changed("version") && version < 1 {
				return fmt.Errorf("--version must be 1 or more (the latest without it)")
			}
			v, err := svc.Get(cmd.Context(), c.cfg.WorkspaceID, args[0], version)
			if fail.KindOf(err) == fail.KindNotFound {
				if version > 0 {
					return fmt.Errorf("%s is not a template of the workspace, or has no version %d", args[0], version)
				}
				return fmt.Errorf("%s is not a template of the workspace", args[0])
			}
			if err != nil {
				return err
			}
			subject, html := v.Sample()
			out := templateShown{templateListed: listed(v.Template, v.Review), Subject: v.Subject, SampleSubject: subject, SampleHTML: html}
			return c.print(out, func(w io.Writer) {
				fmt.Fprintf(w, "id\t%s\nname\t%s\nversion\t%d\nupdated_at\t%s\n", out.ID, out.Name, out.Version, stamp(out.UpdatedAt))
				fmt.Fprintf(w, "subject\t%s\nvariables\t%s\nreview\t%s\n", out.Subject, orNone(out.Variables), out.Review.State)
				for _, r := range out.Review.Reasons {
					fmt.Fprintf(w, "  reason\t%s\n", r)
				}
				fmt.Fprintf(w, "\nSample subject: %s\nSample HTML (variables as [name], contact fields as the sample contact):\n%s\n", subject, html)
			})
		}),
	}
	show.Flags().IntVar(&version, "version", 0, "version to show (default: the latest)")
	cmd.AddCommand(list, show)
	return cmd
}

func listed(t emailtemplate.Template, rv emailtemplate.Review) templateListed {
	return templateListed{ID: t.ID, Name: t.Name, Version: t.Version, Variables: t.Variables(), Review: rv, UpdatedAt: t.UpdatedAt}
}

// orNone joins names with commas, or says none.
func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
