package kernels_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parseKernels parses the package's non-test source files.
func parseKernels(t *testing.T) (*token.FileSet, []*ast.File) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		files = append(files, f)
	}
	require.NotEmpty(t, files)
	return fset, files
}

// hasLiteral reports whether e contains a non-empty string literal.
func hasLiteral(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if b, ok := n.(*ast.BasicLit); ok && b.Kind == token.STRING && b.Value != `""` {
			found = true
		}
		return !found
	})
	return found
}

// isSwitch reports whether e reads an injection switch: x.inject or
// p.Inject.
func isSwitch(e ast.Expr) bool {
	s, ok := e.(*ast.SelectorExpr)
	return ok && (s.Sel.Name == "inject" || s.Sel.Name == "Inject")
}

// TestInjectionNamesAreConstants reads the package's source. A kernel's
// table and its body must name an injection by constant, never by a
// string literal, so that a typo in either is a compile error rather than
// an injection silently switched off; and an injection's Where must name
// its function through where, so that a renamed function cannot leave a
// stale name behind.
func TestInjectionNamesAreConstants(t *testing.T) {
	fset, files := parseKernels(t)
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BinaryExpr:
				literal := (n.Op == token.EQL || n.Op == token.NEQ) && (isSwitch(n.X) && hasLiteral(n.Y) || isSwitch(n.Y) && hasLiteral(n.X))
				assert.False(t, literal, "%v: an injection compared with a string literal", fset.Position(n.Pos()))
			case *ast.SwitchStmt:
				checkCases(t, fset, n)
			case *ast.CompositeLit:
				checkInjection(t, fset, n)
			}
			return true
		})
	}
}

// checkCases fails t on a switch over an injection with a literal case.
func checkCases(t *testing.T, fset *token.FileSet, s *ast.SwitchStmt) {
	if s.Tag == nil || !isSwitch(s.Tag) {
		return
	}
	for _, c := range s.Body.List {
		for _, e := range c.(*ast.CaseClause).List {
			assert.False(t, hasLiteral(e), "%v: an injection's case is a string literal", fset.Position(e.Pos()))
		}
	}
}

// checkInjection fails t on an Injection literal whose Name is a string
// literal or whose Where is not computed by where.
func checkInjection(t *testing.T, fset *token.FileSet, l *ast.CompositeLit) {
	if id, ok := l.Type.(*ast.Ident); !ok || id.Name != "Injection" {
		return
	}
	for _, e := range l.Elts {
		kv := e.(*ast.KeyValueExpr)
		switch kv.Key.(*ast.Ident).Name {
		case "Name":
			assert.False(t, hasLiteral(kv.Value), "%v: an injection named by a string literal", fset.Position(kv.Pos()))
		case "Where":
			assert.True(t, isWhereCall(kv.Value), "%v: an injection's Where not computed by where", fset.Position(kv.Pos()))
		}
	}
}

// isWhereCall reports whether e is a call of where, or a helper's
// parameter (whose callers are checked where they call it).
func isWhereCall(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.CallExpr:
		id, ok := e.Fun.(*ast.Ident)
		return ok && id.Name == "where"
	case *ast.Ident:
		return true
	}
	return false
}

// TestInjectionConstantsUsed: every injection name constant is used at
// least twice, in a table and in a kernel body; one used only in its
// table would be a switch that changes nothing.
func TestInjectionConstantsUsed(t *testing.T) {
	_, files := parseKernels(t)
	uses := map[string]int{}
	for _, f := range files {
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
				for _, s := range g.Specs {
					for _, id := range s.(*ast.ValueSpec).Names {
						if strings.HasPrefix(id.Name, "inj") {
							uses[id.Name] = -1 // the declaration is not a use
						}
					}
				}
			}
		}
	}
	require.NotEmpty(t, uses)
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if _, isConst := uses[id.Name]; isConst {
					uses[id.Name]++
				}
			}
			return true
		})
	}
	for name, n := range uses {
		assert.GreaterOrEqual(t, n, 2, "%s is used %d times: in its table only?", name, n)
	}
}
