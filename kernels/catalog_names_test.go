package kernels_test

import (
	"go/ast"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConstructorsNamedForEntries holds the naming rule of doc.go for the
// catalog: a function that returns one entry is named for the entry's
// catalog name, group first, so kernels.LibReduce is "lib/reduce" and never
// reads as the collective gpu.Reduce or the primitive device.Reduce.
func TestConstructorsNamedForEntries(t *testing.T) {
	_, files := parseKernels(t)
	checked := 0
	for _, f := range files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !returnsEntry(fn) {
				continue
			}
			name := entryName(fn)
			require.NotEmpty(t, name, "%s sets no Name literal", fn.Name.Name)
			assert.Equal(t, squeeze(name), strings.ToLower(fn.Name.Name), "%s builds %q", fn.Name.Name, name)
			checked++
		}
	}
	assert.GreaterOrEqual(t, checked, 20)
}

// returnsEntry reports whether fn is an exported, parameterless function
// returning *Entry.
func returnsEntry(fn *ast.FuncDecl) bool {
	if fn.Recv != nil || !fn.Name.IsExported() || fn.Type.Params.NumFields() != 0 || fn.Type.Results.NumFields() != 1 {
		return false
	}
	star, ok := fn.Type.Results.List[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	id, isIdent := star.X.(*ast.Ident)
	return isIdent && id.Name == "Entry"
}

// entryName returns the first Name: "group/name" literal in fn's body.
func entryName(fn *ast.FuncDecl) string {
	name := ""
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		kv, ok := n.(*ast.KeyValueExpr)
		if !ok || name != "" {
			return name == ""
		}
		key, isIdent := kv.Key.(*ast.Ident)
		lit, isLit := kv.Value.(*ast.BasicLit)
		if isIdent && isLit && key.Name == "Name" && lit.Kind == token.STRING {
			s, _ := strconv.Unquote(lit.Value)
			if strings.Contains(s, "/") {
				name = s
			}
		}
		return true
	})
	return name
}

// squeeze lowers a catalog name and drops its separators: "lib/bfs-coop"
// becomes "libbfscoop", as LibBFSCoop lowered.
func squeeze(name string) string {
	return strings.NewReplacer("/", "", "-", "", "_", "").Replace(strings.ToLower(name))
}
