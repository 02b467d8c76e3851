package resolvers

import (
	"bytes"
	"context"
	"io"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/graph/model"
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
// the answer is byte for byte what gqlgen's execution sends through
// encoding/json (TestAgentsPageMatchesGqlgen): the writer escapes <, >, &,
// U+2028 and U+2029 itself, so the edge sends its data as it is (PlainMark).
func AgentsPage(es graphql.ExecutableSchema, r *Resolver) graphql.ExecutableSchema {
	return agentsPageSchema{ExecutableSchema: es, r: r, answered: new(atomic.Int64)}
}

type agentsPageSchema struct {
	graphql.ExecutableSchema
	r        *Resolver
	answered *atomic.Int64 // operations the writer answered itself (tests read it)
}

// pagePlan is the collected selection of an operation the writer answers,
// collected once per operation, not per agent.
type pagePlan struct {
	root      graphql.CollectedField
	conn      []field
	withTrust bool
}

// field is one collected field to write: its name, its JSON key (the alias,
// quoted, with the colon) and, for an object, its own fields.
type field struct {
	name   string
	key    []byte
	fields []field
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
	p := &pagePlan{root: root[0]}
	conn, ok := collect(oc, root[0].Selections, "AgentConnection", func(f graphql.CollectedField) ([]field, bool) {
		switch f.Name {
		case "__typename":
			return nil, true
		case "pageInfo":
			return collect(oc, f.Selections, "PageInfo", scalarsOf(pageScalars))
		case "nodes":
			return collect(oc, f.Selections, "Agent", func(nf graphql.CollectedField) ([]field, bool) {
				if nf.Name == "trust" {
					p.withTrust = true
					return collect(oc, nf.Selections, "TrustProfile", scalarsOf(trustScalars))
				}
				return nil, agentScalars[nf.Name]
			})
		}
		return nil, false
	})
	if !ok {
		return nil, false
	}
	p.conn = conn
	return p, true
}

// collect collects a selection set on typ with gqlgen's CollectFields
// (fragments, aliases, merged fields, @skip/@include); sub accepts a field
// and returns its own fields. Any field sub refuses, or any @defer, makes
// the whole operation gqlgen's.
func collect(oc *graphql.OperationContext, sel ast.SelectionSet, typ string, sub func(graphql.CollectedField) ([]field, bool)) ([]field, bool) {
	collected := graphql.CollectFields(oc, sel, []string{typ})
	out := make([]field, len(collected))
	for i, f := range collected {
		if len(f.Deferrables) > 0 {
			return nil, false
		}
		fields, ok := sub(f)
		if !ok {
			return nil, false
		}
		key := appendString(make([]byte, 0, len(f.Alias)+3), f.Alias)
		out[i] = field{name: f.Name, key: append(key, ':'), fields: fields}
	}
	return out, true
}

func scalarsOf(names map[string]bool) func(graphql.CollectedField) ([]field, bool) {
	return func(f graphql.CollectedField) ([]field, bool) { return nil, names[f.Name] }
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
		resp, plain, ok := s.run(ctx, oc, p)
		if !ok {
			// A resolver failed: gqlgen runs the operation again (it only
			// reads) and reports the error exactly as it always does.
			fallback = s.ExecutableSchema.Exec(ctx)
			return fallback(ctx)
		}
		if m, marked := ctx.Value(plainKey{}).(*bool); marked && plain {
			*m = true
		}
		s.answered.Add(1)
		return resp
	}
}

type plainKey struct{}

// PlainMark returns ctx with a mark that the agents page writer sets when it
// answers the operation itself with data of its own writing: compact, and
// with the characters encoding/json escapes (<, >, &, U+2028, U+2029)
// already escaped, so that {"data":…} around it is byte for byte what
// encoding/json would write and the edge can send it without checking it.
func PlainMark(ctx context.Context) (context.Context, *bool) {
	m := new(bool)
	return context.WithValue(ctx, plainKey{}, m), m
}

