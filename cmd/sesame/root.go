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
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/spf13/cobra"

	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/ses"
)

// console holds the global flags and the clients built from them.
type console struct {
	table  string
	region string
	output string
	out    io.Writer

	awsCfg *aws.Config
	store  *dynamo.Repositories
	// sesAPI, when set, replaces the SES client built from the AWS
	// configuration (tests inject a fake).
	sesAPI ses.API
}

func newRootCommand() *cobra.Command {
	return (&console{out: os.Stdout}).rootCommand()
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
			return nil
		},
	}
	root.PersistentFlags().StringVar(&c.table, "table", envOr("SESAME_TABLE", "sesame"), "DynamoDB table of the stack (env SESAME_TABLE)")
	root.PersistentFlags().StringVar(&c.region, "region", "", "AWS region (default: from the AWS environment)")
	root.PersistentFlags().StringVar(&c.output, "output", "text", "output format: text or json")
	root.AddCommand(c.workspaceCommand(), c.keysCommand(), c.domainsCommand(), c.sendersCommand(),
		c.heldCommand(), c.capturedCommand(), c.suppressionsCommand(), c.webhooksCommand(), c.invokeCommand(), c.devCommand())
	return root
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

func (c *console) aws(ctx context.Context) (aws.Config, error) {
	if c.awsCfg != nil {
		return *c.awsCfg, nil
	}
	var opts []func(*awsconfig.LoadOptions) error
	if c.region != "" {
		opts = append(opts, awsconfig.WithRegion(c.region))
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("aws config: %w", err)
	}
	c.awsCfg = &cfg
	return cfg, nil
}

func (c *console) dynamo(ctx context.Context) (*dynamo.Repositories, error) {
	if c.store != nil {
		return c.store, nil
	}
	cfg, err := c.aws(ctx)
	if err != nil {
		return nil, err
	}
	repos := dynamo.NewRepositories(&dynamo.Table{DB: dynamodb.NewFromConfig(cfg, disableChecksumIfLocal()), Name: c.table})
	c.store = &repos
	return c.store, nil
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
