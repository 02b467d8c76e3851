// Package preload holds the models the GraphQL schema binds where a field
// would otherwise be a resolver run once per element of a list: the
// resolver returning the list reads what the operation selects for all its
// elements at once (look-ahead through gqlgen's collected fields), and the
// field is then a plain read of the element.
package preload

import (
	"fmt"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/trust"
)

// Agent is an agent as the API answers it: the stored agent, with its trust
// profile and the pages of its audit chain the operation selects, read
// ahead for every agent of the answer (Selection).
type Agent struct {
	*agent.Agent
	profile *trust.Profile
	chains  []Chain
}

// Chain is one page of an agent's audit chain, or why it cannot be read.
type Chain struct {
	Page    agent.ChainPage
	Entries []*agent.AuditEntry
	Err     error
}

// NewAgent returns a with its profile (nil when not selected, or when the
// agent has no trust counters) and the chain pages read for it.
func NewAgent(a *agent.Agent, profile *trust.Profile, chains []Chain) Agent {
	return Agent{Agent: a, profile: profile, chains: chains}
}

// Trust is the agent's profile read ahead; an agent without trust counters
// is an error of the field.
func (a *Agent) Trust() (*trust.Profile, error) {
	if a.profile == nil {
		return nil, fmt.Errorf("agent %s has no trust counters", a.ID)
	}
	return a.profile, nil
}

// AuditChain is the page of the agent's chain the arguments name, read
// ahead with the page's other agents' (an invalid page is the field's
// ValidationFailed error).
func (a *Agent) AuditChain(after, limit *int) ([]*agent.AuditEntry, error) {
	page := ChainPage(after, limit)
	for _, c := range a.chains {
		if c.Page == page {
			return c.Entries, c.Err
		}
	}
	return nil, fmt.Errorf("audit chain page %+v of agent %s was not read ahead", page, a.ID)
}

// ChainPage is the page auditChain's arguments name.
func ChainPage(after, limit *int) agent.ChainPage {
	p := agent.ChainPage{Limit: agent.DefaultChainPage}
	if after != nil {
		p.After = *after
	}
	if limit != nil {
		p.Limit = *limit
	}
	return p
}
