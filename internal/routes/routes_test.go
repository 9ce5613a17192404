package routes_test

import (
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/routes"
)

// A function serves routes of one path (its description names it, and the
// path's ANY method reaches it); no method and path is served twice.
func TestRouteFunctions(t *testing.T) {
	seen := map[string]bool{}
	n := 0
	for _, f := range routes.RouteFunctions() {
		for _, r := range f.Routes {
			n++
			if r.Path != f.Routes[0].Path || r.Function != f.Name {
				t.Errorf("function %s serves %s %s beside %s", f.Name, r.Method, r.Path, f.Routes[0].Path)
			}
			if seen[r.Method+" "+r.Path] {
				t.Errorf("%s %s is served twice", r.Method, r.Path)
			}
			seen[r.Method+" "+r.Path] = true
		}
	}
	if n != len(routes.All()) {
		t.Errorf("%d routes in functions, want %d", n, len(routes.All()))
	}
	for _, r := range routes.Pages {
		if !r.Public || strings.HasPrefix(r.Path, "/api/") {
			t.Errorf("page %s %s: pages are public and outside /api", r.Method, r.Path)
		}
	}
	for _, r := range routes.API {
		if !strings.HasPrefix(r.Path, "/api/v1/") {
			t.Errorf("API route %s %s is outside /api/v1", r.Method, r.Path)
		}
	}
	want := "Sesame GET, POST /unsubscribe/{token}"
	for _, f := range routes.RouteFunctions() {
		if f.Name == routes.Unsubscribe.Function && f.Description() != want {
			t.Errorf("Description = %q, want %q", f.Description(), want)
		}
	}
}
