package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// rootFieldCaps bound how often one root field may appear in an operation
// (aliases count), where the general cap is too generous for its work. The
// schema's answer is the same however often it is asked, so no client asks
// it twice: aliased copies would only multiply its thousands of fields.
var rootFieldCaps = map[string]int{"exportTransactions": 1, "__schema": 1}

// saturation keeps cost arithmetic from overflowing; anything this large is
// over every limit anyway.
const saturation = int64(1) << 40

func satAdd(a, b int64) int64 { return min(a+b, saturation) }
func satMul(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > saturation/b {
		return saturation
	}
	return min(a*b, saturation)
}

// operationLimits refuses, before anything runs, an operation whose cost is
// over the limit or which selects too many root fields: in all, of one name,
// or mutations. Its walk visits each fragment once per operation, so its work
// is bounded by the document's size however the fragments spread.
type operationLimits struct {
	maxCost                                  int64
	maxRootFields, maxSameRoot, maxMutations int
	// schema answers each field's complexity function (complexity).
	schema graphql.ExecutableSchema
	// lists prices the introspection lists by the schema's size
	// (introspectionLists).
	lists map[string]ratio
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = operationLimits{}

func (operationLimits) ExtensionName() string                   { return "OperationLimits" }
func (operationLimits) Validate(graphql.ExecutableSchema) error { return nil }

func (l operationLimits) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Operation == nil {
		return nil
	}
	roots := rootFields(oc.Operation.SelectionSet, oc.Doc.Fragments)
	var total int64
	names := make([]string, 0, len(roots))
	for name, n := range roots {
		total = satAdd(total, n)
		names = append(names, name)
	}
	sort.Strings(names) // a stable message for the same document
	if total > int64(l.maxRootFields) {
		return documentError("the operation selects %s root fields, more than the limit of %d (aliases count)", count(total), l.maxRootFields)
	}
	if oc.Operation.Operation == ast.Mutation && total > int64(l.maxMutations) {
		return documentError("the operation runs %d mutations, more than the limit of %d per request", total, l.maxMutations)
	}
	for _, name := range names {
		limit := l.maxSameRoot
		if c, ok := rootFieldCaps[name]; ok {
			limit = c
		}
		if roots[name] > int64(limit) {
			return documentError("the operation selects %s %d times, more than the limit of %d", name, roots[name], limit)
		}
	}
	w := costWalk{schema: l.schema, vars: oc.Variables, frags: oc.Doc.Fragments, lists: l.lists, memo: map[string]int64{}}
	c := w.set(ctx, oc.Operation.SelectionSet, 0)
	if c > l.maxCost {
		return documentError("the operation is too complex: its cost is %s, more than the limit of %d", count(c), l.maxCost)
	}
	if oc.Operation.Operation != ast.Subscription {
		// What costCharge charges. A subscription's operation context
		// lives as long as the subscription, and the stats' map with it
		// (about 300 bytes each): its one root field is counted again there.
		oc.Stats.SetExtension(chargeStat, charge(total, c))
	}
	return nil
}

// costPerToken is how much cost one rate-limit token pays for: a page of
// 200 rows of a dozen fields with its totalCount (the client library's
// list) is one token, so ordinary operations pay one token per root field,
// while a full introspection (its answer's thousands of fields) or a page
// of audit chains pays for its work.
const costPerToken = 8_000

// charge is what an operation of roots root fields and cost costs the
// caller's rate limit: a token per root field, or a token per costPerToken
// of its cost when that is more.
func charge(roots, cost int64) int64 {
	return max(roots, (cost+costPerToken-1)/costPerToken, 1)
}

// chargeStat names the tokens (an int64) that operationLimits leaves in a
// query's or mutation's stats for costCharge.
const chargeStat = "agenttrust.charge"

// count renders a saturated figure honestly.
func count(n int64) string {
	if n >= saturation {
		return fmt.Sprintf("more than %d", saturation)
	}
	return fmt.Sprint(n)
}

