package preload

import (
	"context"
	"slices"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/agenttrust/service/agent"
)

// Selection is what an operation selects of the agents a field answers
// beyond their own columns: whether their trust, and which pages of their
// audit chains (each distinct page once, whatever the aliases).
type Selection struct {
	Trust bool
	// Fields is every field selected, by name, each once, and those of
	// trust as trust.<name>: what a page of agents reads.
	Fields []string
	Chains []agent.ChainPage
}

// Any reports whether anything needs reading ahead.
func (s Selection) Any() bool { return s.Trust || len(s.Chains) > 0 }

// OfAgent is the selection of the field being resolved, a field whose type
// is Agent (agent, and the mutations answering an agent).
func OfAgent(ctx context.Context) Selection {
	var s Selection
	oc := graphql.GetOperationContext(ctx)
	s.add(oc, graphql.GetFieldContext(ctx).Field.Selections)
	return s
}

// OfNodes is the selection of the nodes of the field being resolved, a
// field whose type is AgentConnection (agents): every nodes field and every
// node of every edges field, whatever their aliases, merged.
func OfNodes(ctx context.Context) Selection {
	s := Selection{Fields: []string{}}
	eachNode(ctx, "AgentConnection", "AgentEdge", func(oc *graphql.OperationContext, sel ast.SelectionSet) {
		s.add(oc, sel)
	})
	return s
}

// Fields is every field the nodes of the field being resolved select, a
// field whose type is the connection (with its edge type): by name, each
// once, as collected on nodeTypes (the node's type and the interfaces it
// implements). A page reads the columns of these fields alone.
func Fields(ctx context.Context, connection, edge string, nodeTypes ...string) []string {
	fields := []string{}
	eachNode(ctx, connection, edge, func(oc *graphql.OperationContext, sel ast.SelectionSet) {
		for _, f := range graphql.CollectFields(oc, sel, nodeTypes) {
			if !slices.Contains(fields, f.Name) {
				fields = append(fields, f.Name)
			}
		}
	})
	return fields
}

// eachNode calls each with the selection set of every nodes field and of
// every node of every edges field of the connection field being resolved:
// fragments, aliases and @skip/@include resolved by gqlgen's own field
// collection.
func eachNode(ctx context.Context, connection, edge string, each func(*graphql.OperationContext, ast.SelectionSet)) {
	oc := graphql.GetOperationContext(ctx)
	for _, f := range graphql.CollectFieldsCtx(ctx, []string{connection}) {
		switch f.Name {
		case "nodes":
			each(oc, f.Selections)
		case "edges":
			for _, e := range graphql.CollectFields(oc, f.Selections, []string{edge}) {
				if e.Name == "node" {
					each(oc, e.Selections)
				}
			}
		}
	}
}

// add merges what sel, a selection set on Agent (or on Node, node and
// nodes answering an agent), selects: fragments, aliases and @skip/@include
// resolved by gqlgen's own field collection.
func (s *Selection) add(oc *graphql.OperationContext, sel ast.SelectionSet) {
	for _, f := range graphql.CollectFields(oc, sel, []string{"Agent", "Node"}) {
		s.addField(f.Name)
		switch f.Name {
		case "trust":
			s.Trust = true
			for _, t := range graphql.CollectFields(oc, f.Selections, []string{"TrustProfile"}) {
				s.addField("trust." + t.Name)
			}
		case "auditChain":
			s.addChain(chainArgs(f.ArgumentMap(oc.Variables)))
		}
	}
}

func (s *Selection) addField(name string) {
	if !slices.Contains(s.Fields, name) {
		s.Fields = append(s.Fields, name)
	}
}

func (s *Selection) addChain(p agent.ChainPage) {
	for _, c := range s.Chains {
		if c == p {
			return
		}
	}
	s.Chains = append(s.Chains, p)
}

// chainArgs is the page auditChain's arguments name, coerced as the
// generated code coerces them (the validator has checked their types).
func chainArgs(args map[string]any) agent.ChainPage {
	var after, limit *int
	if v, err := graphql.UnmarshalInt(args["after"]); err == nil && args["after"] != nil {
		after = &v
	}
	if v, err := graphql.UnmarshalInt(args["limit"]); err == nil && args["limit"] != nil {
		limit = &v
	}
	return ChainPage(after, limit)
}
