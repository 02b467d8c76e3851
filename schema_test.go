package main

import (
	"os"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// The schema is the API's reference, so every type, field, argument, input
// field and enum value in it is described.
func TestSchemaIsFullyDescribed(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("schema.graphqls")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := parser.ParseSchema(&ast.Source{Name: "schema.graphqls", Input: string(src)})
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	check := func(what, desc string) {
		if strings.TrimSpace(desc) == "" {
			missing = append(missing, what)
		}
	}
	defs := append(append(ast.DefinitionList{}, doc.Definitions...), doc.Extensions...)
	for _, d := range defs {
		if !isExtension(doc, d) {
			check(string(d.Kind)+" "+d.Name, d.Description)
		}
		for _, f := range d.Fields {
			check(d.Name+"."+f.Name, f.Description)
			for _, a := range f.Arguments {
				check(d.Name+"."+f.Name+"("+a.Name+")", a.Description)
			}
		}
		for _, v := range d.EnumValues {
			check(d.Name+"."+v.Name, v.Description)
		}
	}
	for _, d := range doc.Directives {
		if d.Name == "goField" {
			continue // gqlgen's own, never seen by clients
		}
		check("directive @"+d.Name, d.Description)
		for _, a := range d.Arguments {
			check("@"+d.Name+"("+a.Name+")", a.Description)
		}
	}
	if len(missing) > 0 {
		t.Errorf("%d schema elements lack a description:\n  %s", len(missing), strings.Join(missing, "\n  "))
	}
}

// isExtension reports whether d is an `extend type`, which carries no description of its own.
func isExtension(doc *ast.SchemaDocument, d *ast.Definition) bool {
	for _, e := range doc.Extensions {
		if e == d {
			return true
		}
	}
	return false
}
