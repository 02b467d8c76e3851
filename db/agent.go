package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/id"
	"github.com/agenttrust/service/money"
	"github.com/agenttrust/service/policy"
	"github.com/agenttrust/service/trust"
)

type agentRow struct {
	bun.BaseModel     `bun:"table:agents"`
	Seq               int64              `bun:"seq,nullzero"`
	ID                string             `bun:"id,pk"`
	OrgID             string             `bun:"org_id"`
	Name              string             `bun:"name"`
	AuthorizedActions []string           `bun:"authorized_actions,array"`
	SpendingLimit     money.Amount       `bun:"spending_limit"`
	DailyLimit        *money.Amount      `bun:"daily_limit"`
	Policy            policy.SpendPolicy `bun:"policy,type:jsonb"`
	Currency          money.Currency     `bun:"currency"`
	Environment       string             `bun:"environment"`
	Status            string             `bun:"status"`
	Fingerprint       string             `bun:"fingerprint"`
	AuditSeq          int                `bun:"audit_seq"`
	AuditHead         string             `bun:"audit_head"`
	AuditHeadMAC      string             `bun:"audit_head_mac"`
	CreatedAt         time.Time          `bun:"created_at"`
	UpdatedAt         time.Time          `bun:"updated_at"`
	// TC holds the agent's trust counters, read with the row by agentsFor.
	TC trustCounters `bun:"embed:tc_"`
}

// agent is the row as the domain's agent.
func (r *agentRow) agent() *agent.Agent {
	a := new(agent.Agent)
	r.fill(a)
	return a
}

