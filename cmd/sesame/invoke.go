package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/sethvargo/go-envconfig"
	"github.com/spf13/cobra"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/queue"
)

// invokeCommand runs one function's handler once on an event file, the way
// Lambda would, against the stack the environment points at (the local one
// after sourcing .sesame/dev.env). ${VAR}s in the file are expanded from
// the environment, so fixtures can name the demo keys.
func (c *console) invokeCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "invoke FUNCTION EVENT_FILE",
		Short: "Run a function's handler on an event (API Gateway proxy event, SQS event, or a bare SES event for status)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			raw, err := os.ReadFile(args[1])
			if err != nil {
				return err
			}
			raw = []byte(os.ExpandEnv(string(raw)))
			table, err := c.cfg.RequireTable()
			if err != nil {
				return err
			}
			fn, ok := api.Function(args[0])
			if !ok {
				return fmt.Errorf("no function %q; see functions/", args[0])
			}
			awsCfg, err := c.aws(ctx)
			if err != nil {
				return err
			}
			if isLoopbackURL(os.Getenv("AWS_ENDPOINT_URL_DYNAMODB")) {
				awsCfg.APIOptions = append(slices.Clip(awsCfg.APIOptions), dynamo.WithoutResponseChecksums)
			}
			// The function's own start: its config checked, only its
			// services built; the console's table and AWS settings.
			env := envconfig.MultiLookuper(envconfig.MapLookuper(map[string]string{"SESAME_TABLE": table}), envconfig.OsLookuper())
			h, err := fn.WithAWS(func(context.Context) (aws.Config, error) { return awsCfg, nil }).Handler(ctx, env)
			if err != nil {
				return err
			}
			var out any
			switch h := h.(type) {
			case wire.RouteHandler:
				var ev events.APIGatewayProxyRequest
				if err := json.Unmarshal(raw, &ev); err != nil {
					return fmt.Errorf("%s: not an API Gateway proxy event: %w", args[1], err)
				}
				if out, err = h(ctx, ev); err != nil {
					return err
				}
			case queue.Consumer:
				var ev events.SQSEvent
				if err := json.Unmarshal(raw, &ev); err != nil || len(ev.Records) == 0 {
					// A bare message body (e.g. an SES event) becomes one record.
					ev = events.SQSEvent{Records: []events.SQSMessage{{MessageId: "invoke-1", Body: string(raw), EventSource: "aws:sqs"}}}
				}
				if out, err = h(ctx, ev); err != nil {
					return err
				}
			default:
				return fmt.Errorf("%s: a handler of type %T", args[0], h)
			}
			enc := json.NewEncoder(c.out)
			enc.SetIndent("", "  ")
			return enc.Encode(out)
		},
	}
}
