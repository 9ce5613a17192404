package api_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
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