// fill sets a to the row's agent (the columns a read left out stay zero).
func (r *agentRow) fill(a *agent.Agent) {
	*a = agent.Agent{ID: r.ID, OrgID: r.OrgID, Name: r.Name, AuthorizedActions: r.AuthorizedActions,
		SpendingLimit: r.SpendingLimit, DailyLimit: r.DailyLimit, Policy: r.Policy, Currency: r.Currency,
		Environment: agent.Environment(r.Environment), Status: agent.Status(r.Status),
		Fingerprint: r.Fingerprint, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
}

func (r *agentRow) set(a *agent.Agent) {
	r.ID, r.OrgID, r.Name, r.AuthorizedActions = a.ID, a.OrgID, a.Name, a.AuthorizedActions
	r.SpendingLimit, r.DailyLimit, r.Policy, r.Currency = a.SpendingLimit, a.DailyLimit, a.Policy, a.Currency
	r.Environment, r.Status, r.Fingerprint = string(a.Environment), string(a.Status), a.Fingerprint
	r.CreatedAt, r.UpdatedAt = a.CreatedAt, a.UpdatedAt
}

// AgentService implements agent.Service on Postgres.
type AgentService struct{ db *DB }

// NewAgentService returns the agent service.
func NewAgentService(d *DB) *AgentService { return &AgentService{db: d} }

var _ agent.Service = (*AgentService)(nil)

func agentNotFound(agentID string) error {
	return failure.Errorf(failure.NotFound, "agent %q not found", agentID)
}

// Register validates and stores a new agent, its first audit entry and the
// agent.registered event in one transaction.
func (s *AgentService) Register(ctx context.Context, p auth.Principal, in agent.RegisterInput) (*agent.Agent, error) {
	cur, err := in.Validate()
	if err != nil {
		return nil, err
	}
	a := &agent.Agent{ID: id.New(id.Agent), OrgID: p.OrgID, Name: in.Name,
		AuthorizedActions: in.AuthorizedActions, SpendingLimit: in.SpendingLimit, DailyLimit: in.DailyLimit,
		Policy: policy.SpendPolicy{Version: 1}, Currency: cur, Environment: in.Environment, Status: agent.Active}
	a.Stamp(s.db.Now())
	a.Fingerprint = agent.Fingerprint(*a)
	var row agentRow
	row.set(a)
	err = s.db.inTx(ctx, func(tx *txn) error {
		if err := s.db.appendAudit(ctx, tx, &row, agent.AuditRegistered, p, a.CreatedAt, a.ToData()); err != nil {
			return err
		}
		if _, err := tx.NewInsert().Model(&row).Returning("seq").Exec(ctx); err != nil {
			return fmt.Errorf("insert agent: %w", err)
		}
		if _, err := appendEvent(ctx, tx, event.AgentRegistered, a.CreatedAt, agent.RegisteredEvent{Data: a.ToData()}, a.OrgID); err != nil {
			return err
		}
		return initTrust(ctx, tx, &row, a.CreatedAt)
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// lockOwn reads an agent of orgID and locks its row until tx ends.
func lockOwn(ctx context.Context, tx *txn, orgID, agentID string) (*agentRow, error) {
	var rows []agentRow
	err := agentsFor(tx, &rows, agentID).Where("agent_row.org_id = ?", orgID).For("UPDATE OF agent_row, tc").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("lock agent: %w", err)
	}
	if len(rows) == 0 {
		return nil, agentNotFound(agentID)
	}
	return &rows[0], nil
}

// Update changes identity fields, recomputes the fingerprint, and records the
// change on the chain and in the event log; an update that changes nothing writes nothing.
func (s *AgentService) Update(ctx context.Context, p auth.Principal, agentID string, in agent.UpdateInput) (*agent.Agent, error) {
	return s.changeOwn(ctx, p, agentID, func(tx *txn, p auth.Principal, row *agentRow) (*agent.Agent, error) {
		before := row.agent()
		if err := in.Validate(before.Currency); err != nil {
			return nil, err
		}
		after, changed := in.Apply(*before)
		if len(changed) == 0 {
			return before, nil
		}
		after.Stamp(s.db.Now())
		details := map[string]any{"changes": agent.Changes(*before, after, changed), "fingerprint": after.Fingerprint}
		data := agent.UpdatedEvent{Data: after.ToData(), ChangedFields: changed}
		return &after, s.db.saveAgentChange(ctx, tx, row, &after, agent.AuditUpdated, p, details, data)
	})
}

// changeOwn runs change on one of the caller's agents in one transaction,
// its row locked (NotFound for another organization's or an unknown id),
// and answers the agent change returns.
func (s *AgentService) changeOwn(ctx context.Context, p auth.Principal, agentID string, change func(tx *txn, p auth.Principal, row *agentRow) (*agent.Agent, error)) (*agent.Agent, error) {
	var out *agent.Agent
	err := s.db.inTx(ctx, func(tx *txn) error {
		row, err := lockOwn(ctx, tx, p.OrgID, agentID)
		if err != nil {
			return err
		}
		out, err = change(tx, p, row)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// saveAgentChange stores a changed agent (a, stamped) in its locked row,
// with the audit entry action and the event announcing it, in tx: the one
// shape of every agent state change (update, suspend, reinstate).
func (d *DB) saveAgentChange(ctx context.Context, tx *txn, row *agentRow, a *agent.Agent, action string, actor auth.Principal, details any, data event.Payload) error {
	row.set(a)
	if err := d.appendAudit(ctx, tx, row, action, actor, a.UpdatedAt, details); err != nil {
		return err
	}
	if _, err := tx.NewUpdate().Model(row).WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("save agent: %w", err)
	}
	_, err := appendEvent(ctx, tx, data.EventType(), a.UpdatedAt, data, a.OrgID)
	return err
}

// Suspend moves an active agent to suspended (Conflict if it already is).
func (s *AgentService) Suspend(ctx context.Context, p auth.Principal, agentID string, reason *string) (*agent.Agent, error) {
	return s.setStatus(ctx, p, agentID, reason, agent.Suspended)
}

// Reinstate moves a suspended agent back to active (Conflict if it is active).
func (s *AgentService) Reinstate(ctx context.Context, p auth.Principal, agentID string, reason *string) (*agent.Agent, error) {
	return s.setStatus(ctx, p, agentID, reason, agent.Active)
}

// statusChange is what moving to a status records: the audit action and
// event, the conflict when the agent is already there, and the trust action.
var statusChange = map[agent.Status]struct {
	audit, already, cause string
	trust                 trust.Kind
	payload               func(agent.Data, *string) event.Payload
}{
	agent.Suspended: {agent.AuditSuspended, "already suspended", "suspension", trust.Suspended,
		func(d agent.Data, reason *string) event.Payload { return agent.SuspendedEvent{Data: d, Reason: reason} }},
	agent.Active: {agent.AuditReinstated, "not suspended", "reinstatement", trust.Reinstated,
		func(d agent.Data, reason *string) event.Payload {
			return agent.ReinstatedEvent{Data: d, Reason: reason}
		}},
}

// setStatus suspends or reinstates one of the caller's agents: the status,
// its audit entry, its event and its rescoring commit together.
func (s *AgentService) setStatus(ctx context.Context, p auth.Principal, agentID string, reason *string, to agent.Status) (*agent.Agent, error) {
	if err := agent.ValidateReason(reason); err != nil {
		return nil, err
	}
	change := statusChange[to]
	return s.changeOwn(ctx, p, agentID, func(tx *txn, p auth.Principal, row *agentRow) (*agent.Agent, error) {
		if row.Status == string(to) {
			return nil, failure.Errorf(failure.Conflict, "agent %q is %s", agentID, change.already)
		}
		a := row.agent()
		a.Status = to
		a.Stamp(s.db.Now())
		details := map[string]any{"reason": reason, "fingerprint": a.Fingerprint}
		if err := s.db.saveAgentChange(ctx, tx, row, a, change.audit, p, details, change.payload(a.ToData(), reason)); err != nil {
			return nil, err
		}
		return a, applyTrust(ctx, tx, row, trust.Action{Kind: change.trust, At: a.UpdatedAt}, change.cause+":"+a.ID)
	})
}

// Get returns one of the caller's agents (NotFound for another
// organization's or an unknown id).
func (s *AgentService) Get(ctx context.Context, p auth.Principal, agentID string) (*agent.Agent, error) {
	return getOwn(ctx, s.db.bun, p.OrgID, agentID)
}

// getOwn reads an agent of orgID on q, without locking it.
func getOwn(ctx context.Context, q bun.IDB, orgID, agentID string) (*agent.Agent, error) {
	var row agentRow
	err := q.NewSelect().Model(&row).Where("id = ?", agentID).Where("org_id = ?", orgID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, agentNotFound(agentID)
	}
	if err != nil {
		return nil, fmt.Errorf("get agent: %w", err)
	}
	return row.agent(), nil
}

// List returns a page of the caller's agents, newest first, by keyset on seq.
func (s *AgentService) List(ctx context.Context, p auth.Principal, f agent.ListFilter) (*agent.Page, error) {
	page, _, err := s.db.listAgents(ctx, p, f, false)
	return page, err
}

// Count counts the caller's agents, optionally of one status.
func (s *AgentService) Count(ctx context.Context, p auth.Principal, status *agent.Status) (int, error) {
	q := s.db.bun.NewSelect().Model((*agentRow)(nil)).Where("org_id = ?", p.OrgID)
	if status != nil {
		q = q.Where("status = ?", string(*status))
	}
	n, err := q.Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("count agents: %w", err)
	}
	return n, nil
}

// AuditChains loads a page of the chains of the caller's agents among ids.
func (s *AgentService) AuditChains(ctx context.Context, p auth.Principal, ids []string, page agent.ChainPage) (map[string][]agent.AuditEntry, error) {
	if err := page.Validate(); err != nil {
		return nil, err
	}
	return auditChains(ctx, s.db.bun, p.OrgID, ids, page)
}

// AuditChain loads a page of one of the caller's agents' chain in one
// statement; only an empty page costs a second one, telling a page past
// the end from an agent that is not the caller's.
func (s *AgentService) AuditChain(ctx context.Context, p auth.Principal, agentID string, page agent.ChainPage) ([]agent.AuditEntry, error) {
	chains, err := s.AuditChains(ctx, p, []string{agentID}, page)
	if err != nil {
		return nil, err
	}
	if len(chains[agentID]) == 0 {
		if _, err := s.Get(ctx, p, agentID); err != nil {
			return nil, err
		}
	}
	return chains[agentID], nil
}
