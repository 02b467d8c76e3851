package resolvers

import (
	"context"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/id"
	"github.com/agenttrust/service/paging"
	"github.com/agenttrust/service/preload"
)

// nodeKinds are the id prefixes of the types implementing Node.
var nodeKinds = []string{id.Agent, id.Transaction, id.Dispute, id.Webhook, id.Delivery, id.Event, id.Key, id.Mandate}

// Node answers any object by its global id, under the tenancy of the
// type's own query: an unknown id or another organization's is NOT_FOUND.
func (r *queryResolver) Node(ctx context.Context, nodeID string) (preload.Node, error) {
	found, err := r.readNodes(ctx, []string{nodeID})
	if err != nil {
		return nil, err
	}
	n, ok := found[nodeID]
	if !ok {
		return nil, failure.Errorf(failure.NotFound, "node %q not found", nodeID)
	}
	return n, nil
}

// Nodes answers objects by global id in the order asked, null where node
// would be NOT_FOUND: one read per type asked for, whatever the count.
func (r *queryResolver) Nodes(ctx context.Context, ids []string) ([]preload.Node, error) {
	if len(ids) > paging.Max {
		return nil, failure.Invalid("ids", "at most %d ids (got %d)", paging.Max, len(ids))
	}
	found, err := r.readNodes(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]preload.Node, len(ids))
	for i, nodeID := range ids {
		out[i] = found[nodeID] // a missing one stays a nil interface: null
	}
	return out, nil
}

// readNodes reads the objects ids name, grouped by type, each group in
// one read; ids of no Node type, and objects not visible, are absent.
func (r *queryResolver) readNodes(ctx context.Context, ids []string) (map[string]preload.Node, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	groups := make(map[string][]string)
	seen := make(map[string]bool, len(ids))
	for _, nodeID := range ids {
		if seen[nodeID] {
			continue
		}
		seen[nodeID] = true
		for _, kind := range nodeKinds {
			if id.Has(nodeID, kind) {
				groups[kind] = append(groups[kind], nodeID)
				break
			}
		}
	}
	found := make(map[string]preload.Node, len(ids))
	for _, kind := range nodeKinds {
		if group := groups[kind]; len(group) > 0 {
			if err := r.readKind(ctx, p, kind, group, found); err != nil {
				return nil, err
			}
		}
	}
	return found, nil
}

// readKind reads the objects of one type among ids visible to p into found.
func (r *queryResolver) readKind(ctx context.Context, p auth.Principal, kind string, ids []string, found map[string]preload.Node) error {
	switch kind {
	case id.Agent:
		agents, err := r.svc.Agents.GetMany(ctx, p, ids)
		if err != nil {
			return err
		}
		nodes, err := r.preloadAgents(ctx, p, agents, nil, preload.OfAgent(ctx))
		if err != nil {
			return err
		}
		for _, n := range nodes {
			found[n.ID] = n
		}
	case id.Transaction:
		txs, err := r.svc.Transactions.GetMany(ctx, p, ids)
		for _, t := range txs {
			found[t.ID] = t
		}
		return err
	case id.Dispute:
		ds, err := r.svc.Trust.DisputesByID(ctx, p, ids)
		for _, d := range ds {
			found[d.ID] = d
		}
		return err
	case id.Webhook:
		eps, err := r.svc.Webhooks.GetMany(ctx, p, ids)
		for i := range eps {
			found[eps[i].ID] = &eps[i]
		}
		return err
	case id.Delivery:
		ds, err := r.svc.Webhooks.DeliveriesByID(ctx, p, ids)
		for i := range ds {
			found[ds[i].ID] = &ds[i]
		}
		return err
	case id.Key:
		return r.readKeys(ctx, p, ids, found)
	case id.Mandate:
		ms, err := r.svc.Mandates.GetMany(ctx, p, ids)
		for _, m := range ms {
			found[m.ID] = m
		}
		return err
	case id.Event:
		if r.svc.Events == nil {
			return nil
		}
		evs, err := r.svc.Events.EventsByID(ctx, p, ids)
		for i := range evs {
			found[evs[i].ID] = &evs[i]
		}
		return err
	}
	return nil
}
