package db

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/auth"
)

// ExternalActor is the actor of an audit entry written by another
// organization's request (a payment received, a dispute filed).
const ExternalActor = "external"

type auditRow struct {
	bun.BaseModel `bun:"table:audit_entries"`
	AgentID       string          `bun:"agent_id,pk"`
	Sequence      int             `bun:"sequence,pk"`
	Action        string          `bun:"action"`
	At            time.Time       `bun:"at"`
	Actor         string          `bun:"actor"`
	Details       json.RawMessage `bun:"details,type:jsonb"`
	Hash          string          `bun:"hash"`
	PreviousHash  string          `bun:"previous_hash"`
}

func (r auditRow) entry() agent.AuditEntry {
	return agent.AuditEntry{AgentID: r.AgentID, Sequence: r.Sequence, Action: r.Action, Timestamp: r.At.UTC(),
		Actor: r.Actor, Details: r.Details, Hash: r.Hash, PreviousHash: r.PreviousHash}
}

// appendAudit seals the next entry of a's chain and stores it inside tx. The
// caller must hold a's row lock (FOR UPDATE) so sequences never collide; a's
// chain head is advanced in memory and must be written back by the caller's
// row update, or recordAudit is called instead. The new head is signed with the server key.
//
// The entry's actor is the acting API key's id when that key belongs to the
// agent's organization, and ExternalActor otherwise: an agent's chain never
// reveals another organization's key ids.
func (d *DB) appendAudit(ctx context.Context, tx *txn, a *agentRow, action string, p auth.Principal, at time.Time, details any) error {
	actor := ExternalActor
	if p.OrgID == a.OrgID {
		actor = p.KeyID
	}
	var prev *agent.AuditEntry
	if a.AuditSeq > 0 {
		prev = &agent.AuditEntry{Sequence: a.AuditSeq, Hash: a.AuditHead}
	}
	e, err := agent.NextEntry(prev, a.ID, action, actor, at, details)
	if err != nil {
		return err
	}
	row := auditRow{AgentID: e.AgentID, Sequence: e.Sequence, Action: e.Action, At: e.Timestamp,
		Actor: e.Actor, Details: e.Details, Hash: e.Hash, PreviousHash: e.PreviousHash}
	if err := tx.write(ctx, "append audit entry", insertAudit, row.AgentID, row.Sequence, row.Action, row.At,
		row.Actor, string(row.Details), row.Hash, row.PreviousHash); err != nil {
		return err
	}
	a.AuditSeq, a.AuditHead = e.Sequence, e.Hash
	a.AuditHeadMAC = d.headMAC(a)
	return nil
}

// insertAudit stores an audit entry.
const insertAudit = `INSERT INTO audit_entries (agent_id, sequence, action, at, actor, details, hash, previous_hash)
 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`

// recordAudit appends an entry to a's chain (appendAudit) and writes the new
// head back to its row, for an event that changes nothing else of the row.
func (d *DB) recordAudit(ctx context.Context, tx *txn, a *agentRow, action string, p auth.Principal, at time.Time, details any) error {
	if err := d.appendAudit(ctx, tx, a, action, p, at, details); err != nil {
		return err
	}
	return tx.write(ctx, "advance audit head", updateAuditHead, a.AuditSeq, a.AuditHead, a.AuditHeadMAC, a.ID)
}

// updateAuditHead writes an agent's chain head.
const updateAuditHead = `UPDATE agents SET audit_seq = $1, audit_head = $2, audit_head_mac = $3 WHERE id = $4`

// auditChains loads a page of the chains of agents owned by orgID in chain
// order, in one statement: each agent's page is an index range scan.
func auditChains(ctx context.Context, q bun.IDB, orgID string, ids []string, page agent.ChainPage) (map[string][]agent.AuditEntry, error) {
	var rows []auditRow
	err := q.NewRaw(`SELECT e.* FROM agents AS a CROSS JOIN LATERAL (
			SELECT * FROM audit_entries WHERE agent_id = a.id AND sequence > ? ORDER BY sequence LIMIT ?) AS e
		WHERE a.id IN (?) AND a.org_id = ? ORDER BY e.agent_id, e.sequence`,
		page.After, page.Limit, bun.In(ids), orgID).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("load audit chains: %w", err)
	}
	out := make(map[string][]agent.AuditEntry, len(ids))
	for _, r := range rows {
		out[r.AgentID] = append(out[r.AgentID], r.entry())
	}
	return out, nil
}
