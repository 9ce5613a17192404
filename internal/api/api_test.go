package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/google/uuid"
	"github.com/sethvargo/go-envconfig"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/api/emails"
	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/openapi"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
)

// functionNames is every function the CDK stack deploys.
func functionNames() []string {
	var names []string
	for _, f := range routes.RouteFunctions() {
		names = append(names, f.Name)
	}
	for _, c := range routes.Consumers {
		names = append(names, c.Function)
	}
	for _, s := range routes.Schedules {
		names = append(names, s.Function)
	}
	for _, s := range routes.Sites {
		names = append(names, s.Function)
	}
	return names
}

// Every route the CDK stack deploys has a handler on the dev server, and a
// function main that serves exactly it: no route is left unwired.
func TestEveryRouteIsWired(t *testing.T) {
	deps := api.Deps{Cursors: httpapi.NewCursors([]byte("s"))}
	for _, rt := range routes.All() {
		t.Run(rt.Function, func(t *testing.T) {
			if _, err := api.Handler(deps, rt); err != nil {
				t.Fatal(err)
			}
		})
	}
	served := map[string]bool{}
	for _, rt := range api.Routes(deps) {
		served[rt.Function] = true
	}
	if want := len(routes.RouteFunctions()); len(served) != want {
		t.Errorf("%d functions' routes have handlers but routes lists %d", len(served), want)
	}
}

// Every function of the stack has its wiring, and functions/<name>/main.go
// runs it: wire.Main(<package>.<V>), where V is the name of its entry in
// internal/routes and <package> declares V from that entry.
func TestEveryFunctionHasItsMain(t *testing.T) {
	routeVars := routeVarNames(t)
	seen := map[string]bool{}
	for _, f := range api.Functions {
		if seen[f.FunctionName()] {
			t.Errorf("two wirings of function %s", f.FunctionName())
		}
		seen[f.FunctionName()] = true
	}
	for _, fn := range functionNames() {
		t.Run(fn, func(t *testing.T) {
			if f, ok := api.Function(fn); !ok || f.FunctionName() != fn {
				t.Fatalf("api.Functions has no %s", fn)
			}
			dir, v := mainCall(t, fn)
			if routeVars[v] != fn {
				t.Errorf("functions/%s/main.go runs %s, which is not routes' entry of %s", fn, v, fn)
			}
			if got := declaredFrom(t, dir, v); got != v {
				t.Errorf("%s.%s is declared from routes.%s", filepath.Base(dir), v, got)
			}
		})
	}
	if len(api.Functions) != len(functionNames()) {
		t.Errorf("%d wirings, want one per function (%d)", len(api.Functions), len(functionNames()))
	}
}

// The Lambda path: an API Gateway v1 proxy event through httpadapter into
// the route handler, as functions/<fn> builds and runs it.
func TestLambdaEvents(t *testing.T) {
	ctx := t.Context()
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
	vars := map[string]string{"SESAME_TEST_KEY": key, "EMAIL_ID": id}
	env := envconfig.MapLookuper(map[string]string{"SESAME_TABLE": store.Table.Name, "SESAME_CURSOR_SECRET": "s", "LOG_LEVEL": "error"})
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
			f, _ := api.Function(tc.route.Function)
			h, err := f.WithAWS(localAWS).Handler(ctx, env) // what functions/<fn> runs
			if err != nil {
				t.Fatal(err)
			}
			res, err := h.(wire.RouteHandler)(ctx, ev)
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

// localAWS is the emulators' SDK configuration, without DynamoDB Local's
// unreliable checksums.
func localAWS(ctx context.Context) (aws.Config, error) {
	cfg, err := awsconfig.LoadDefaultConfig(ctx)
	cfg.APIOptions = append(cfg.APIOptions, dynamo.WithoutResponseChecksums)
	return cfg, err
}

// Every queue the stack creates has its consumer wired on the dev server
// and a function: no queue fills up unread.
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
		if _, ok := api.Function(found.Function); !ok {
			t.Errorf("consumer %s has no function in api.Functions", found.Function)
		}
	}
}

// A list route's function does not start without the cursor secret; with
// it, it serves its route. A read route that does not page needs none.
func TestListFunctionsNeedTheCursorSecret(t *testing.T) {
	ctx := t.Context()
	table := envconfig.MapLookuper(map[string]string{"SESAME_TABLE": "t"})
	_, err := emails.ListEmails.WithAWS(offline(t)).Handler(ctx, table)
	if want := "config: SESAME_CURSOR_SECRET is required by list-emails"; err == nil || err.Error() != want {
		t.Errorf("list-emails without the secret: err = %v, want %q", err, want)
	}
	withSecret := envconfig.MapLookuper(map[string]string{"SESAME_TABLE": "t", "SESAME_CURSOR_SECRET": "s"})
	if _, err := emails.ListEmails.WithAWS(offline(t)).Handler(ctx, withSecret); err != nil {
		t.Errorf("list-emails with the secret: %v", err)
	}
	if _, err := emails.GetEmail.WithAWS(offline(t)).Handler(ctx, table); err != nil {
		t.Errorf("get-email without the secret: %v", err)
	}
}

