package client_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestReasonCodesMatchThePolicy: the client's Reason* constants are exactly
// the reason codes the server's policy package (with the mandate codes it
// takes from the mandate package) can return, read from both packages' source.
func TestReasonCodesMatchThePolicy(t *testing.T) {
	t.Parallel()
	client := reasonConsts(t, ".", "Reason", nil)
	mandate := reasonConsts(t, "../mandate", "Code", nil)
	server := reasonConsts(t, "../policy", "Reason", map[string]map[string]string{"mandate": mandate})
	if len(server) < 25 {
		t.Fatalf("read %d policy codes, want at least 25: %v", len(server), server)
	}
	got, want := codeSet(client), codeSet(server)
	if !slices.Equal(got, want) {
		t.Errorf("client reason codes\n %v\nwant the policy's\n %v", got, want)
	}
}

// reasonConsts reads the string constants named prefix* in dir's non-test
// files, by name; a constant naming another package's constant (pkg.Name)
// is resolved through imported.
func reasonConsts(t *testing.T, dir, prefix string, imported map[string]map[string]string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range file.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.CONST {
				continue
			}
			for _, spec := range gen.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if !strings.HasPrefix(name.Name, prefix) || i >= len(vs.Values) {
						continue
					}
					switch v := vs.Values[i].(type) {
					case *ast.BasicLit:
						if v.Kind == token.STRING {
							s, err := strconv.Unquote(v.Value)
							if err != nil {
								t.Fatal(err)
							}
							out[name.Name] = s
						}
					case *ast.SelectorExpr:
						pkg, _ := v.X.(*ast.Ident)
						if pkg == nil || imported[pkg.Name][v.Sel.Name] == "" {
							t.Fatalf("%s: %s: cannot resolve its value", f, name.Name)
						}
						out[name.Name] = imported[pkg.Name][v.Sel.Name]
					}
				}
			}
		}
	}
	return out
}

// codeSet is the sorted, distinct values of consts.
func codeSet(consts map[string]string) []string {
	var out []string
	for _, v := range consts {
		out = append(out, v)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
