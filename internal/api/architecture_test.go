package api_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/sesame-mail/sesame/"

// domainPackages are plain Go: they know nothing of HTTP, so a route, a
// queue consumer, the console and a campaign run the same code.
var domainPackages = []string{
	"internal/email", "internal/sending", "internal/attachment", "internal/event",
	"internal/metrics", "internal/identity", "internal/webhook", "internal/status",
	"internal/review", "internal/compose", "internal/workspace", "internal/apikey",
	"internal/owner",
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