// The functions whose routes page (their operation takes the cursor
// parameter in the API document) require the cursor secret; no other
// function reads it, so the stack gives it to no other (least privilege).
func TestOnlyListRoutesReadTheCursorSecret(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(openapi.Document, &doc); err != nil {
		t.Fatal(err)
	}
	pages := map[string]bool{}
	for _, rt := range routes.All() {
		var op struct {
			Parameters []struct {
				Ref string `json:"$ref"`
			} `json:"parameters"`
		}
		if err := json.Unmarshal(doc.Paths[rt.Path][strings.ToLower(rt.Method)], &op); err != nil {
			t.Fatalf("%s %s: %v", rt.Method, rt.Path, err)
		}
		for _, p := range op.Parameters {
			if p.Ref == "#/components/parameters/Cursor" {
				pages[rt.Function] = true
			}
		}
	}
	if len(pages) == 0 {
		t.Fatal("no route of the API document takes a cursor")
	}
	pages[routes.MCP.Function] = true // its list tools are the list routes
	for _, name := range functionNames() {
		f, ok := api.Function(name)
		if !ok {
			t.Fatalf("no function %s", name)
		}
		var reads, required bool
		for _, v := range config.Vars(f.Config()) {
			if v.Name == "SESAME_CURSOR_SECRET" {
				reads, required = true, v.Required
			}
		}
		if pages[name] && !required {
			t.Errorf("%s pages, but does not require SESAME_CURSOR_SECRET", name)
		}
		if !pages[name] && reads {
			t.Errorf("%s does not page, but reads SESAME_CURSOR_SECRET", name)
		}
	}
}

// Every function builds from its config alone, its required variables
// set: the handler Lambda expects of a route or a consumer, and no call
// to AWS (DESIGN: init does no network call).
func TestFunctionsBuildWithoutNetwork(t *testing.T) {
	consumers := map[string]bool{}
	for _, c := range routes.Consumers {
		consumers[c.Function] = true
	}
	for _, f := range api.Functions {
		t.Run(f.FunctionName(), func(t *testing.T) {
			env := map[string]string{"LOG_LEVEL": "error"}
			for _, v := range config.Vars(f.Config()) {
				if v.Required {
					env[v.Name] = "x"
				}
				if v.Name == "SESAME_PUBLIC_URL" { // links are built on it
					env[v.Name] = "https://sesame.example"
				}
			}
			h, err := f.WithAWS(offline(t)).Handler(t.Context(), envconfig.MapLookuper(env))
			if err != nil {
				t.Fatal(err)
			}
			switch h.(type) {
			case wire.RouteHandler:
				if consumers[f.FunctionName()] {
					t.Error("a consumer built a route handler")
				}
			case queue.Consumer:
				if !consumers[f.FunctionName()] {
					t.Error("a route built a queue consumer")
				}
			case func(context.Context) error: // a schedule's
				if !slices.ContainsFunc(routes.Schedules, func(s routes.Scheduled) bool { return s.Function == f.FunctionName() }) {
					t.Errorf("%s built a scheduled handler", f.FunctionName())
				}
			default:
				t.Errorf("handler of type %T", h)
			}
		})
	}
}

// offline is an SDK configuration whose every call fails t.
func offline(t *testing.T) wire.LoadAWS {
	return func(context.Context) (aws.Config, error) {
		return aws.Config{
			Region:      "us-east-1",
			Credentials: credentials.NewStaticCredentialsProvider("id", "secret", ""),
			HTTPClient: doFunc(func(r *http.Request) (*http.Response, error) {
				t.Errorf("AWS call to %s", r.URL)
				return nil, errors.New("offline")
			}),
		}, nil
	}
}

type doFunc func(*http.Request) (*http.Response, error)

func (f doFunc) Do(r *http.Request) (*http.Response, error) { return f(r) }

// routeVarNames maps each variable of internal/routes to the function it
// names (Route{Function: "…"} and Consumer{Function: "…"}).
func routeVarNames(t *testing.T) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", "routes", "routes.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		spec, ok := n.(*ast.ValueSpec)
		if !ok || len(spec.Names) != 1 || len(spec.Values) != 1 {
			return true
		}
		lit, ok := spec.Values[0].(*ast.CompositeLit)
		if !ok {
			return true
		}
		for _, el := range lit.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok && isIdent(kv.Key, "Function") {
				if s, ok := kv.Value.(*ast.BasicLit); ok {
					out[spec.Names[0].Name], _ = strconv.Unquote(s.Value)
				}
			}
		}
		return true
	})
	return out
}

// mainCall reads functions/<fn>/main.go, which must be one call
// wire.Main(<package>.<V>), and returns the package's folder and V.
func mainCall(t *testing.T, fn string) (dir, v string) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", "..", "functions", fn, "main.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	imports := map[string]string{}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		imports[filepath.Base(p)] = p
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != "main" || len(fd.Body.List) != 1 {
			continue
		}
		call, ok := fd.Body.List[0].(*ast.ExprStmt).X.(*ast.CallExpr)
		if !ok || !isSelector(call.Fun, "wire", "Main") || len(call.Args) != 1 {
			break
		}
		if sel, ok := call.Args[0].(*ast.SelectorExpr); ok {
			p, ok := strings.CutPrefix(imports[sel.X.(*ast.Ident).Name], "github.com/sesame-mail/sesame/")
			if ok {
				return filepath.Join("..", "..", p), sel.Sel.Name
			}
		}
	}
	t.Fatalf("functions/%s/main.go: main is not one call wire.Main(<package>.<Function>)", fn)
	return "", ""
}

// declaredFrom returns X of the first routes.X in the declaration of
// variable v in the package in dir.
func declaredFrom(t *testing.T, dir, v string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if id.Name == v && i < len(vs.Values) {
						return firstRoute(vs.Values[i])
					}
				}
			}
		}
	}
	t.Fatalf("%s declares no variable %s", dir, v)
	return ""
}

// firstRoute is X of the first routes.X in e.
func firstRoute(e ast.Expr) string {
	found := ""
	ast.Inspect(e, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && found == "" && isIdent(sel.X, "routes") {
			found = sel.Sel.Name
		}
		return found == ""
	})
	return found
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

func isSelector(e ast.Expr, x, sel string) bool {
	s, ok := e.(*ast.SelectorExpr)
	return ok && isIdent(s.X, x) && s.Sel.Name == sel
}
