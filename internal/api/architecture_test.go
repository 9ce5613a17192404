package api_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/sesame-mail/sesame/"

// domainPackages are plain Go: they know nothing of HTTP, so a route, a
// queue consumer, the console and a campaign run the same code.
var domainPackages = []string{
	"internal/email", "internal/sending", "internal/attachment", "internal/event",
	"internal/metrics", "internal/identity", "internal/webhook", "internal/status", "internal/contact",
	"internal/review", "internal/compose", "internal/workspace", "internal/apikey",
	"internal/owner", "internal/unsubscribe", "internal/suppression", "internal/cost", "internal/sizing", "internal/segment", "internal/deliverability", "internal/campaign/engine",
	"internal/campaign", "internal/automation", "internal/automation/runner", "internal/sending/listmail", "internal/signin", "internal/account",
	"internal/oauth",
}

// forbidden are what no domain package may depend on, even indirectly:
// net/http (which any AWS SDK client and aws-lambda-go/events pull in too)
// and the API core, which alone maps errors to HTTP.
var forbidden = []string{"net/http", module + "internal/httpapi"}

// Domain packages are transport-neutral (docs/architecture.md): HTTP lives
// in the <domain>http handler packages and in the adapters.
func TestDomainPackagesAreTransportNeutral(t *testing.T) {
	var pkgs []string
	for _, p := range domainPackages {
		pkgs = append(pkgs, module+p)
	}
	imports := importGraph(t, pkgs)
	for _, pkg := range pkgs {
		for _, bad := range forbidden {
			if path := importPath(imports, pkg, bad); path != nil {
				t.Errorf("%s depends on %s: %s", strings.TrimPrefix(pkg, module), bad, strings.Join(trim(path), " → "))
			}
		}
	}
}

// runners run entities (send campaigns, execute automation runs): storage
// keeps their records, which live in the entity packages, and never links
// them, so a route that reads the table does not link a sender.
var runners = []string{"internal/campaign/engine", "internal/automation/runner"}

func TestStorageLinksNoRunner(t *testing.T) {
	storage := storagePackages(t)
	imports := importGraph(t, storage)
	for _, s := range storage {
		for _, r := range runners {
			if path := importPath(imports, s, module+r); path != nil {
				t.Errorf("%s depends on %s: %s", strings.TrimPrefix(s, module), r, strings.Join(trim(path), " → "))
			}
		}
	}
}

// importGraph maps every package pkgs depend on to its direct imports.
func importGraph(t *testing.T, pkgs []string) map[string][]string {
	t.Helper()
	args := append([]string{"list", "-deps", "-f", "{{.ImportPath}}:{{join .Imports \" \"}}"}, pkgs...)
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	graph := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		pkg, deps, _ := strings.Cut(strings.TrimSpace(line), ":")
		graph[pkg] = strings.Fields(deps)
	}
	for _, p := range pkgs {
		if _, ok := graph[p]; !ok {
			t.Fatalf("go list did not list %s", p)
		}
	}
	return graph
}

// importPath is the shortest chain of imports from pkg to target, or nil.
func importPath(graph map[string][]string, pkg, target string) []string {
	prev := map[string]string{pkg: ""}
	queue := []string{pkg}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p == target {
			var path []string
			for ; p != ""; p = prev[p] {
				path = append(path, p)
			}
			slices.Reverse(path)
			return path
		}
		for _, next := range graph[p] {
			if _, seen := prev[next]; !seen {
				prev[next] = p
				queue = append(queue, next)
			}
		}
	}
	return nil
}

func trim(path []string) []string {
	out := make([]string, len(path))
	for i, p := range path {
		out[i] = strings.TrimPrefix(p, module)
	}
	return out
}

// The check itself finds what it looks for.
func TestImportPathFindsIndirectImports(t *testing.T) {
	graph := importGraph(t, []string{module + "internal/api"})
	path := importPath(graph, module+"internal/api", "net/http")
	if len(path) < 2 || path[0] != module+"internal/api" || path[len(path)-1] != "net/http" {
		t.Errorf("path from internal/api to net/http = %v", path)
	}
	if importPath(graph, module+"internal/fail", "net/http") != nil {
		t.Error("internal/fail reaches net/http")
	}
}

