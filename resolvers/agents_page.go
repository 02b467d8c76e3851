package resolvers

import (
	"bytes"
	"context"
	"io"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/graph/model"
	"github.com/agenttrust/service/resolvers/scalar"
	"github.com/agenttrust/service/trust"
)

// AgentsPage wraps the generated schema so that a dashboard's commonest
// operation, a query whose only root field is agents with nodes of Agent's
// own fields (and trust's), is answered by a direct writer instead of
// gqlgen's per-field execution, which costs a goroutine per agent and about
// twenty allocations per field. Everything before execution (parsing,
// validation, persisted queries, complexity and depth limits) and after it
// (metrics, error presentation) is gqlgen's as before; any other operation,
// or one selecting anything this writer does not know (auditChain, factors,
// totalCount, @defer), runs through gqlgen unchanged. Fragments, aliases,
// @skip/@include and __typename are resolved by gqlgen's own CollectFields, and
// the answer is byte for byte what gqlgen writes (TestAgentsPageMatchesGqlgen).
func AgentsPage(es graphql.ExecutableSchema, r *Resolver) graphql.ExecutableSchema {
	return agentsPageSchema{ExecutableSchema: es, r: r}
}

type agentsPageSchema struct {
	graphql.ExecutableSchema
	r *Resolver
}

// pagePlan is the collected selection of an operation the writer answers.
type pagePlan struct {
	root      graphql.CollectedField
	conn      []graphql.CollectedField
	withTrust bool
}

var (
	agentScalars = map[string]bool{"__typename": true, "id": true, "name": true, "authorizedActions": true,
		"spendingLimit": true, "dailyLimit": true, "currency": true, "environment": true, "status": true,
		"fingerprint": true, "createdAt": true, "updatedAt": true}
	trustScalars = map[string]bool{"__typename": true, "agentId": true, "score": true, "assessment": true, "updatedAt": true}
	pageScalars  = map[string]bool{"__typename": true, "endCursor": true, "hasNextPage": true}
)

// plan reports whether the writer can answer the operation, and how.
func plan(oc *graphql.OperationContext) (*pagePlan, bool) {
	if oc.Operation == nil || oc.Operation.Operation != ast.Query {
		return nil, false
	}
	root := graphql.CollectFields(oc, oc.Operation.SelectionSet, []string{"Query"})
	if len(root) != 1 || root[0].Name != "agents" || len(root[0].Deferrables) > 0 {
		return nil, false
	}
	p := &pagePlan{root: root[0], conn: graphql.CollectFields(oc, root[0].Selections, []string{"AgentConnection"})}
	for _, f := range p.conn {
		if len(f.Deferrables) > 0 {
			return nil, false
		}
		switch f.Name {
		case "__typename":
		case "pageInfo":
			for _, pf := range graphql.CollectFields(oc, f.Selections, []string{"PageInfo"}) {
				if !pageScalars[pf.Name] || len(pf.Deferrables) > 0 {
					return nil, false
				}
			}
		case "nodes":
			for _, nf := range graphql.CollectFields(oc, f.Selections, []string{"Agent"}) {
				if len(nf.Deferrables) > 0 {
					return nil, false
				}
				if nf.Name == "trust" {
					for _, tf := range graphql.CollectFields(oc, nf.Selections, []string{"TrustProfile"}) {
						if !trustScalars[tf.Name] || len(tf.Deferrables) > 0 {
							return nil, false
						}
					}
					p.withTrust = true
				} else if !agentScalars[nf.Name] {
					return nil, false
				}
			}
		default:
			return nil, false
		}
	}
	return p, true
}

// Exec answers a planned operation, and hands any other to gqlgen.
func (s agentsPageSchema) Exec(ctx context.Context) graphql.ResponseHandler {
	oc := graphql.GetOperationContext(ctx)
	p, ok := plan(oc)
	if !ok {
		return s.ExecutableSchema.Exec(ctx)
	}
	var fallback graphql.ResponseHandler
	first := true
	return func(ctx context.Context) *graphql.Response {
		if fallback != nil {
			return fallback(ctx)
		}
		if !first {
			return nil
		}
		first = false
		resp, ok := s.run(ctx, oc, p)
		if !ok {
			// A resolver failed: gqlgen runs the operation again (it only
			// reads) and reports the error exactly as it always does.
			fallback = s.ExecutableSchema.Exec(ctx)
			return fallback(ctx)
		}
		return resp
	}
}

