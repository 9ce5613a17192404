package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/owner"
)

func (c *console) automationsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "automations",
		Short: "The workspace's automations: create from a blueprint or a file, list, show, edit, activate, deactivate; their runs",
	}
	workspaceFlag(cmd)

	var blueprint, file, name, event string
	create := &cobra.Command{
		Use:   "create (--blueprint " + strings.Join(automation.BlueprintNames(), "|") + " | --file F.json)",
		Short: "Create a draft automation from a blueprint or a definition file ({\"name\", \"event\", \"steps\"})",
		Args:  cobra.NoArgs,
		RunE: c.withOwner(func(cmd *cobra.Command, _ []string, svc *owner.Service) error {
			req := automation.AutomationRequest{WorkspaceID: c.cfg.WorkspaceID, Blueprint: blueprint, Name: name, Event: event}
			if file != "" {
				b, err := os.ReadFile(file)
				if err != nil {
					return fmt.Errorf("--file: %w", err)
				}
				req.Definition = b
			}
			a, err := svc.Automations.Create(cmd.Context(), req)
			if err != nil {
				return flagged(cmd, err)
			}
			return c.printAutomation(a, fmt.Sprintf("created %s, a draft: check it with `sesame automations show %s`, then activate it", a.ID, a.ID))
		}),
	}
	create.Flags().StringVar(&blueprint, "blueprint", "", "start from this blueprint: "+strings.Join(automation.BlueprintNames(), ", "))
	create.Flags().StringVar(&file, "file", "", "a definition file (JSON), e.g. one `show ID --definition` printed")
	create.Flags().StringVar(&name, "name", "", "the name, instead of the blueprint's or file's")
	create.Flags().StringVar(&event, "event", "", "the event name it listens for, instead of the blueprint's or file's")

	list := &cobra.Command{
		Use:   "list",
		Short: "List automations, oldest first",
		Args:  cobra.NoArgs,
		RunE: c.withOwner(func(cmd *cobra.Command, _ []string, svc *owner.Service) error {
			all, err := svc.Automations.List(cmd.Context(), c.cfg.WorkspaceID)
			if err != nil {
				return err
			}
			views := make([]automation.View, 0, len(all))
			for _, a := range all {
				views = append(views, a.View())
			}
			return c.print(views, func(w io.Writer) {
				fmt.Fprintln(w, "ID\tNAME\tEVENT\tSTATUS\tVERSION\tSTEPS\tUPDATED")
				for _, v := range views {
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%d\t%s\n", v.ID, v.Name, v.Event, v.Status, v.Version, len(v.Steps), v.UpdatedAt)
				}
			})
		}),
	}

	var definition bool
	show := &cobra.Command{
		Use:   "show ID",
		Short: "Show an automation and its steps (--definition: the JSON to edit and give back to `edit --file`)",
		Args:  cobra.ExactArgs(1),
		RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
			a, err := svc.Automations.Show(cmd.Context(), c.cfg.WorkspaceID, args[0])
			if err != nil {
				return flagged(cmd, err)
			}
			if definition {
				enc := json.NewEncoder(c.out)
				enc.SetIndent("", "  ")
				return enc.Encode(a.Definition())
			}
			return c.printAutomation(a, "")
		}),
	}
	show.Flags().BoolVar(&definition, "definition", false, "print only the definition (name, event, steps) as JSON")

	var editFile, editName, editEvent string
	edit := &cobra.Command{
		Use:   "edit ID (--file F.json | --name N | --event E)",
		Short: "Change an automation: a new version that runs started afterwards execute; an active one stays active",
		Args:  cobra.ExactArgs(1),
		RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
			var e automation.AutomationEdit
			if editFile != "" {
				b, err := os.ReadFile(editFile)
				if err != nil {
					return fmt.Errorf("--file: %w", err)
				}
				e.Definition = b
			}
			if cmd.Flags().Changed("name") {
				e.Name = &editName
			}
			if cmd.Flags().Changed("event") {
				e.Event = &editEvent
			}
			a, err := svc.Automations.Edit(cmd.Context(), c.cfg.WorkspaceID, args[0], e)
			if err != nil {
				return flagged(cmd, err)
			}
			return c.printAutomation(a, fmt.Sprintf("edited %s: version %d, %s", a.ID, a.Version, a.Status))
		}),
	}
	edit.Flags().StringVar(&editFile, "file", "", "a definition file (JSON) replacing the name, event and steps")
	edit.Flags().StringVar(&editName, "name", "", "the new name")
	edit.Flags().StringVar(&editEvent, "event", "", "the new event name (of an inactive or draft automation)")

	activate := &cobra.Command{
		Use:   "activate ID",
		Short: "Start receiving events, after checking the automation can run: every problem is listed",
		Args:  cobra.ExactArgs(1),
		RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
			a, err := svc.Automations.Activate(cmd.Context(), c.cfg.WorkspaceID, args[0])
			if err != nil {
				return flagged(cmd, err)
			}
			return c.printAutomation(a, fmt.Sprintf("%s is active: events %s start runs of version %d", a.ID, a.Event, a.Version))
		}),
	}

	deactivate := &cobra.Command{
		Use:   "deactivate ID",
		Short: "Stop receiving events; runs under way go on",
		Args:  cobra.ExactArgs(1),
		RunE: c.withOwner(func(cmd *cobra.Command, args []string, svc *owner.Service) error {
			a, err := svc.Automations.Deactivate(cmd.Context(), c.cfg.WorkspaceID, args[0])
			if err != nil {
				return flagged(cmd, err)
			}
			return c.printAutomation(a, fmt.Sprintf("%s is %s: no new run starts", a.ID, a.Status))
		}),
	}
	cmd.AddCommand(create, list, show, edit, activate, deactivate)
	cmd.AddCommand(c.automationRunCommands()...)
	return cmd
}

// printAutomation prints an automation with its steps, after headline
// when there is one (the JSON output is the automation alone).
func (c *console) printAutomation(a automation.Automation, headline string) error {
	v := a.View()
	return c.print(v, func(w io.Writer) {
		if headline != "" {
			fmt.Fprintf(w, "%s\n\n", headline)
		}
		fmt.Fprintf(w, "id\t%s\nname\t%s\nevent\t%s\nstatus\t%s\nversion\t%d\ncreated_at\t%s\nupdated_at\t%s\n",
			v.ID, v.Name, v.Event, v.Status, v.Version, v.CreatedAt, v.UpdatedAt)
		fmt.Fprintf(w, "\nSTEP\tWHAT\n")
		for i, s := range a.Steps {
			fmt.Fprintf(w, "%d\t%s\n", i, s.Summary())
		}
	})
}