// initCompiles are the calls that compile at package initialization what
// only some paths use (the review's patterns): they belong in a
// sync.OnceValue, or in the function that needs them.
var initCompiles = map[string][]string{
	"regexp":        {"Compile", "MustCompile", "CompilePOSIX", "MustCompilePOSIX"},
	"html/template": {"Must", "New"},
	"text/template": {"Must", "New"},
}

// No package that a function links compiles a regular expression or a
// template at init: every start would pay for it, used or not (DESIGN:
// init ≤ 1.2× a binary that only builds the SDK clients).
func TestNothingCompiledAtInit(t *testing.T) {
	cmd := exec.Command("go", "list", "-tags", "lambda.norpc", "-deps", "-f", "{{.ImportPath}} {{.Dir}} {{join .GoFiles \" \"}}", "../../functions/...")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if !strings.HasPrefix(f[0], module) {
			continue
		}
		checked++
		for _, name := range f[2:] {
			for _, at := range compiledAtInit(t, filepath.Join(f[1], name)) {
				t.Errorf("%s: %s at package initialization", strings.TrimPrefix(f[0], module), at)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("checked %d packages of the functions", checked)
	}
}

// compiledAtInit lists the initCompiles calls that file runs at package
// initialization: in a package variable's value (outside function
// literals, unless called there and then) or in func init.
func compiledAtInit(t *testing.T, file string) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	imports := map[string]string{} // local name → path
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		name := path.Base(p)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		imports[name] = p
	}
	var found []string
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // runs when called, not here
		case *ast.CallExpr:
			if lit, ok := n.Fun.(*ast.FuncLit); ok {
				ast.Inspect(lit.Body, visit) // called right away
			}
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && slices.Contains(initCompiles[imports[x.Name]], sel.Sel.Name) {
					found = append(found, fmt.Sprintf("%s: %s.%s", fset.Position(n.Pos()), imports[x.Name], sel.Sel.Name))
				}
			}
		}
		return true
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok == token.VAR {
				ast.Inspect(d, visit)
			}
		case *ast.FuncDecl:
			if d.Name.Name == "init" && d.Recv == nil {
				ast.Inspect(d.Body, visit)
			}
		}
	}
	return found
}

// The check finds a compile at init, and only there.
func TestCompiledAtInitFindsThem(t *testing.T) {
	file := filepath.Join(t.TempDir(), "x.go")
	src := `package x

import (
	"regexp"
	tpl "text/template"
	"sync"
)

var eager = regexp.MustCompile("a")
var iife = func() *regexp.Regexp { return regexp.MustCompile("b") }()
var lazy = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("c") })
var t = tpl.Must(tpl.New("t").Parse("x"))

func init() { _ = regexp.MustCompile("d") }

func later() { _ = regexp.MustCompile("e") }
`
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, at := range compiledAtInit(t, file) {
		_, rest, _ := strings.Cut(at, "x.go:")
		lines = append(lines, rest)
	}
	want := []string{"9:13: regexp.MustCompile", "10:43: regexp.MustCompile", "12:9: text/template.Must", "12:18: text/template.New", "14:19: regexp.MustCompile"}
	if !slices.Equal(lines, want) {
		t.Errorf("found %q, want %q", lines, want)
	}
}

// senders are the functions that write MIME messages: only they link the
// MIME writer (go-mail, with x/text and html/template), which the others
// would start for nothing (BenchmarkInit).
var senders = []string{"send", "send-batch", "review", "campaign-sender", "automation-runner",
	"mcp"} // its send_email tool is the send route

func TestOnlySendersLinkTheMIMEWriter(t *testing.T) {
	const writer = "github.com/wneessen/go-mail"
	dirs, err := filepath.Glob("../../functions/*")
	if err != nil || len(dirs) < 10 {
		t.Fatalf("functions: %v, %v", dirs, err)
	}
	for _, dir := range dirs {
		out, err := exec.Command("go", "list", "-tags", "lambda.norpc", "-deps", dir).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", dir, err)
		}
		fn := filepath.Base(dir)
		links := slices.Contains(strings.Fields(string(out)), writer)
		if want := slices.Contains(senders, fn); links != want {
			t.Errorf("%s links %s: %v, want %v", fn, writer, links, want)
		}
	}
}
