package api_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// storageForbidden are what storage (internal/dynamo) may not depend on:
// it keeps entity types, so it imports entity packages only, never the
// console and dashboard's owner façade, a handler, the wiring, or a
// runner (the campaign engine, the automation runner).
var storageForbidden = []string{
	module + "internal/owner", module + "internal/dashboard", module + "internal/api",
	module + "internal/campaign/engine", module + "internal/automation/runner",
}

func TestStorageImportsOnlyEntities(t *testing.T) {
	storage := module + "internal/dynamo"
	imports := importGraph(t, []string{storage})
	for pkg := range imports {
		bad := strings.HasSuffix(pkg, "http") && strings.HasPrefix(pkg, module)
		for _, f := range storageForbidden {
			bad = bad || pkg == f || strings.HasPrefix(pkg, f+"/")
		}
		if bad {
			t.Errorf("internal/dynamo depends on %s: %s", strings.TrimPrefix(pkg, module), strings.Join(trim(importPath(imports, storage, pkg)), " → "))
		}
	}
}

// Handler packages (<entity>http) call their entity's service; only the
// wiring (internal/api) gives a service its store.
func TestHandlersDoNotImportStorage(t *testing.T) {
	out, err := exec.Command("go", "list", module+"internal/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var handlers []string
	for line := range strings.Lines(string(out)) {
		if p := strings.TrimSpace(line); strings.HasSuffix(p, "http") {
			handlers = append(handlers, p)
		}
	}
	if len(handlers) == 0 {
		t.Fatal("no handler package listed")
	}
	imports := importGraph(t, handlers)
	for _, h := range handlers {
		if path := importPath(imports, h, module+"internal/dynamo"); path != nil {
			t.Errorf("%s depends on storage: %s", strings.TrimPrefix(h, module), strings.Join(trim(path), " → "))
		}
	}
}

// linkBudget bounds the internal packages a route function links (go list
// -deps). get-email linked 43 when this test was written, most through
// its wiring package (internal/api/reads serves five routes) and storage
// (one dynamo package for every entity, so each new entity reaches every
// function that reads the table: stored templates and OAuth grants made
// it 45, with config's pacing shares reading capacity's defaults); the
// issue aims under 25, which needs storage split by entity and the
// wiring split by route. Lower the figure as they are; a new entity that
// raises it says so here.
var linkBudget = map[string]int{
	"functions/get-email": 45,
}

func TestRouteFunctionsLinkFewPackages(t *testing.T) {
	for fn, budget := range linkBudget {
		out, err := exec.Command("go", "list", "-deps", module+fn).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", fn, err)
		}
		var linked []string
		for line := range strings.Lines(string(out)) {
			if p := strings.TrimSpace(line); strings.HasPrefix(p, module+"internal/") {
				linked = append(linked, strings.TrimPrefix(p, module))
			}
		}
		if len(linked) > budget {
			t.Errorf("%s links %d internal packages, over its budget of %d:\n%s", fn, len(linked), budget, strings.Join(linked, "\n"))
		}
	}
}

// internal/owner is only the façade the console and the dashboard share:
// one struct whose fields are entity services, and no function, method,
// variable, constant or other type, so no owner rule can settle there
// again: a rule goes in its entity's package and service.
func TestOwnerIsOnlyAFacade(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "owner", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("internal/owner: %v, %v", files, err)
	}
	structs := 0
	for _, path := range files {
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				t.Errorf("%s: func %s: the owner façade has no functions; put the rule in its entity's service", path, d.Name.Name)
			case *ast.GenDecl:
				if d.Tok == token.IMPORT {
					continue
				}
				for _, spec := range d.Specs {
					ts, ok := spec.(*ast.TypeSpec)
					st, isStruct := (*ast.StructType)(nil), false
					if ok {
						st, isStruct = ts.Type.(*ast.StructType)
					}
					if !isStruct {
						t.Errorf("%s: a %s declaration: the owner façade declares one struct and nothing else", path, d.Tok)
						continue
					}
					structs++
					for _, field := range st.Fields.List {
						if !isEntityService(field.Type) {
							t.Errorf("%s: %s.%s is not a pointer to another package's service", path, ts.Name.Name, fieldName(field))
						}
					}
				}
			}
		}
	}
	if structs != 1 {
		t.Errorf("internal/owner declares %d structs, want the one façade", structs)
	}
}

// isEntityService says whether a field's type is *pkg.Type.
func isEntityService(e ast.Expr) bool {
	star, ok := e.(*ast.StarExpr)
	if !ok {
		return false
	}
	_, ok = star.X.(*ast.SelectorExpr)
	return ok
}

func fieldName(f *ast.Field) string {
	if len(f.Names) == 0 {
		return "(embedded)"
	}
	return f.Names[0].Name
}
