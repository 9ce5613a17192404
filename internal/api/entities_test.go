package api_test

import (
	"os/exec"
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
