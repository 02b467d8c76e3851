package auth

import (
	"fmt"
	"slices"

	"github.com/agenttrust/service/failure"
)

// Scope is how an agent key's call of an operation its role allows is
// narrowed to the key's own agents.
type Scope int

// The scopes of the authorization table.
const (
	// ScopeNone: the role decides alone.
	ScopeNone Scope = iota
	// ScopeArg: the agent named by the operation's argument at Access.Arg
	// must be among the key's agents (the edge checks it before the
	// operation runs).
	ScopeArg
	// ScopeEvidence: every transaction given as evidence must have one of
	// the key's agents as a party (the dispute service checks it).
	ScopeEvidence
	// ScopeFiledByKey: only a dispute this key filed (the dispute service
	// checks it).
	ScopeFiledByKey
)

// Access is one entry of the authorization table: the roles that may call
// an operation and how an agent key's call is narrowed.
type Access struct {
	Roles []Role
	Scope Scope
	// Arg is the argument path naming the acting agent, for ScopeArg:
	// "input.agentId" or "input.fromAgent".
	Arg string
}

var (
	anyRole   = []Role{RoleAdmin, RoleAgent, RoleReadonly}
	adminOnly = []Role{RoleAdmin}
	read      = Access{Roles: anyRole}
	admin     = Access{Roles: adminOnly}
)

// Operations is the authorization table: every GraphQL root field, as
// "Query.name", "Mutation.name" or "Subscription.name", and every REST
// route, as its method and pattern ("GET /webhooks/{id}"). An operation
// missing here is refused to every key; a test keeps the table and the
// schema and routes in step.
var Operations = map[string]Access{
	"Query.agent":              read,
	"Query.agents":             read,
	"Query.verifyAgent":        read,
	"Query.agentAuditChain":    read,
	"Query.transaction":        read,
	"Query.transactions":       read,
	"Query.exportTransactions": read,
	"Query.trustProfile":       read,
	"Query.evaluateTrust":      {Roles: anyRole, Scope: ScopeArg, Arg: "input.agentId"},
	"Query.batchTrust":         read,
	"Query.trustHistory":       read,
	"Query.dispute":            read,
	"Query.disputes":           read,
	"Query.node":               read,
	"Query.nodes":              read,
	"Query.webhooks":           read,
	"Query.webhook":            read,
	"Query.apiKeys":            admin,
	"Query.whoami":             read,
	"Query.mandate":            read,
	"Query.mandates":           read,
	"Query.spendSeries":        {Roles: anyRole, Scope: ScopeArg, Arg: "agentId"},
	"Query.overview":           {Roles: []Role{RoleAdmin, RoleReadonly}},
	"Query.simulatePolicy":     {Roles: []Role{RoleAdmin, RoleReadonly}},

	"Mutation.registerAgent":       admin,
	"Mutation.updateAgent":         admin,
	"Mutation.setAgentPolicy":      admin,
	"Mutation.suspendAgent":        admin,
	"Mutation.reinstateAgent":      admin,
	"Mutation.executeTransaction":  {Roles: []Role{RoleAdmin, RoleAgent}, Scope: ScopeArg, Arg: "input.fromAgent"},
	"Mutation.reverseTransaction":  admin,
	"Mutation.approveTransaction":  admin,
	"Mutation.declineTransaction":  admin,
	"Mutation.reportAgent":         {Roles: []Role{RoleAdmin, RoleAgent}, Scope: ScopeEvidence},
	"Mutation.withdrawDispute":     {Roles: []Role{RoleAdmin, RoleAgent}, Scope: ScopeFiledByKey},
	"Mutation.registerWebhook":     admin,
	"Mutation.updateWebhook":       admin,
	"Mutation.deleteWebhook":       admin,
	"Mutation.testWebhook":         admin,
	"Mutation.rotateWebhookSecret": admin,
	"Mutation.redeliverEvent":      admin,
	"Mutation.createApiKey":        admin,
	"Mutation.revokeApiKey":        admin,
	"Mutation.createMandate":       admin,
	"Mutation.revokeMandate":       admin,

	"Subscription.events": read,

	"POST /webhooks":                    admin,
	"GET /webhooks":                     read,
	"GET /webhooks/{id}":                read,
	"PATCH /webhooks/{id}":              admin,
	"DELETE /webhooks/{id}":             admin,
	"POST /webhooks/{id}/test":          admin,
	"GET /webhooks/{id}/deliveries":     read,
	"POST /webhooks/{id}/secret/rotate": admin,
	"POST /webhooks/{id}/redeliver":     admin,
	"GET /transactions/export":          read,
}

// Authorize decides whether p may call op, an entry of Operations, before
// the scope is looked at. It returns the operation's Access, or a Forbidden
// error naming the key's role and what it lacks (an operation missing from
// the table is refused to every role).
func Authorize(p Principal, op string) (Access, error) {
	a, ok := Operations[op]
	if !ok || !slices.Contains(a.Roles, p.Role) {
		return Access{}, Forbid(p, OperationName(op))
	}
	return a, nil
}

// AuthorizeAgent checks an agent-scoped operation's acting agent: nil when
// p acts for agentID (ActsFor), else Forbidden.
func AuthorizeAgent(p Principal, op, agentID string) error {
	if p.Role == RoleAgent && !p.ActsFor(agentID) {
		return failure.Errorf(failure.Forbidden, "an agent key may not %s for %s: the key does not act for that agent", OperationName(op), agentID)
	}
	return nil
}

// Forbid is the Forbidden error for p calling what, e.g. "an agent key may
// not registerAgent".
func Forbid(p Principal, what string) error {
	return failure.Errorf(failure.Forbidden, "%s may not %s", article(p.Role), what)
}

func article(r Role) string {
	if r == RoleAdmin || r == RoleAgent {
		return fmt.Sprintf("an %s key", r)
	}
	return fmt.Sprintf("a %s key", r)
}

// OperationName is how a refusal names op: a GraphQL root field by its name
// ("registerAgent"), a REST route as written ("DELETE /webhooks/{id}").
func OperationName(op string) string {
	for _, prefix := range []string{"Query.", "Mutation.", "Subscription."} {
		if len(op) > len(prefix) && op[:len(prefix)] == prefix {
			return op[len(prefix):]
		}
	}
	return op
}

// MayCite reports whether p may cite, as a dispute's evidence, a transaction
// between fromAgent and toAgent (ScopeEvidence): an agent key only one its
// own agents took part in.
func (p Principal) MayCite(fromAgent, toAgent string) bool {
	return p.Role != RoleAgent || p.ActsFor(fromAgent) || p.ActsFor(toAgent)
}

// MayWithdraw reports whether p may withdraw a dispute the key filedByKey
// filed (ScopeFiledByKey): an agent key only its own. Disputes filed before
// keys were recorded have an empty filedByKey.
func (p Principal) MayWithdraw(filedByKey string) bool {
	return p.Role != RoleAgent || filedByKey == p.KeyID
}
