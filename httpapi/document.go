package httpapi

import (
	"context"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/agenttrust/service/auth"
)

// documentGate runs the cheap checks on a document before gqlgen validates
// it: its size in bytes and tokens, how often one response name and how
// many fragments it uses, and its depth. Every check walks each fragment
// once, so its work is bounded by the document's size whatever the fragments
// spread. Cached documents passed it already and skip it.
//
// The response-name and fragment caps bound validation itself: gqlparser's
// check that same-named fields can merge compares every pair of fields
// sharing a response name, recursively, so its work grows with the square
// of their number (BENCHMARKS.md has what an uncapped document costs). With
// at most maxSameName fields per response name and maxFragments fragment
// spreads and inline fragments per document, those pairs stay in the tens
// of thousands.
type documentGate struct {
	maxBytes, maxTokens, maxDepth int
	maxSameName, maxFragments     int
	cache                         *documentCache
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
} = documentGate{}

func (documentGate) ExtensionName() string                   { return "DocumentGate" }
func (documentGate) Validate(graphql.ExecutableSchema) error { return nil }

func (g documentGate) MutateOperationParameters(ctx context.Context, p *graphql.RawParams) *gqlerror.Error {
	if p.Query == "" || g.cache.has(ctx, p.Query) {
		return nil
	}
	if len(p.Query) > g.maxBytes {
		return documentError("the document is %d bytes, more than the limit of %d", len(p.Query), g.maxBytes)
	}
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: p.Query}, g.maxTokens)
	if err != nil {
		// gqlgen parses again and reports a syntax error as GRAPHQL_PARSE_FAILED;
		// only the token limit is ours to answer.
		if strings.Contains(err.Error(), "token limit") {
			return documentError("the document has more than %d tokens", g.maxTokens)
		}
		return nil
	}
	if err := g.shape(doc); err != nil {
		return err
	}
	w := depthWalk{frags: doc.Fragments, memo: map[string]int{}}
	for _, op := range doc.Operations {
		if d := w.set(op.SelectionSet); d > g.maxDepth {
			return documentError("operation is nested %d levels deep, more than the limit of %d", d, g.maxDepth)
		}
	}
	return nil
}

// shape counts, over the document's text (each fragment definition once),
// the fields per response name and the fragment spreads and inline fragments.
func (g documentGate) shape(doc *ast.QueryDocument) *gqlerror.Error {
	names := map[string]int{}
	fragments := 0
	var walk func(ast.SelectionSet) *gqlerror.Error
	walk = func(set ast.SelectionSet) *gqlerror.Error {
		for _, sel := range set {
			switch s := sel.(type) {
			case *ast.Field:
				key := s.Alias
				if key == "" {
					key = s.Name
				}
				if names[key]++; names[key] > g.maxSameName {
					return documentError("the document selects %q more than %d times", key, g.maxSameName)
				}
				if err := walk(s.SelectionSet); err != nil {
					return err
				}
			case *ast.InlineFragment:
				if fragments++; fragments > g.maxFragments {
					return documentError("the document uses more than %d fragment spreads and inline fragments", g.maxFragments)
				}
				if err := walk(s.SelectionSet); err != nil {
					return err
				}
			case *ast.FragmentSpread:
				if fragments++; fragments > g.maxFragments {
					return documentError("the document uses more than %d fragment spreads and inline fragments", g.maxFragments)
				}
			}
		}
		return nil
	}
	for _, op := range doc.Operations {
		if err := walk(op.SelectionSet); err != nil {
			return err
		}
	}
	for _, f := range doc.Fragments {
		if err := walk(f.SelectionSet); err != nil {
			return err
		}
	}
	return nil
}

// documentError is a refusal of the document itself: GRAPHQL_VALIDATION_FAILED.
func documentError(format string, args ...any) *gqlerror.Error {
	err := gqlerror.Errorf(format, args...)
	errcode.Set(err, errcode.ValidationFailed)
	return err
}

// depthWalk measures selection depth, counting fields only (introspection
// fields are exempt so the playground keeps working). Each fragment's depth
// is computed once; a fragment cycle counts as 0 here and is refused by
// validation.
type depthWalk struct {
	frags ast.FragmentDefinitionList
	memo  map[string]int // fragment name → depth; -1 while being walked
}