// run reads the page (and the profiles when asked) and writes the answer,
// plain when the data is all of the writer's own making (not a value a
// middleware put in its place). An error of the agents resolver is reported
// as gqlgen reports it (at ["agents"], with its location; data null); a
// failure to read the profiles reports !ok, and the caller hands the
// operation to gqlgen.
func (s agentsPageSchema) run(ctx context.Context, oc *graphql.OperationContext, p *pagePlan) (resp *graphql.Response, plain, ok bool) {
	status, limit, after, err := agentsArgs(p.root.ArgumentMap(oc.Variables))
	if err != nil {
		return nil, false, false
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
		var profiles []*trust.Profile
		res, err := oc.ResolverMiddleware(ctx, func(ctx context.Context) (any, error) {
			if p.withTrust { // the page and its profiles in one statement
				conn, read, err := s.r.agentsWithTrust(ctx, status, limit, after)
				profiles = read
				return conn, err
			}
			return s.r.Query().Agents(ctx, status, limit, after)
		})
		if err != nil {
			oc.Error(ctx, graphql.AddFieldLocationToError(ctx, err))
			return graphql.Null
		}
		conn := res.(*model.AgentConnection)
		if p.withTrust && !profilesOf(conn.Nodes, profiles) {
			// A middleware answered another page, or an agent has no
			// counters: the batched trust resolver reads them (and reports
			// its error as gqlgen does).
			if profiles, err = s.r.Agent().Trust(ctx, conn.Nodes); err != nil {
				failed = true
				return graphql.Null
			}
		}
		var buf bytes.Buffer
		buf.Grow(256 + 256*len(conn.Nodes))
		p.writeConnection(&buf, conn, profiles)
		return rawJSON(buf.Bytes())
	})
	if failed {
		return nil, false, false
	}
	var buf bytes.Buffer
	if out == graphql.Null {
		buf.WriteString("null")
	} else {
		buf.WriteByte('{')
		writeString(&buf, p.root.Alias)
		buf.WriteByte(':')
		out.MarshalGQL(&buf)
		buf.WriteByte('}')
	}
	_, own := out.(rawJSON)
	return &graphql.Response{Data: buf.Bytes()}, own || out == graphql.Null, true
}

// agentsWithTrust is Query.agents with each agent's trust profile, read by
// the page's own statement (profiles[i] is conn.Nodes[i]'s, nil for an agent
// without counters).
func (r *Resolver) agentsWithTrust(ctx context.Context, status *agent.Status, limit *int, after *string) (*model.AgentConnection, []*trust.Profile, error) {
	page, profiles, err := r.svc.Trust.ListWithProfiles(ctx, listFilter(status, limit, after))
	if err != nil {
		return nil, nil, err
	}
	return agentConnection(page, status), profiles, nil
}

// profilesOf reports whether profiles are the nodes' own, one each.
func profilesOf(nodes []*agent.Agent, profiles []*trust.Profile) bool {
	if len(profiles) != len(nodes) {
		return false
	}
	for i, p := range profiles {
		if p == nil || p.AgentID != nodes[i].ID {
			return false
		}
	}
	return true
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
func (p *pagePlan) writeConnection(buf *bytes.Buffer, conn *model.AgentConnection, profiles []*trust.Profile) {
	buf.WriteByte('{')
	for i, f := range p.conn {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(f.key)
		switch f.name {
		case "__typename":
			writeString(buf, "AgentConnection")
		case "pageInfo":
			writePageInfo(buf, f.fields, conn.PageInfo)
		case "nodes":
			buf.WriteByte('[')
			for j, a := range conn.Nodes {
				if j > 0 {
					buf.WriteByte(',')
				}
				var prof *trust.Profile
				if profiles != nil {
					prof = profiles[j]
				}
				writeAgent(buf, f.fields, a, prof)
			}
			buf.WriteByte(']')
		}
	}
	buf.WriteByte('}')
}

func writePageInfo(buf *bytes.Buffer, fields []field, pi *model.PageInfo) {
	buf.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(f.key)
		switch f.name {
		case "__typename":
			writeString(buf, "PageInfo")
		case "endCursor":
			if pi.EndCursor == nil {
				buf.WriteString("null")
			} else {
				writeString(buf, *pi.EndCursor)
			}
		case "hasNextPage":
			buf.Write(strconv.AppendBool(buf.AvailableBuffer(), pi.HasNextPage))
		}
	}
	buf.WriteByte('}')
}

