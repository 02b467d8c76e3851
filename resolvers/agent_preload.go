package resolvers

import (
	"context"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/preload"
	"github.com/agenttrust/service/trust"
)

// preloadAgents returns agents as the API answers them, with what sel
// selects read ahead for all of them: one statement for their profiles
// (none when profiles were read with the agents: profiles[i] is
// agents[i]'s) and one per distinct page of their audit chains, whatever
// the number of agents.
func (r *Resolver) preloadAgents(ctx context.Context, p auth.Principal, agents []*agent.Agent, profiles []*trust.Profile, sel preload.Selection) ([]*preload.Agent, error) {
	if sel.Trust && profiles == nil && len(agents) > 0 {
		read, err := r.svc.Trust.Profiles(ctx, p, agentIDs(agents))
		if err != nil {
			return nil, err
		}
		profiles = make([]*trust.Profile, len(agents))
		for i, a := range agents {
			profiles[i] = read[a.ID]
		}
	}
	chains, err := r.readChains(ctx, p, agents, sel.Chains)
	if err != nil {
		return nil, err
	}
	slab := make([]preload.Agent, len(agents))
	out := make([]*preload.Agent, len(agents))
	for i, a := range agents {
		var prof *trust.Profile
		if profiles != nil {
			prof = profiles[i]
		}
		slab[i] = preload.NewAgent(a, prof, chains[i])
		out[i] = &slab[i]
	}
	return out, nil
}

// readChains reads each page of the agents' chains in one statement;
// chains[i] are agents[i]'s pages. An invalid page is every agent's error
// for that field, and is not read.
func (r *Resolver) readChains(ctx context.Context, p auth.Principal, agents []*agent.Agent, pages []agent.ChainPage) ([][]preload.Chain, error) {
	chains := make([][]preload.Chain, len(agents))
	if len(pages) == 0 || len(agents) == 0 {
		return chains, nil
	}
	ids := agentIDs(agents)
	for i := range chains {
		chains[i] = make([]preload.Chain, 0, len(pages))
	}
	for _, page := range pages {
		var read map[string][]agent.AuditEntry
		invalid := page.Validate()
		if invalid == nil {
			var err error
			if read, err = r.svc.Agents.AuditChains(ctx, p, ids, page); err != nil {
				return nil, err
			}
		}
		for i, a := range agents {
			chains[i] = append(chains[i], preload.Chain{Page: page, Entries: entryPointers(read[a.ID]), Err: invalid})
		}
	}
	return chains, nil
}

// preloadAgent is preloadAgents for the one agent a field answers, or
// the error of the call that read it.
func (r *Resolver) preloadAgent(ctx context.Context, p auth.Principal, a *agent.Agent, err error) (*preload.Agent, error) {
	if err != nil {
		return nil, err
	}
	sel := preload.OfAgent(ctx)
	if !sel.Any() {
		return &preload.Agent{Agent: a}, nil
	}
	out, err := r.preloadAgents(ctx, p, []*agent.Agent{a}, nil, sel)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

func agentIDs(agents []*agent.Agent) []string {
	ids := make([]string, len(agents))
	for i, a := range agents {
		ids[i] = a.ID
	}
	return ids
}
