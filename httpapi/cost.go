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

// Costs of the fields whose work is more than reading a column of a row
// already loaded. A field costs base + per × (the cost of its selection);
// every other field costs 1 + its selection, and a field with a `limit`
// argument (a page, an audit chain) multiplies its selection by that limit.
var fieldCosts = map[string]func(args map[string]any) (base, per int64){
	// An export reads and renders up to 50,000 rows: most of one operation's budget.
	"Query.exportTransactions": func(map[string]any) (int64, int64) { return 40000, 1 },
	// Counting is O(matching rows).
	"AgentConnection.totalCount":       func(map[string]any) (int64, int64) { return 5000, 1 },
	"TransactionConnection.totalCount": func(map[string]any) (int64, int64) { return 5000, 1 },
	"DisputeConnection.totalCount":     func(map[string]any) (int64, int64) { return 5000, 1 },
	// Verification re-hashes the chain entries since its last checkpoint.
	"Query.verifyAgent": func(map[string]any) (int64, int64) { return 1000, 1 },
	// A batch reads one row per id asked.
	"Query.batchTrust": func(args map[string]any) (int64, int64) {
		ids, _ := args["agentIds"].([]any)
		return 1, max(int64(len(ids)), 1)
	},
	// nodes reads one object per id asked.
	"Query.nodes": func(args map[string]any) (int64, int64) {
		ids, _ := args["ids"].([]any)
		return 1, max(int64(len(ids)), 1)
	},
	// History keeps up to 1,000 snapshots per agent.
	"Query.trustHistory": func(map[string]any) (int64, int64) { return 1, 1000 },
	// Usage reads the agent and its policy's sums: two statements per agent.
	"Agent.policyUsage": func(map[string]any) (int64, int64) { return 100, 1 },
	// A series answers up to 2,000 buckets.
	"Query.spendSeries": func(map[string]any) (int64, int64) { return 2000, 1 },
	// The overview reads every agent's counters, like a count.
	"Query.overview": func(map[string]any) (int64, int64) { return 5000, 1 },
	// A simulation lists up to policy.MaxSimulatedOutcomes transactions (the
	// rows it reads are charged as they are read).
	"PolicySimulation.outcomes": func(map[string]any) (int64, int64) { return 1, 100 },
}

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

func (l operationLimits) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
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
	w := costWalk{vars: oc.Variables, frags: oc.Doc.Fragments, lists: l.lists, memo: map[string]int64{}}
	c := w.set(oc.Operation.SelectionSet, 0)
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

// costWalk sums field costs with each fragment's cost computed once per
// page size it is spread under.
type costWalk struct {
	vars  map[string]any
	frags ast.FragmentDefinitionList
	lists map[string]ratio
	memo  map[string]int64
}

// set costs a selection set; pageSize multiplies the `nodes` of a connection.
func (w costWalk) set(set ast.SelectionSet, pageSize int64) int64 {
	var total int64
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			total = satAdd(total, w.field(s, pageSize))
		case *ast.InlineFragment:
			total = satAdd(total, w.set(s.SelectionSet, pageSize))
		case *ast.FragmentSpread:
			key := s.Name + "/" + strconv.FormatInt(pageSize, 10)
			c, ok := w.memo[key]
			if !ok {
				w.memo[key] = 0
				if f := w.frags.ForName(s.Name); f != nil {
					c = w.set(f.SelectionSet, pageSize)
				}
				w.memo[key] = c
			}
			total = satAdd(total, c)
		}
	}
	return total
}

func (w costWalk) field(f *ast.Field, pageSize int64) int64 {
	base, per, childPage := int64(1), int64(1), int64(0)
	if (f.Name == "nodes" || f.Name == "edges") && pageSize > 0 {
		per = pageSize
	}
	args := f.ArgumentMap(w.vars)
	if limit, ok := pageArg(args); ok {
		limit = min(max(limit, 1), 1_000_000)
		if f.Definition != nil && strings.HasSuffix(f.Definition.Type.Name(), "Connection") {
			childPage = limit // a page: its nodes cost limit times their element
		} else {
			per = limit // a list: each element costs its selection
		}
	}
	if f.ObjectDefinition != nil {
		name := f.ObjectDefinition.Name + "." + f.Name
		if fn, ok := fieldCosts[name]; ok {
			base, per = fn(args)
		}
		if r, ok := w.lists[name]; ok {
			return satAdd(1, r.of(w.set(f.SelectionSet, 0)))
		}
	}
	return satAdd(base, satMul(per, w.set(f.SelectionSet, childPage)))
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
