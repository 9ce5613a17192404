package openapi_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/deliverability"
	"github.com/sesame-mail/sesame/internal/openapi"
)

// The generators clients use, pinned. go run fetches oapi-codegen through
// the module proxy, checked against the checksum database, into the module
// cache; the npm tools are in localstack/package.json.
const (
	oapiCodegen = "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2"
	// oapiRuntime is the library the generated Go client imports.
	oapiRuntime = "github.com/oapi-codegen/runtime@v1.9.0"
)

// oapi-codegen generates a Go client from the document that compiles, passes
// go vet and reads what Sesame answers (testdata/goclient).
func TestGoClient(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	doc := writeFile(t, dir, "openapi.json", openapi.Document)
	config, err := filepath.Abs("oapi-codegen.yaml")
	if err != nil {
		t.Fatal(err)
	}
	client := run(t, dir, "go", "run", oapiCodegen, "-config", config, doc)
	writeFile(t, dir, "client.gen.go", client)
	writeFile(t, dir, "client_test.go", readFile(t, "testdata/goclient/client_test.go"))
	report, rules := deliverabilityAnswers(t)
	writeFile(t, dir, "report.json", report)
	writeFile(t, dir, "rules.json", rules)
	writeFile(t, dir, "go.mod", []byte("module example.com/sesameclient\n\ngo 1.24\n"))
	run(t, dir, "go", "mod", "edit", "-require="+oapiRuntime)
	run(t, dir, "go", "mod", "tidy")
	run(t, dir, "go", "vet", "./...")
	run(t, dir, "go", "test", "-count=1", "./...")
}

// openapi-typescript generates types from the document that tsc --strict
// accepts, and that type what Sesame answers (testdata/tsclient).
func TestTypeScriptTypes(t *testing.T) {
	t.Parallel()
	bin := nodeTools(t, "openapi-typescript", "tsc")
	dir := t.TempDir()
	doc := writeFile(t, dir, "openapi.json", openapi.Document)
	run(t, dir, bin["openapi-typescript"], doc, "--output", filepath.Join(dir, "api.d.ts"))
	writeFile(t, dir, "check.ts", readFile(t, "testdata/tsclient/check.ts"))
	report, rules := deliverabilityAnswers(t)
	// JSON is a TypeScript expression: tsc checks each value against the type.
	answers := fmt.Sprintf("import type { components } from \"./api\";\n\n"+
		"export const report: components[\"schemas\"][\"DeliverabilityReport\"] = %s;\n\n"+
		"export const rules: components[\"schemas\"][\"DeliverabilityFinding\"][] = %s;\n", report, rules)
	writeFile(t, dir, "sesame.ts", []byte(answers))
	run(t, dir, bin["tsc"], "--noEmit", "--strict", "api.d.ts", "check.ts", "sesame.ts")
}

// deliverabilityAnswers are the deliverability check's report on an email
// that breaks several rules, and a finding of every rule, as JSON.
func deliverabilityAnswers(t *testing.T) (report, rules []byte) {
	t.Helper()
	r := deliverability.Check(deliverability.Input{
		Subject: "ACT NOW",
		HTML:    `<form><input type="password"></form><a href="http://192.0.2.1/x">win</a><script>x()</script>`,
		Bulk:    true,
	})
	var all []deliverability.Finding
	for _, rule := range deliverability.Rules {
		all = append(all, deliverability.Finding{ID: rule.ID, Severity: rule.Severity, Message: "m"})
	}
	report, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	rules, err = json.Marshal(all)
	if err != nil {
		t.Fatal(err)
	}
	return report, rules
}

// nodeTools finds the npm tools named in localstack/node_modules/.bin, and
// fails the test when node or one of them is missing.
func nodeTools(t *testing.T, names ...string) map[string]string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not installed: run `make deps` (it installs Node.js and the npm tools)")
	}
	bin, err := filepath.Abs(filepath.Join("..", "..", "localstack", "node_modules", ".bin"))
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]string{}
	for _, name := range names {
		path := filepath.Join(bin, name)
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s is not installed: run `make deps` (npm ci in localstack/)", path)
		}
		found[name] = path
	}
	return found
}

