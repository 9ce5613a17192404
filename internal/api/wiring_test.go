package api_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/routes"
)

// notWiring are the packages of internal/api that are not a route's
// wiring: the function framework (wire, and wire/tablefn below it) and
// the SDK's loading (sdk).
var notWiring = map[string]bool{"wire": true, "wire/tablefn": true, "sdk": true}

// The wiring packages hold constructors and the values of their
// functions, nothing else: a method or a function that returns nothing is
// behaviour, which belongs in its entity's package.
func TestWiringExportsOnlyConstructors(t *testing.T) {
	checked := 0
	for _, dir := range wiringPackages(t) {
		checked++
		for _, bad := range wiringExports(t, dir) {
			t.Errorf("internal/api/%s: %s", dir, bad)
		}
	}
	if checked < 10 {
		t.Fatalf("checked %d wiring packages", checked)
	}
}

// wiringPackages are the directories below internal/api that hold a
// route's wiring, e.g. "emails" and "emails/send".
func wiringPackages(t *testing.T) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || path == "." {
			return err
		}
		if notWiring[filepath.ToSlash(path)] {
			return nil
		}
		dirs = append(dirs, filepath.ToSlash(path))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// wiringExports lists what the package in dir exports beyond
// constructors, route values and their parameter types.
func wiringExports(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, f := range productionFiles(t, dir) {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !fn.Name.IsExported() {
				continue
			}
			switch {
			case fn.Recv != nil:
				out = append(out, "method "+fn.Name.Name+" (behaviour: its entity's package)")
			case fn.Type.Results == nil:
				out = append(out, "func "+fn.Name.Name+" returns nothing: not a constructor")
			}
		}
	}
	return out
}

// The check finds a method and a function that builds nothing.
func TestWiringExportsFindsBehaviour(t *testing.T) {
	dir := t.TempDir()
	src := `package x

type Waker struct{}

func (Waker) Wake() error { return nil }

func (w Waker) wake() {}

func New() Waker { return Waker{} }

func Run() {}
`
	if err := os.WriteFile(filepath.Join(dir, "x.go"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	got := wiringExports(t, dir)
	if len(got) != 2 || !strings.Contains(got[0], "method Wake") || !strings.Contains(got[1], "func Run") {
		t.Errorf("found %q", got)
	}
}

// namedElsewhere are the functions whose wiring is named by what it is
// (sites), and the campaign draft, whose path is /send/bulk but whose
// entity is the campaign.
var namedElsewhere = map[string]string{
	"unsubscribe": "pages", "dashboard": "site", "oauth": "authserver",
	"send-bulk": "campaigns",
}

// verbs are words of a function's name that name no route area.
var verbs = map[string]bool{"get": true, "list": true, "create": true, "update": true, "delete": true, "add": true, "check": true}

// A function's wiring is found from its name: the package its main
// imports below internal/api holds a word of the function's name (a
// verb aside, e.g. "email" of get-email in "emails") or the first segment
// of its route's path (list-clicks, /api/v1/emails/{id}/clicks: "emails").
func TestWiringNamedByRoute(t *testing.T) {
	paths := map[string]string{}
	for _, rt := range routes.All() {
		seg, _, _ := strings.Cut(strings.TrimPrefix(rt.Path, "/api/v1/"), "/")
		paths[rt.Function] = strings.TrimSuffix(seg, ".json")
	}
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", module+"functions/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		fn := strings.TrimPrefix(f[0], module+"functions/")
		wiring := ""
		for _, imp := range f[1:] {
			if p, ok := strings.CutPrefix(imp, module+"internal/api"); ok && p != "/wire" {
				wiring = strings.TrimPrefix(p, "/")
			}
		}
		checked++
		if want, ok := namedElsewhere[fn]; ok {
			if wiring != want {
				t.Errorf("%s is wired in internal/api/%s, want internal/api/%s", fn, wiring, want)
			}
			continue
		}
		words := []string{paths[fn]}
		for _, w := range strings.Split(fn, "-") {
			if !verbs[w] {
				words = append(words, strings.TrimSuffix(w, "s"))
			}
		}
		if !slices.ContainsFunc(words, func(w string) bool { return w != "" && strings.Contains(wiring, w) }) {
			t.Errorf("%s is wired in internal/api/%s, whose name holds none of %q", fn, wiring, words)
		}
	}
	if checked < 30 {
		t.Fatalf("checked %d functions", checked)
	}
}

// productionFiles parses the package in dir, its tests left out.
func productionFiles(t *testing.T, dir string) []*ast.File {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	fset := token.NewFileSet()
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}
