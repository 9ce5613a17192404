package api_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// storageForbidden are what storage (internal/dynamo and its storage
// packages) may not depend on: it keeps entity types, so it imports entity
// packages only, never the console and dashboard's owner façade, a
// handler, the wiring, or a runner (the campaign engine, the automation
// runner).
var storageForbidden = []string{
	module + "internal/owner", module + "internal/dashboard", module + "internal/api",
	module + "internal/campaign/engine", module + "internal/automation/runner",
}

// storagePackages are the table core and every storage package under it,
// without the test helpers (dynamotest, storetest).
func storagePackages(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "list", module+"internal/dynamo/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []string
	for line := range strings.Lines(string(out)) {
		p := strings.TrimSpace(line)
		if p != "" && !strings.HasSuffix(p, "test") {
			pkgs = append(pkgs, p)
		}
	}
	if len(pkgs) < 3 {
		t.Fatalf("go list found %d storage packages", len(pkgs))
	}
	return pkgs
}

func TestStorageImportsOnlyEntities(t *testing.T) {
	storage := storagePackages(t)
	imports := importGraph(t, storage)
	for _, s := range storage {
		for pkg := range imports {
			bad := strings.HasSuffix(pkg, "http") && strings.HasPrefix(pkg, module)
			for _, f := range storageForbidden {
				bad = bad || pkg == f || strings.HasPrefix(pkg, f+"/")
			}
			if path := importPath(imports, s, pkg); bad && path != nil {
				t.Errorf("%s depends on %s: %s", strings.TrimPrefix(s, module), strings.TrimPrefix(pkg, module), strings.Join(trim(path), " → "))
			}
		}
	}
}

// storageCore is all the table core (internal/dynamo) may link: the
// schema and the error vocabulary, no entity, so a function that reads one
// entity links that entity's storage package and no other.
var storageCore = []string{"internal/dynamo/schema", "internal/fail"}

func TestStorageCoreImportsNoEntity(t *testing.T) {
	core := module + "internal/dynamo"
	imports := importGraph(t, []string{core})
	for pkg := range imports {
		if !strings.HasPrefix(pkg, module) || pkg == core || slices.Contains(storageCore, strings.TrimPrefix(pkg, module)) {
			continue
		}
		t.Errorf("internal/dynamo depends on %s: %s", strings.TrimPrefix(pkg, module), strings.Join(trim(importPath(imports, core, pkg)), " → "))
	}
}

// storageShared are what every storage package may import: the core, the
// schema, the error vocabulary and ids, and workspace (a write under a
// workspace that is gone fails as workspace.ErrNotFound).
var storageShared = []string{"internal/dynamo", "internal/dynamo/schema", "internal/fail", "internal/ident", "internal/workspace"}

// storageImports are, beyond storageShared, what each storage package may
// import: its own entity packages and, where its transactions write
// another entity's items, that entity's storage package (an edge here is a
// reason, never a convenience). repositories gathers them all.
var storageImports = map[string][]string{
	"accountdb":       {"internal/account", "internal/email"}, // a connection's emails tallied in the audit log
	"apikeydb":        {"internal/apikey"},
	"automationdb":    {"internal/automation", "internal/apikey"}, // a run's environment
	"capacitydb":      {"internal/sending/capacity"},
	"contactdb":       {"internal/contact", "internal/automation"}, // EventContact answers the trigger's ContactRef
	"emaildb":         {"internal/email", "internal/apikey"},       // an email's environment
	"emailtemplatedb": {"internal/emailtemplate"},
	"eventdb":         {"internal/event"},
	"metricsdb":       {"internal/metrics"},
	"segmentdb":       {"internal/segment"},
	"signindb":        {"internal/signin"},
	"suppressiondb":   {"internal/suppression"},
	"webhookdb":       {"internal/webhook", "internal/event"}, // deliveries carry events
	"workspacedb":     {"internal/workspace", "internal/identity"},
	// An OAuth access token is stored as an API key secret (apikeydb's item).
	"oauthdb": {"internal/oauth", "internal/apikey", "internal/dynamo/apikeydb"},
	// A campaign is created with its Idempotency-Key claim in one
	// transaction (sendingdb's), its sender read from the workspace's.
	"campaigndb": {"internal/campaign", "internal/sending", "internal/dynamo/sendingdb", "internal/dynamo/workspacedb"},
	// The send path writes the email, its kept content and a scheduled
	// email's wake with the claim, and reads the workspace and sender in
	// the same round trip as the suppressions and usage.
	"sendingdb": {"internal/sending", "internal/email", "internal/suppression", "internal/automation",
		"internal/dynamo/emaildb", "internal/dynamo/workspacedb", "internal/dynamo/automationdb"},
	// The pipeline writes the email's status, the feed, clicks and
	// suppressions together.
	"statusdb": {"internal/status", "internal/email", "internal/suppression",
		"internal/dynamo/emaildb", "internal/dynamo/eventdb", "internal/dynamo/suppressiondb"},
	// List mail (campaigns and automations) reads recipients' contacts,
	// claims each email by writing its item and counts usage as the send
	// path does.
	"listmaildb": {"internal/campaign", "internal/email", "internal/status", "internal/suppression",
		"internal/dynamo/contactdb", "internal/dynamo/emaildb", "internal/dynamo/sendingdb"},
}

func TestStoragePackagesImportTheirEntities(t *testing.T) {
	core := module + "internal/dynamo"
	for _, pkg := range storagePackages(t) {
		name := strings.TrimPrefix(pkg, core+"/")
		if pkg == core || name == "schema" || name == "repositories" {
			continue
		}
		allowed, ok := storageImports[name]
		if !ok {
			t.Errorf("storage package %s has no row in storageImports", name)
			continue
		}
		out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		for line := range strings.Lines(string(out)) {
			imp := strings.TrimPrefix(strings.TrimSpace(line), module)
			if !strings.HasPrefix(imp, "internal/") || slices.Contains(storageShared, imp) || slices.Contains(allowed, imp) {
				continue
			}
			t.Errorf("%s imports %s, not in its storageImports row", name, imp)
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