func (w depthWalk) set(set ast.SelectionSet) int {
	deepest := 0
	for _, sel := range set {
		var d int
		switch s := sel.(type) {
		case *ast.Field:
			if strings.HasPrefix(s.Name, "__") {
				continue
			}
			d = 1 + w.set(s.SelectionSet)
		case *ast.InlineFragment:
			d = w.set(s.SelectionSet)
		case *ast.FragmentSpread:
			d = w.fragment(s.Name)
		}
		deepest = max(deepest, d)
	}
	return deepest
}

func (w depthWalk) fragment(name string) int {
	if d, ok := w.memo[name]; ok {
		return max(d, 0)
	}
	f := w.frags.ForName(name)
	if f == nil {
		return 0
	}
	w.memo[name] = -1
	d := w.set(f.SelectionSet)
	w.memo[name] = d
	return d
}

// documentCache keeps parsed, validated documents of at most maxBytes: a
// larger document is parsed afresh each time rather than pinning memory.
// Before a document is kept it rewrites its Decimal literals to their raw
// text (see exactDecimalLiterals), so the document is changed before any
// other request can see it.
type documentCache struct {
	maxBytes int
	inner    graphql.Cache[*ast.QueryDocument]
}

func (c *documentCache) has(ctx context.Context, query string) bool {
	if len(query) > c.maxBytes {
		return false
	}
	_, ok := c.inner.Get(ctx, query)
	return ok
}

func (c *documentCache) Get(ctx context.Context, query string) (*ast.QueryDocument, bool) {
	if len(query) > c.maxBytes {
		return nil, false
	}
	return c.inner.Get(ctx, query)
}

// Add is called by gqlgen once per freshly parsed and validated document.
func (c *documentCache) Add(ctx context.Context, query string, doc *ast.QueryDocument) {
	exactDecimalLiterals(doc)
	if len(query) <= c.maxBytes {
		c.inner.Add(ctx, query, doc)
	}
}

// stringCache is the persisted-query cache: it keeps no query over
// maxBytes, and each organization's hashes apart (orgScope), so a hash
// answers only the queries its caller's organization has registered.
type stringCache struct {
	maxBytes int
	inner    graphql.Cache[string]
}

func (c stringCache) Get(ctx context.Context, hash string) (string, bool) {
	key, ok := orgScope(ctx, hash)
	if !ok {
		return "", false
	}
	return c.inner.Get(ctx, key)
}

func (c stringCache) Add(ctx context.Context, hash, query string) {
	if key, ok := orgScope(ctx, hash); ok && len(query) <= c.maxBytes {
		c.inner.Add(ctx, key, query)
	}
}

// orgScope is hash's key in the persisted-query cache for the caller's
// organization; false without a principal, whose queries are not kept.
func orgScope(ctx context.Context, hash string) (string, bool) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return "", false
	}
	return p.OrgID + "/" + hash, true
}

// exactDecimalLiterals turns every number literal the schema expects as a
// Decimal into a string literal with the same raw text. gqlparser reads
// number literals through float64 (70368744177664.01 would become …64.02,
// 1e400 an error); as a string, the Decimal scalar parses the literal's
// exact text, so a literal and a variable always mean the same amount.
func exactDecimalLiterals(doc *ast.QueryDocument) {
	for _, op := range doc.Operations {
		for _, v := range op.VariableDefinitions {
			decimalsInValue(v.DefaultValue)
		}
		decimalsInSet(op.SelectionSet)
	}
	for _, f := range doc.Fragments {
		decimalsInSet(f.SelectionSet)
	}
}

func decimalsInSet(set ast.SelectionSet) {
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			for _, a := range s.Arguments {
				decimalsInValue(a.Value)
			}
			decimalsInSet(s.SelectionSet)
		case *ast.InlineFragment:
			decimalsInSet(s.SelectionSet)
		}
	}
}

func decimalsInValue(v *ast.Value) {
	if v == nil {
		return
	}
	switch v.Kind {
	case ast.IntValue, ast.FloatValue:
		if v.ExpectedType != nil && v.ExpectedType.NamedType == "Decimal" {
			v.Kind = ast.StringValue
		}
	case ast.ListValue, ast.ObjectValue:
		for _, c := range v.Children {
			decimalsInValue(c.Value)
		}
	}
}