func writeAgent(buf *bytes.Buffer, fields []field, a *agent.Agent, prof *trust.Profile) {
	buf.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(f.key)
		switch f.name {
		case "__typename":
			writeString(buf, "Agent")
		case "id":
			writeString(buf, a.ID)
		case "name":
			writeString(buf, a.Name)
		case "authorizedActions":
			buf.WriteByte('[')
			for j, act := range a.AuthorizedActions {
				if j > 0 {
					buf.WriteByte(',')
				}
				writeString(buf, act)
			}
			buf.WriteByte(']')
		case "spendingLimit":
			buf.Write(a.SpendingLimit.Append(buf.AvailableBuffer())) // String's form, as scalar.MarshalDecimal
		case "dailyLimit":
			if a.DailyLimit == nil {
				buf.WriteString("null")
			} else {
				buf.Write(a.DailyLimit.Append(buf.AvailableBuffer()))
			}
		case "currency":
			writeString(buf, string(a.Currency))
		case "environment":
			writeString(buf, enumValue(string(a.Environment), agent.Sandbox, agent.Production))
		case "status":
			writeString(buf, enumValue(string(a.Status), agent.Active, agent.Suspended))
		case "fingerprint":
			writeString(buf, a.Fingerprint)
		case "createdAt":
			writeTime(buf, a.CreatedAt)
		case "updatedAt":
			writeTime(buf, a.UpdatedAt)
		case "trust":
			writeTrust(buf, f.fields, prof)
		}
	}
	buf.WriteByte('}')
}

func writeTrust(buf *bytes.Buffer, fields []field, p *trust.Profile) {
	buf.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(f.key)
		switch f.name {
		case "__typename":
			writeString(buf, "TrustProfile")
		case "agentId":
			writeString(buf, p.AgentID)
		case "score":
			buf.Write(strconv.AppendInt(buf.AvailableBuffer(), int64(p.Score), 10))
		case "assessment":
			writeString(buf, p.Assessment)
		case "updatedAt":
			writeTime(buf, p.UpdatedAt)
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

// writeTime writes a Time as scalar.MarshalTime does.
func writeTime(buf *bytes.Buffer, t time.Time) {
	b := append(buf.AvailableBuffer(), '"')
	b = event.AppendTime(b, t)
	buf.Write(append(b, '"'))
}

// writeString writes s as a JSON string as the edge sends what gqlgen's
// MarshalString writes: control characters, backslash and quote escaped as
// gqlgen escapes them, and <, >, &, U+2028 and U+2029 as encoding/json
// escapes them, so that the page needs no re-encoding (PlainMark). It does
// so without the closure MarshalString allocates per value.
func writeString(buf *bytes.Buffer, s string) {
	buf.Write(appendString(buf.AvailableBuffer(), s))
}

// hexDigits are gqlgen's, for control characters; lowerHex encoding/json's,
// for the characters it escapes and gqlgen does not.
const (
	hexDigits = "0123456789ABCDEF"
	lowerHex  = "0123456789abcdef"
)

// escapes marks the bytes appendString looks at: control characters,
// backslash, quote, <, >, & and the first byte of U+2028 and U+2029.
var escapes = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	for _, c := range []byte{'\\', '"', '<', '>', '&', 0xE2} {
		t[c] = true
	}
	return t
}()

func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !escapes[c] {
			continue
		}
		if c == 0xE2 { // U+2028 and U+2029 are E2 80 A8 and E2 80 A9
			if i+2 >= len(s) || s[i+1] != 0x80 || s[i+2]&^1 != 0xA8 {
				continue
			}
			b = append(b, s[start:i]...)
			b = append(b, `\u202`...)
			b = append(b, "89"[s[i+2]&1])
			i += 2
			start = i + 1
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '\t':
			b = append(b, '\\', 't')
		case '\r':
			b = append(b, '\\', 'r')
		case '\n':
			b = append(b, '\\', 'n')
		case '\\', '"':
			b = append(b, '\\', c)
		case '<', '>', '&': // as encoding/json writes them
			b = append(b, '\\', 'u', '0', '0', lowerHex[c>>4], lowerHex[c&0xf])
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
