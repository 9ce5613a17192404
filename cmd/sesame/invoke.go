package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"
	"github.com/spf13/cobra"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/routes"
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
			var cfg config.API
			if err := config.LoadOverriding(ctx, map[string]string{"SESAME_TABLE": table}, &cfg); err != nil {
				return err
			}
			awsCfg, err := c.aws(ctx)
			if err != nil {
				return err
			}
			deps := api.NewDeps(cfg, api.NewClients(awsCfg, disableChecksumIfLocal()), api.NewLogger(cfg.LogLevel))
			var out any
			switch r, consumer, ok := function(args[0]); {
			case !ok:
				return fmt.Errorf("no function %q; see functions/", args[0])
			case consumer == nil:
				var ev events.APIGatewayProxyRequest
				if err := json.Unmarshal(raw, &ev); err != nil {
					return fmt.Errorf("%s: not an API Gateway proxy event: %w", args[1], err)
				}
				h, err := api.Handler(deps, r)
				if err != nil {
					return err
				}
				if out, err = httpadapter.New(h).ProxyWithContext(ctx, ev); err != nil {
					return err
				}
			default:
				var ev events.SQSEvent
				if err := json.Unmarshal(raw, &ev); err != nil || len(ev.Records) == 0 {
					// A bare message body (e.g. an SES event) becomes one record.
					ev = events.SQSEvent{Records: []events.SQSMessage{{MessageId: "invoke-1", Body: string(raw), EventSource: "aws:sqs"}}}
				}
				if out, err = api.Consumers(deps)[*consumer](ctx, ev); err != nil {
					return err
				}
			}
			enc := json.NewEncoder(c.out)
			enc.SetIndent("", "  ")
			return enc.Encode(out)
		},
	}
}

// function finds the route or queue consumer of a function name.
func function(name string) (routes.Route, *routes.Consumer, bool) {
	for _, r := range routes.API {
		if r.Function == name {
			return r, nil, true
		}
	}
	for _, c := range routes.Consumers {
		if c.Function == name {
			return routes.Route{}, &c, true
		}
	}
	return routes.Route{}, nil, false
}