// rootFields counts the root fields of set by name, through fragments, each
// fragment's counts computed once.
func rootFields(set ast.SelectionSet, frags ast.FragmentDefinitionList) map[string]int64 {
	memo := map[string]map[string]int64{}
	var walk func(ast.SelectionSet) map[string]int64
	walk = func(set ast.SelectionSet) map[string]int64 {
		out := map[string]int64{}
		add := func(m map[string]int64) {
			for k, v := range m {
				out[k] = satAdd(out[k], v)
			}
		}
		for _, sel := range set {
			switch s := sel.(type) {
			case *ast.Field:
				if s.Name != "__typename" {
					out[s.Name] = satAdd(out[s.Name], 1)
				}
			case *ast.InlineFragment:
				add(walk(s.SelectionSet))
			case *ast.FragmentSpread:
				m, ok := memo[s.Name]
				if !ok {
					memo[s.Name] = nil // a cycle adds nothing; validation refused cycles already
					if f := frags.ForName(s.Name); f != nil {
						m = walk(f.SelectionSet)
					}
					memo[s.Name] = m
				}
				add(m)
			}
		}
		return out
	}
	return walk(set)
}

// costWalk adds up an operation's cost: each field's complexity function
// (complexity, through schema.Complexity) given the cost of its selection and
// its arguments, as gqlgen's complexity.Calculate does, with three things
// that walk cannot do. It computes each fragment's cost once per page size it
// is spread under, where gqlgen's walks every spread again (2^depth for
// fragments spreading the next twice). It multiplies a page's nodes and edges
// by the connection field's first, last or limit, an argument of another
// field than theirs. And it prices the introspection lists by the schema's
// size (lists), which have no complexity functions.
type costWalk struct {
	schema graphql.ExecutableSchema
	vars   map[string]any
	frags  ast.FragmentDefinitionList
	lists  map[string]ratio
	memo   map[string]int64
}

// set costs a selection set; page multiplies the `nodes` and `edges` of a
// connection.
func (w costWalk) set(ctx context.Context, set ast.SelectionSet, page int64) int64 {
	var total int64
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			total = satAdd(total, w.field(ctx, s, page))
		case *ast.InlineFragment:
			total = satAdd(total, w.set(ctx, s.SelectionSet, page))
		case *ast.FragmentSpread:
			key := s.Name + "/" + strconv.FormatInt(page, 10)
			c, ok := w.memo[key]
			if !ok {
				w.memo[key] = 0
				if f := w.frags.ForName(s.Name); f != nil {
					c = w.set(ctx, f.SelectionSet, page)
				}
				w.memo[key] = c
			}
			total = satAdd(total, c)
		}
	}
	return total
}

func (w costWalk) field(ctx context.Context, f *ast.Field, page int64) int64 {
	args := f.ArgumentMap(w.vars)
	var childPage int64
	if n, ok := pageArg(args); ok && strings.HasSuffix(f.Definition.Type.Name(), "Connection") {
		childPage = pageSize(n)
	}
	child := w.set(ctx, f.SelectionSet, childPage)
	if (f.Name == "nodes" || f.Name == "edges") && page > 0 {
		child = satMul(page, child)
	}
	if r, ok := w.lists[f.ObjectDefinition.Name+"."+f.Name]; ok {
		return satAdd(1, r.of(child))
	}
	if f.ObjectDefinition.Kind != ast.Interface {
		return w.complexity(ctx, f.ObjectDefinition, f.Name, child, args)
	}
	// A field of an interface costs what it costs in its most expensive
	// implementation, as in gqlgen's walk.
	var most int64
	for _, t := range w.schema.Schema().GetPossibleTypes(f.ObjectDefinition) {
		most = max(most, w.complexity(ctx, t, f.Name, child, args))
	}
	return most
}

// complexity is the cost of field of t: its complexity function's, or 1 plus
// its selection's without one. A field whose arguments do not parse has no
// complexity function either; it runs nothing, its arguments refused when it
// executes.
func (w costWalk) complexity(ctx context.Context, t *ast.Definition, field string, child int64, args map[string]any) int64 {
	if c, ok := w.schema.Complexity(ctx, t.Name, field, int(child), args); ok && c >= 1 {
		return min(int64(c), saturation)
	}
	return satAdd(1, child)
}

// pageArg is a page's size: first or last (the Relay arguments) when
// given, else limit.
func pageArg(args map[string]any) (int64, bool) {
	for _, name := range []string{"first", "last"} {
		if n, ok := intArg(args[name]); ok {
			return n, true
		}
	}
	return intArg(args["limit"])
}

func intArg(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int64:
		return n, true
	case int32:
		return int64(n), true
	case float64:
		return int64(n), true
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	}
	return 0, false
}
