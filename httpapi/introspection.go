package httpapi

import (
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
)

// ratio is how many elements a list holds on average: num / den.
type ratio struct{ num, den int64 }

// of is r times cost, rounded up and saturated.
func (r ratio) of(cost int64) int64 {
	den := max(r.den, 1)
	return (satMul(cost, r.num) + den - 1) / den // satMul saturates far below overflow
}

// introspectionLists prices the lists of introspection by how many elements
// they hold in schema: __schema's types by the number of types, a type's
// fields by the fields per type, a field's arguments by the arguments per
// field, and so on. An introspection query then costs about the number of
// fields of its answer, as any other query does, however small its document.
func introspectionLists(schema *ast.Schema) map[string]ratio {
	var types, fields, args, inputs, enums, ifaces, possible int64
	for _, d := range schema.Types {
		types++
		switch d.Kind {
		case ast.Object, ast.Interface:
			for _, f := range d.Fields {
				if !strings.HasPrefix(f.Name, "__") {
					fields++
					args += int64(len(f.Arguments))
				}
			}
			ifaces += int64(len(d.Interfaces))
		case ast.InputObject:
			inputs += int64(len(d.Fields))
		case ast.Enum:
			enums += int64(len(d.EnumValues))
		}
		if d.Kind == ast.Interface || d.Kind == ast.Union {
			possible += int64(len(schema.GetPossibleTypes(d)))
		}
	}
	var directives, directiveArgs int64
	for _, d := range schema.Directives {
		directives++
		directiveArgs += int64(len(d.Arguments))
	}
	return map[string]ratio{
		"__Schema.types":       {types, 1},
		"__Schema.directives":  {directives, 1},
		"__Type.fields":        {fields, types},
		"__Type.inputFields":   {inputs, types},
		"__Type.enumValues":    {enums, types},
		"__Type.interfaces":    {ifaces, types},
		"__Type.possibleTypes": {possible, types},
		"__Field.args":         {args, fields},
		"__Directive.args":     {directiveArgs, directives},
	}
}
