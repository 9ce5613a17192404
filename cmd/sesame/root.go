package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/spf13/cobra"

	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/owner"
	"github.com/sesame-mail/sesame/internal/ses"
)

// console holds the settings and the clients built from them.
type console struct {
	// cfg is the environment, overridden by the flags given; loaded
	// before each command runs.
	cfg    config.Console
	output string
	out    io.Writer

	awsCfg *aws.Config
	svc    *owner.Service
	// sesAPI, when set, replaces the SES client built from the AWS
	// configuration (tests inject a fake).
	sesAPI ses.API
	// approver and starter, when set, replace the campaign approver (the
	// AWS principal) and starter (tests inject fakes).
	approver campaign.Approver
	starter  campaign.Starter
}

func newRootCommand() *cobra.Command {
	return (&console{out: os.Stdout}).rootCommand()
}

// execute runs the command line of root; an input the owner service
// refused is named by its flag.
func execute(ctx context.Context, root *cobra.Command) error {
	cmd, err := root.ExecuteContextC(ctx)
	return flagged(cmd, err)
}

func (c *console) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "sesame",
		Short:         "Operator console for a Sesame deployment (local or in AWS)",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if c.output != "text" && c.output != "json" {
				return fmt.Errorf("--output must be text or json")
			}
			c.out = cmd.OutOrStdout()
			return c.loadConfig(cmd)
		},
	}
	root.PersistentFlags().String("table", "", "DynamoDB table of the stack, its TableName output (env SESAME_TABLE)")
	root.PersistentFlags().String("region", "", "AWS region (env AWS_REGION; default: from the AWS profile)")
	root.PersistentFlags().StringVar(&c.output, "output", "text", "output format: text or json")
	root.AddCommand(c.workspaceCommand(), c.keysCommand(), c.domainsCommand(), c.sendersCommand(),
		c.heldCommand(), c.capturedCommand(), c.suppressionsCommand(), c.contactsCommand(), c.segmentsCommand(), c.templatesCommand(), c.approvalsCommand(), c.automationsCommand(), c.webhooksCommand(), c.emailsCommand(), c.ownersCommand(), c.invokeCommand(), c.devCommand())
	checkUsage(root)
	c.explainErrors(root)
	return root
}

// flagVariables maps each flag that stands for a config.Console variable
// to that variable.
var flagVariables = map[string]string{
	"table":             "SESAME_TABLE",
	"region":            "AWS_REGION",
	"workspace":         "SESAME_WORKSPACE_ID",
	"configuration-set": "SESAME_CONFIG_SET_FULL",
}

// loadConfig reads the console's settings from the environment, with the
// flags given on cmd's command line in place of their variables.
func (c *console) loadConfig(cmd *cobra.Command) error {
	overrides := map[string]string{}
	for flag, variable := range flagVariables {
		if f := cmd.Flags().Lookup(flag); f != nil && f.Changed {
			overrides[variable] = f.Value.String()
		}
	}
	return config.LoadOverriding(cmd.Context(), overrides, &c.cfg)
}

// workspaceFlag adds the --workspace flag; the commands read it from c.cfg.
func workspaceFlag(cmd *cobra.Command) {
	cmd.PersistentFlags().String("workspace", "", "workspace id (env SESAME_WORKSPACE_ID)")
}

func (c *console) aws(ctx context.Context) (aws.Config, error) {
	if c.awsCfg != nil {
		return *c.awsCfg, nil
	}
	var opts []func(*awsconfig.LoadOptions) error
	if c.cfg.Region != "" {
		opts = append(opts, awsconfig.WithRegion(c.cfg.Region))
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("aws config: %w", err)
	}
	c.awsCfg = &cfg
	return cfg, nil
}

// print writes v as JSON with --output json, or calls text otherwise.
func (c *console) print(v any, text func(w io.Writer)) error {
	if c.output == "json" {
		enc := json.NewEncoder(c.out)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	tw := tabwriter.NewWriter(c.out, 0, 4, 2, ' ', 0)
	text(tw)
	return tw.Flush()
}