// run runs name with args in dir, fails the test with its output if it
// fails, and returns what it printed on stdout.
func run(t *testing.T, dir, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), name, args...)
	cmd.Dir = dir
	// The temporary module is on its own: no workspace of the caller's.
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s%s", filepath.Base(name), strings.Join(args, " "), err, stdout.Bytes(), stderr.Bytes())
	}
	return stdout.Bytes()
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The official Go client's generated layer (clients/go/api) is what the
// pinned oapi-codegen makes of the document: a change to the API that the
// client does not follow (`make clients`) fails here.
func TestGoClientFollowsDocument(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	doc := writeFile(t, dir, "openapi.json", openapi.Document)
	config, err := filepath.Abs("../../clients/go/api/oapi-codegen.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fresh := run(t, dir, "go", "run", oapiCodegen, "-config", config, doc)
	sameGenerated(t, "clients/go/api/api.gen.go", fresh, readFile(t, "../../clients/go/api/api.gen.go"))
}

// The official TypeScript client, its tests and the README's quick start
// type-check (tsc --noEmit, strict) against types freshly generated from
// the document, and its committed types (clients/typescript/src/schema.ts)
// are those.
func TestTypeScriptClientFollowsDocument(t *testing.T) {
	t.Parallel()
	pkg, err := filepath.Abs("../../clients/typescript")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(pkg, "node_modules", ".bin")
	for _, tool := range []string{"openapi-typescript", "tsc"} {
		if _, err := os.Stat(filepath.Join(bin, tool)); errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s is not installed: run `make deps` (npm ci in clients/typescript)", tool)
		}
	}
	// The package's sources and config, beside its installed tools.
	dir := t.TempDir()
	for _, sub := range []string{"src", "test"} {
		if err := os.CopyFS(filepath.Join(dir, sub), os.DirFS(filepath.Join(pkg, sub))); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"package.json", "tsconfig.json"} {
		writeFile(t, dir, name, readFile(t, filepath.Join(pkg, name)))
	}
	if err := os.Symlink(filepath.Join(pkg, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, filepath.Join("test", "readme.ts"), readmeTypeScript(t))
	doc := writeFile(t, dir, "openapi.json", openapi.Document)
	run(t, dir, filepath.Join(bin, "openapi-typescript"), doc, "--output", filepath.Join(dir, "src", "schema.ts"))
	run(t, dir, filepath.Join(bin, "tsc"), "-p", ".", "--noEmit")
	sameGenerated(t, "clients/typescript/src/schema.ts", readFile(t, filepath.Join(dir, "src", "schema.ts")), readFile(t, filepath.Join(pkg, "src", "schema.ts")))
}

// sameGenerated fails when a committed generated file is not the fresh one.
func sameGenerated(t *testing.T, name string, fresh, committed []byte) {
	t.Helper()
	if bytes.Equal(fresh, committed) {
		return
	}
	fl, cl := strings.Split(string(fresh), "\n"), strings.Split(string(committed), "\n")
	line := 0
	for line < min(len(fl), len(cl)) && fl[line] == cl[line] {
		line++
	}
	at := func(l []string) string {
		if line < len(l) {
			return l[line]
		}
		return "(end of file)"
	}
	t.Errorf("%s does not follow internal/openapi/openapi.json: run `make clients` and adapt the client.\nline %d is %q, generated now %q", name, line+1, at(cl), at(fl))
}

// readmeTypeScript is the README's TypeScript quick start as a module of
// the package's tests: the package imported from its sources, and the
// request handler's variables declared.
func readmeTypeScript(t *testing.T) []byte {
	t.Helper()
	_, after, ok := strings.Cut(string(readFile(t, "../../README.md")), "## Clients")
	_, block, found := strings.Cut(after, "```ts\n")
	block, _, closed := strings.Cut(block, "```\n")
	if !ok || !found || !closed {
		t.Fatal("README.md has no TypeScript block under ## Clients")
	}
	block = strings.Replace(block, `from "@sesame-mail/client"`, `from "../src/index.js"`, 1)
	return []byte("declare const secret: string;\ndeclare const request: Request;\n" + block)
}
