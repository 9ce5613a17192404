package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
)

// Every route the CDK stack deploys has a handler and a function main that
// serves exactly it: no route is left unwired.
func TestEveryRouteIsWired(t *testing.T) {
	deps := api.Deps{Cursors: httpapi.Cursors{Secret: []byte("s")}}
	for _, rt := range routes.API {
		t.Run(rt.Function, func(t *testing.T) {
			if _, err := api.Handler(deps, rt); err != nil {
				t.Fatal(err)
			}
			main, err := os.ReadFile(filepath.Join("..", "..", "functions", rt.Function, "main.go"))
			if err != nil {
				t.Fatalf("functions/%s/main.go: %v", rt.Function, err)
			}
			if !strings.Contains(string(main), "api.LambdaMain(routes.") {
				t.Errorf("functions/%s/main.go does not serve a route", rt.Function)
			}
		})
	}
	served := map[string]bool{}
	for _, rt := range api.Routes(deps) {
		served[rt.Function] = true
	}
	if len(served) != len(routes.API) {
		t.Errorf("%d routes have handlers but routes.API lists %d", len(served), len(routes.API))
	}
}

// The Lambda path: an API Gateway v1 proxy event through httpadapter into
// the route handler, as functions/<fn> runs it.
func TestLambdaEvents(t *testing.T) {
	ctx := context.Background()
	store, _ := dynamotest.NewStore(t)
	ws, err := store.Workspaces.CreateWorkspace(ctx, "Lambda")
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := store.Keys.CreateKey(ctx, ws.ID, apikey.Test, "", apikey.FullAccess)
	if err != nil {
		t.Fatal(err)
	}
	id := uuid.Must(uuid.NewV7()).String()
	err = store.Emails.PutEmail(ctx, email.Email{
		ID: id, WorkspaceID: ws.ID, To: "a@example.com", Subject: "Hello",
		Status: email.StatusSent, Type: email.TypeTransactional, Environment: apikey.Test, SentAt: time.Now(),
	})
	if err != nil {
		t.Fatal(err)
	}
	deps := api.Deps{Repos: store, Cursors: httpapi.Cursors{Secret: []byte("s")}, Logger: api.NewLogger(8)}
	vars := map[string]string{"SESAME_TEST_KEY": key, "EMAIL_ID": id}
	cases := map[string]struct {
		route   routes.Route
		fixture string
	}{
		"list emails": {routes.ListEmails, "list-emails.json"},
		"get email":   {routes.GetEmail, "get-email.json"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("..", "..", "events", "apigw", tc.fixture))
			if err != nil {
				t.Fatal(err)
			}
			var ev events.APIGatewayProxyRequest
			if err := json.Unmarshal([]byte(os.Expand(string(raw), func(k string) string { return vars[k] })), &ev); err != nil {
				t.Fatal(err)
			}
			handle, err := api.LambdaHandler(deps, tc.route) // what functions/<fn> runs
			if err != nil {
				t.Fatal(err)
			}
			res, err := handle(ctx, ev)
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != http.StatusOK {
				t.Fatalf("status %d: %s", res.StatusCode, res.Body)
			}
			if got := res.MultiValueHeaders["X-Request-Id"]; len(got) != 1 || got[0] != ev.RequestContext.RequestID {
				t.Errorf("X-Request-Id = %v, want the API Gateway request id %s", got, ev.RequestContext.RequestID)
			}
			if !strings.Contains(res.Body, id) {
				t.Errorf("body does not hold the email: %s", res.Body)
			}
		})
	}
}

// Every queue the stack creates has its consumer wired, and every consumer
// has its function main: no queue fills up unread.
func TestEveryQueueIsConsumed(t *testing.T) {
	handlers := api.Consumers(api.Deps{})
	for _, q := range queue.All {
		var found *routes.Consumer
		for _, c := range routes.Consumers {
			if c.Queue.Name == q.Name {
				found = &c
			}
		}
		if found == nil {
			t.Errorf("queue %s has no consumer in routes.Consumers", q.Name)
			continue
		}
		if _, ok := handlers[*found]; !ok {
			t.Errorf("consumer %s has no handler in api.Consumers", found.Function)
		}
		main, err := os.ReadFile(filepath.Join("..", "..", "functions", found.Function, "main.go"))
		if err != nil || !strings.Contains(string(main), "api.ConsumerMain(routes.") {
			t.Errorf("functions/%s/main.go does not run a consumer (err %v)", found.Function, err)
		}
	}
}

// A route function does not start without the cursor secret; with it, it
// serves its route.
func TestLambdaHandlerNeedsTheCursorSecret(t *testing.T) {
	if _, err := api.LambdaHandler(api.Deps{}, routes.ListEmails); err == nil {
		t.Error("a route function started without SESAME_CURSOR_SECRET")
	}
	if _, err := api.LambdaHandler(api.Deps{Cursors: httpapi.Cursors{Secret: []byte("s")}}, routes.ListEmails); err != nil {
		t.Errorf("with the secret: %v", err)
	}
}
