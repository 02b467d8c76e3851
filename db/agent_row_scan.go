package db

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/agenttrust/service/money"
)

// scanAgents runs q, a select of agentsFor's columns (agent_row.*, then
// trustColumns), and reads its rows as bun's Scan would, but by hand: the
// execute path locks its parties this way on every call, and bun's
// reflective scan of the two rows cost about a twelfth of its CPU.
func scanAgents(ctx context.Context, q *bun.SelectQuery) ([]agentRow, error) {
	rows, err := q.Rows(ctx)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var (
		out  = make([]agentRow, 0, 2)
		dest = make([]any, len(cols))
		s    agentRowScan
	)
	for rows.Next() {
		out = append(out, agentRow{})
		r := &out[len(out)-1]
		for i, c := range cols {
			if dest[i] = s.dest(r, c); dest[i] == nil {
				return nil, fmt.Errorf("agentRow does not have column %q", c)
			}
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		s.finish(r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// agentRowScan holds the columns whose Go types database/sql would reach
// only by reflection (int, pointers), read into these first.
type agentRowScan struct {
	auditSeq, score int64
	daily           sql.Null[money.Amount]
	first           sql.NullTime
}

// dest is where column c of r is scanned, or nil for a column agentRow does
// not have.
func (s *agentRowScan) dest(r *agentRow, c string) any {
	tc := &r.TC
	switch c {
	case "seq":
		return &r.Seq
	case "id":
		return &r.ID
	case "org_id":
		return &r.OrgID
	case "name":
		return &r.Name
	case "authorized_actions":
		return pgdialect.Array(&r.AuthorizedActions) // bun's own decoding of a text[]
	case "spending_limit":
		return &r.SpendingLimit
	case "daily_limit":
		return &s.daily
	case "currency":
		return (*string)(&r.Currency)
	case "environment":
		return &r.Environment
	case "status":
		return &r.Status
	case "fingerprint":
		return &r.Fingerprint
	case "audit_seq":
		return &s.auditSeq
	case "audit_head":
		return &r.AuditHead
	case "audit_head_mac":
		return &r.AuditHeadMAC
	case "created_at":
		return &r.CreatedAt
	case "updated_at":
		return &r.UpdatedAt
	case "tc_evidence_at":
		return &tc.EvidenceAt
	case "tc_completed":
		return &tc.Completed
	case "tc_failures":
		return &tc.Failures
	case "tc_limit_refusals":
		return &tc.LimitRefusals
	case "tc_reversals":
		return &tc.Reversals
	case "tc_disputing_orgs":
		return &tc.DisputingOrgs
	case "tc_open_disputes":
		return &tc.OpenDisputes
	case "tc_counterparty_orgs":
		return &tc.CounterpartyOrgs
	case "tc_first_external_at":
		return &s.first
	case "tc_score":
		return &s.score
	case "tc_assessment":
		return &tc.Assessment
	case "tc_updated_at":
		return &tc.UpdatedAt
	}
	return nil
}

// finish moves the row's held columns into r.
func (s *agentRowScan) finish(r *agentRow) {
	r.AuditSeq, r.TC.Score = int(s.auditSeq), int(s.score)
	r.DailyLimit, r.TC.FirstExternalAt = nil, nil
	if s.daily.Valid {
		d := s.daily.V
		r.DailyLimit = &d
	}
	if s.first.Valid {
		t := s.first.Time
		r.TC.FirstExternalAt = &t
	}
	*s = agentRowScan{}
}
