package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/spf13/cobra"

	"github.com/sesame-mail/sesame/internal/devstack"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/repositories"
	"github.com/sesame-mail/sesame/internal/ses"
)

// devSeedCommand seeds the demo workspace of `sesame dev` (devstack.Seed:
// the domain demo.sesame.test recorded as verified, its default sender, a
// live and a test full-access key) into an existing table, such as that of
// a stack deployed on LocalStack (localstack/smoke.sh). The ids and keys
// go to --env-file, never to the output; a second run reuses them while
// they still work.
//
// It refuses a DynamoDB endpoint that is not on this machine: the domain
// is recorded as verified without asking SES, which only a local stack
// may do.
func (c *console) devSeedCommand() *cobra.Command {
	var envFile string
	cmd := &cobra.Command{
		Use:   "seed",
		Short: "Seed the demo workspace (verified domain, live and test keys) into --table on a local endpoint (e.g. LocalStack)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if endpoint := endpointURL("AWS_ENDPOINT_URL_DYNAMODB"); !isLoopbackURL(endpoint) {
				return fmt.Errorf("dev seed records %s as verified without SES, so it needs a local DynamoDB: set AWS_ENDPOINT_URL_DYNAMODB (or AWS_ENDPOINT_URL) to one, e.g. LocalStack's http://127.0.0.1:4566 (it is %q)", devstack.DemoDomain, endpoint)
			}
			table, err := c.cfg.RequireTable()
			if err != nil {
				return err
			}
			awsCfg, err := c.aws(ctx)
			if err != nil {
				return err
			}
			repos := repositories.New(dynamo.NewTable(dynamodb.NewFromConfig(awsCfg, disableChecksum), table))
			prev, err := devstack.ReadEnv(envFile)
			if err != nil {
				return err
			}
			// The stack's SES (aws-ses-v2-local) has no identity API: the demo
			// domain's identity is kept beside the env file, as `sesame dev` keeps its own.
			identities := &ses.Client{API: &devstack.LocalSES{Path: devstack.IdentitiesFile(filepath.Join(filepath.Dir(envFile), "localstack-data"))}}
			demo, err := devstack.Seed(ctx, repos, identities, prev)
			if err != nil {
				return err
			}
			env := devstack.Env{
				"SESAME_TABLE":        table,
				"SESAME_WORKSPACE_ID": demo.WorkspaceID,
				"SESAME_LIVE_KEY":     demo.LiveKey,
				"SESAME_TEST_KEY":     demo.TestKey,
			}
			if err := env.Write(envFile); err != nil {
				return err
			}
			out := struct {
				WorkspaceID string `json:"workspace_id"`
				EnvFile     string `json:"env_file"`
			}{demo.WorkspaceID, envFile}
			return c.print(out, func(w io.Writer) {
				fmt.Fprintf(w, "workspace\t%s\nkeys in\t%s (set -a; . %s)\n", demo.WorkspaceID, envFile, envFile)
			})
		},
	}
	cmd.Flags().StringVar(&envFile, "env-file", ".sesame/localstack.env", "file to read the previous demo keys from and write the demo workspace and keys to")
	return cmd
}
