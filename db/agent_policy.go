package db

import (
	"context"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/auth"
)

// SetPolicy changes one of the caller's agents' spend policy under its row
// lock: the version check, the new version and fingerprint, the
// agent.policy_changed audit entry and event commit together.
func (s *AgentService) SetPolicy(ctx context.Context, p auth.Principal, agentID string, in agent.PolicyInput, expectedVersion *int) (*agent.Agent, error) {
	return s.changeOwn(ctx, p, agentID, func(tx *txn, p auth.Principal, row *agentRow) (*agent.Agent, error) {
		before := row.agent()
		if err := before.CheckVersion(expectedVersion); err != nil {
			return nil, err
		}
		after, changed, err := in.ApplyPolicy(*before)
		if err != nil || !changed {
			return before, err
		}
		after.Policy.Version++
		after.Fingerprint = agent.Fingerprint(after)
		after.Stamp(s.db.Now())
		whole := after.SpendPolicy()
		details := map[string]any{"version": whole.Version, "policy": whole, "fingerprint": after.Fingerprint}
		data := agent.PolicyChangedEvent{Data: after.ToData(), Policy: whole}
		return &after, s.db.saveAgentChange(ctx, tx, row, &after, agent.AuditPolicyChanged, p, details, data)
	})
}
