package api_test

import (
	"go/ast"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// handlerFieldTypes are the non-pointer field types a handler may hold:
// the cursor signer and plain settings.
var handlerFieldTypes = map[string]bool{"httpapi.Cursors": true, "string": true}

// Handlers call their entity's service, never a store: a handler package
// (internal/**/<entity>http) declares no interface that reads through a
// context (a store), and every field of its Handlers (or Handler) struct is a pointer to a
// concrete service (*email.Service, *slog.Logger), the cursor signer or a
// string. A store is an interface, so it fits neither; the wiring gives
// the service its store, and batch or retry logic lives in the service.
func TestHandlersHoldServices(t *testing.T) {
	checked := 0
	err := filepath.WalkDir("../../internal", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || !strings.HasSuffix(d.Name(), "http") || d.Name() == "httpapi" {
			return err
		}
		checked++
		for _, bad := range handlerStores(t, path) {
			t.Errorf("%s: %s", strings.TrimPrefix(path, "../../"), bad)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 10 {
		t.Fatalf("checked %d handler packages", checked)
	}
}

// handlerStores lists what the package in dir holds or declares that is
// not a service.
func handlerStores(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, f := range productionFiles(t, dir) {
		ast.Inspect(f, func(n ast.Node) bool {
			spec, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			switch typ := spec.Type.(type) {
			case *ast.InterfaceType:
				if readsWithContext(typ) {
					out = append(out, "interface "+spec.Name.Name+" (a store: its service's package)")
				}
			case *ast.StructType:
				if spec.Name.Name != "Handlers" && spec.Name.Name != "Handler" {
					return false
				}
				for _, field := range typ.Fields.List {
					if _, ptr := field.Type.(*ast.StarExpr); ptr || handlerFieldTypes[types(field.Type)] {
						continue
					}
					out = append(out, spec.Name.Name+" holds "+types(field.Type)+" (not a service)")
				}
			}
			return false
		})
	}
	return out
}

// readsWithContext says whether a method of iface takes a context first:
// it reaches a store or a service, not a value checking itself.
func readsWithContext(iface *ast.InterfaceType) bool {
	for _, m := range iface.Methods.List {
		fn, ok := m.Type.(*ast.FuncType)
		if ok && len(fn.Params.List) > 0 && types(fn.Params.List[0].Type) == "context.Context" {
			return true
		}
	}
	return false
}

// types is a field type as written: "x.T", "T", or "?" for other shapes.
func types(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok {
			return x.Name + "." + e.Sel.Name
		}
	}
	return "?"
}

// The check finds a store interface, held or declared, and passes services.
func TestHandlerStoresFindsStores(t *testing.T) {
	dir := t.TempDir()
	src := `package xhttp

type Reader interface{ Read(ctx context.Context) error }

type Validator interface{ Validate() error }

type Handlers struct {
	Service *x.Service
	Store   x.Store
	Cursors httpapi.Cursors
	Now     func() time.Time
}

type Body struct{ Store x.Store }
`
	if err := os.WriteFile(filepath.Join(dir, "x.go"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	got := handlerStores(t, dir)
	want := []string{"interface Reader", "Handlers holds x.Store", "Handlers holds ?"}
	if len(got) != len(want) {
		t.Fatalf("found %q, want %q", got, want)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("found %q, want %q", got[i], want[i])
		}
	}
}
