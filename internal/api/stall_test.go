package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/google/uuid"
	"github.com/sethvargo/go-envconfig"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/emulatortest"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
)

// stalledFunction is function name as its main builds it, every AWS
// service at an endpoint that never answers, with env's settings.
func stalledFunction(t *testing.T, name string, env map[string]string) (any, *emulatortest.Stalled) {
	t.Helper()
	stalled := emulatortest.NewStalled(t)
	f, ok := api.Function(name)
	if !ok {
		t.Fatalf("no function %s", name)
	}
	base := map[string]string{
		"LOG_LEVEL": "error", "SESAME_TABLE": "t", "SESAME_CURSOR_SECRET": "s",
		"SESAME_CONFIG_SET_FULL": "f", "SESAME_CONFIG_SET_ESSENTIAL": "e", "SESAME_CONFIG_SET_OFF": "o",
		"SESAME_REVIEW_QUEUE_URL": stalled.URL + "/review", "SESAME_WEBHOOKS_QUEUE_URL": stalled.URL + "/webhooks",
	}
	for k, v := range env {
		base[k] = v
	}
	load := func(context.Context) (aws.Config, error) { return stalled.Config(), nil }
	h, err := f.WithAWS(load).Handler(t.Context(), envconfig.MapLookuper(base))
	if err != nil {
		t.Fatal(err)
	}
	return h, stalled
}

// short are bounds that end a stalled call quickly; long ones that no
// test reaches.
var (
	short = map[string]string{"SESAME_AWS_ATTEMPT_TIMEOUT": "100ms", "SESAME_AWS_CALL_TIMEOUT": "300ms", "SESAME_SES_CALL_TIMEOUT": "300ms"}
	long  = map[string]string{"SESAME_AWS_ATTEMPT_TIMEOUT": "1m", "SESAME_AWS_CALL_TIMEOUT": "1m", "SESAME_SES_CALL_TIMEOUT": "1m"}
)

// A route function whose DynamoDB hangs answers 503 service_unavailable
// with Retry-After: at the SDK bounds its config sets, or at the
// request's own deadline when that comes first.
func TestStalledFunctionAnswers503(t *testing.T) {
	request := map[routes.Route]events.APIGatewayProxyRequest{
		routes.GetEmail: {HTTPMethod: http.MethodGet, Path: "/api/v1/emails/" + uuid.NewString()},
		routes.Send: {HTTPMethod: http.MethodPost, Path: "/api/v1/send",
			Body: `{"to":"ann@example.org","subject":"Hi","html":"<p>Hi</p>"}`},
	}
	bounds := map[string]struct {
		env      map[string]string
		deadline time.Duration // of the request; 0: none
	}{
		"SDK bounds":       {env: short},
		"request deadline": {env: long, deadline: 300 * time.Millisecond},
	}
	for rt, ev := range request {
		for name, b := range bounds {
			t.Run(rt.Function+" "+name, func(t *testing.T) {
				h, stalled := stalledFunction(t, rt.Function, b.env)
				ctx := t.Context()
				if b.deadline > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, b.deadline)
					defer cancel()
				}
				ev.Headers = map[string]string{"Authorization": "Bearer " + apikey.Generate(apikey.Test), "Content-Type": "application/json"}
				res, err := h.(wire.RouteHandler)(ctx, ev)
				if err != nil {
					t.Fatal(err)
				}
				var body struct {
					Error struct{ Code string } `json:"error"`
				}
				if err := json.Unmarshal([]byte(res.Body), &body); err != nil || res.StatusCode != http.StatusServiceUnavailable || body.Error.Code != "service_unavailable" {
					t.Fatalf("status %d, body %s (%v); want 503 service_unavailable", res.StatusCode, res.Body, err)
				}
				if got := res.MultiValueHeaders["Retry-After"]; len(got) != 1 || got[0] == "" {
					t.Errorf("Retry-After = %v", got)
				}
				if stalled.AcceptedAtLeast(1) == 0 {
					t.Error("no call reached the stalled endpoint")
				}
			})
		}
	}
}

// A consumer whose DynamoDB hangs reports the message as a batch item
// failure, to be delivered again, instead of hanging.
func TestStalledConsumerRetriesTheMessage(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "events", "ses", "delivery.json"))
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"EMAIL_ID": uuid.NewString(), "WORKSPACE_ID": uuid.NewString(), "RECIPIENT": "ann@example.org"}
	body := os.Expand(string(raw), func(k string) string { return vars[k] })
	h, stalled := stalledFunction(t, routes.Status.Function, short)
	res, err := h.(queue.Consumer)(t.Context(), events.SQSEvent{Records: []events.SQSMessage{{MessageId: "m1", Body: body}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.BatchItemFailures) != 1 || res.BatchItemFailures[0].ItemIdentifier != "m1" {
		t.Errorf("batch item failures = %+v, want m1", res.BatchItemFailures)
	}
	if stalled.AcceptedAtLeast(1) == 0 {
		t.Error("no call reached the stalled endpoint")
	}
}