// run reads the page (and the profiles when asked) and writes the answer.
// An error of the agents resolver is reported as gqlgen reports it (at
// ["agents"], with its location; data null); a failure to read the profiles
// reports !ok, and the caller hands the operation to gqlgen.
func (s agentsPageSchema) run(ctx context.Context, oc *graphql.OperationContext, p *pagePlan) (*graphql.Response, bool) {
	status, limit, after, err := agentsArgs(p.root.ArgumentMap(oc.Variables))
	if err != nil {
		return nil, false
	}
	ctx = graphql.WithFieldContext(ctx, &graphql.FieldContext{Object: "Query"})
	ctx = graphql.WithRootFieldContext(ctx, &graphql.RootFieldContext{Object: p.root.Name, Field: p.root})
	failed := false
	out := oc.RootResolverMiddleware(ctx, func(ctx context.Context) (ret graphql.Marshaler) {
		fc := &graphql.FieldContext{Object: "Query", Field: p.root, IsMethod: true, IsResolver: true}
		ctx = graphql.WithFieldContext(ctx, fc)
		defer func() {
			if r := recover(); r != nil {
				oc.Error(ctx, oc.Recover(ctx, r))
				ret = graphql.Null
			}
		}()
		res, err := oc.ResolverMiddleware(ctx, func(ctx context.Context) (any, error) {
			return s.r.Query().Agents(ctx, status, limit, after)
		})
		if err != nil {
			oc.Error(ctx, graphql.AddFieldLocationToError(ctx, err))
			return graphql.Null
		}
		conn := res.(*model.AgentConnection)
		var profiles []*trust.Profile
		if p.withTrust && len(conn.Nodes) > 0 {
			if profiles, err = s.r.Agent().Trust(ctx, conn.Nodes); err != nil {
				failed = true
				return graphql.Null
			}
		}
		var buf bytes.Buffer
		buf.Grow(256 + 256*len(conn.Nodes))
		p.writeConnection(&buf, oc, conn, profiles)
		return rawJSON(buf.Bytes())
	})
	if failed {
		return nil, false
	}
	var buf bytes.Buffer
	if out == graphql.Null {
		buf.WriteString("null")
	} else {
		buf.WriteByte('{')
		writeKey(&buf, p.root.Alias)
		out.MarshalGQL(&buf)
		buf.WriteByte('}')
	}
	return &graphql.Response{Data: buf.Bytes()}, true
}

// rawJSON is an already written value.
type rawJSON []byte

func (r rawJSON) MarshalGQL(w io.Writer) { _, _ = w.Write(r) }

// agentsArgs coerces agents' arguments as the generated code does; the
// validator has already checked their types.
func agentsArgs(args map[string]any) (*agent.Status, *int, *string, error) {
	var (
		status *agent.Status
		limit  *int
		after  *string
	)
	if v, ok := args["status"]; ok && v != nil {
		s, err := graphql.UnmarshalString(v)
		if err != nil {
			return nil, nil, nil, err
		}
		st := agent.Status(s)
		status = &st
	}
	if v, ok := args["limit"]; ok && v != nil {
		n, err := graphql.UnmarshalInt(v)
		if err != nil {
			return nil, nil, nil, err
		}
		limit = &n
	}
	if v, ok := args["after"]; ok && v != nil {
		s, err := graphql.UnmarshalString(v)
		if err != nil {
			return nil, nil, nil, err
		}
		after = &s
	}
	return status, limit, after, nil
}

// writeConnection writes the AgentConnection object in selection order.
func (p *pagePlan) writeConnection(buf *bytes.Buffer, oc *graphql.OperationContext, conn *model.AgentConnection, profiles []*trust.Profile) {
	buf.WriteByte('{')
	for i, f := range p.conn {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeKey(buf, f.Alias)
		switch f.Name {
		case "__typename":
			graphql.MarshalString("AgentConnection").MarshalGQL(buf)
		case "pageInfo":
			writePageInfo(buf, graphql.CollectFields(oc, f.Selections, []string{"PageInfo"}), conn.PageInfo)
		case "nodes":
			fields := graphql.CollectFields(oc, f.Selections, []string{"Agent"})
			buf.WriteByte('[')
			for j, a := range conn.Nodes {
				if j > 0 {
					buf.WriteByte(',')
				}
				var prof *trust.Profile
				if profiles != nil {
					prof = profiles[j]
				}
				writeAgent(buf, oc, fields, a, prof)
			}
			buf.WriteByte(']')
		}
	}
	buf.WriteByte('}')
}

