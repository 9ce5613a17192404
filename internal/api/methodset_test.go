package api_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxMethods is the most exported methods one type may have: more is a
// god type that should be split by entity or concern.
const maxMethods = 20

// No type of the repository's production code has more than maxMethods
// exported methods.
func TestNoGodTypes(t *testing.T) {
	counts := map[string]int{}
	for _, root := range []string{"..", filepath.Join("..", "..", "cmd")} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Recv == nil || !fn.Name.IsExported() {
					continue
				}
				recv := fn.Recv.List[0].Type
				if star, ok := recv.(*ast.StarExpr); ok {
					recv = star.X
				}
				if id, ok := recv.(*ast.Ident); ok {
					counts[filepath.Dir(path)+"."+id.Name]++
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(counts) < 20 {
		t.Fatalf("found methods of only %d types: the scan is broken", len(counts))
	}
	for typ, n := range counts {
		if n > maxMethods {
			t.Errorf("%s has %d exported methods, over %d: split it by entity or concern", typ, n, maxMethods)
		}
	}
}