func writePageInfo(buf *bytes.Buffer, fields []graphql.CollectedField, pi *model.PageInfo) {
	buf.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeKey(buf, f.Alias)
		switch f.Name {
		case "__typename":
			graphql.MarshalString("PageInfo").MarshalGQL(buf)
		case "endCursor":
			if pi.EndCursor == nil {
				buf.WriteString("null")
			} else {
				graphql.MarshalString(*pi.EndCursor).MarshalGQL(buf)
			}
		case "hasNextPage":
			graphql.MarshalBoolean(pi.HasNextPage).MarshalGQL(buf)
		}
	}
	buf.WriteByte('}')
}

func writeAgent(buf *bytes.Buffer, oc *graphql.OperationContext, fields []graphql.CollectedField, a *agent.Agent, prof *trust.Profile) {
	buf.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeKey(buf, f.Alias)
		switch f.Name {
		case "__typename":
			graphql.MarshalString("Agent").MarshalGQL(buf)
		case "id":
			graphql.MarshalID(a.ID).MarshalGQL(buf)
		case "name":
			graphql.MarshalString(a.Name).MarshalGQL(buf)
		case "authorizedActions":
			buf.WriteByte('[')
			for j, act := range a.AuthorizedActions {
				if j > 0 {
					buf.WriteByte(',')
				}
				graphql.MarshalString(act).MarshalGQL(buf)
			}
			buf.WriteByte(']')
		case "spendingLimit":
			scalar.MarshalDecimal(a.SpendingLimit).MarshalGQL(buf)
		case "dailyLimit":
			if a.DailyLimit == nil {
				buf.WriteString("null")
			} else {
				scalar.MarshalDecimal(*a.DailyLimit).MarshalGQL(buf)
			}
		case "currency":
			graphql.MarshalString(string(a.Currency)).MarshalGQL(buf)
		case "environment":
			graphql.MarshalString(enumValue(string(a.Environment), agent.Sandbox, agent.Production)).MarshalGQL(buf)
		case "status":
			graphql.MarshalString(enumValue(string(a.Status), agent.Active, agent.Suspended)).MarshalGQL(buf)
		case "fingerprint":
			graphql.MarshalString(a.Fingerprint).MarshalGQL(buf)
		case "createdAt":
			scalar.MarshalTime(a.CreatedAt).MarshalGQL(buf)
		case "updatedAt":
			scalar.MarshalTime(a.UpdatedAt).MarshalGQL(buf)
		case "trust":
			writeTrust(buf, graphql.CollectFields(oc, f.Selections, []string{"TrustProfile"}), prof)
		}
	}
	buf.WriteByte('}')
}

func writeTrust(buf *bytes.Buffer, fields []graphql.CollectedField, p *trust.Profile) {
	buf.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeKey(buf, f.Alias)
		switch f.Name {
		case "__typename":
			graphql.MarshalString("TrustProfile").MarshalGQL(buf)
		case "agentId":
			graphql.MarshalID(p.AgentID).MarshalGQL(buf)
		case "score":
			graphql.MarshalInt(p.Score).MarshalGQL(buf)
		case "assessment":
			graphql.MarshalString(p.Assessment).MarshalGQL(buf)
		case "updatedAt":
			scalar.MarshalTime(p.UpdatedAt).MarshalGQL(buf)
		}
	}
	buf.WriteByte('}')
}

// enumValue is v when it is one of the enum's values and "" otherwise, as
// gqlgen's generated enum marshalers write it.
func enumValue[E ~string](v string, values ...E) string {
	for _, e := range values {
		if string(e) == v {
			return v
		}
	}
	return ""
}

func writeKey(buf *bytes.Buffer, alias string) {
	graphql.MarshalString(alias).MarshalGQL(buf)
	buf.WriteByte(':')
}
