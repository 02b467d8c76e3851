package db

import (
	"context"
	"fmt"
	"reflect"
)

// CompareParties reads ids through readParties (the pgx read evaluateTrust
// uses) and through agentsFor (what an execute locks and reads), and reports
// any difference in what the policy and the trust model get from them.
func (d *DB) CompareParties(ctx context.Context, ids ...string) error {
	fast, err := d.readParties(ctx, ids...)
	if err != nil {
		return err
	}
	var rows []agentRow
	if err := agentsFor(d.bun, &rows, ids...).Scan(ctx); err != nil {
		return err
	}
	slow := byID(rows)
	now := d.Now()
	if len(fast) != len(slow) {
		return fmt.Errorf("readParties found %d agents, agentsFor %d", len(fast), len(slow))
	}
	for id, s := range slow {
		f := fast[id]
		if f == nil {
			return fmt.Errorf("readParties missed %s", id)
		}
		if !reflect.DeepEqual(party(f, now), party(s, now)) {
			return fmt.Errorf("%s: party %+v, agentsFor %+v", id, party(f, now), party(s, now))
		}
		ft, st := f.trustOf(), s.trustOf()
		if !ft.At.Equal(st.At) || !ft.FirstExternalAt.Equal(st.FirstExternalAt) {
			return fmt.Errorf("%s: counter times %v %v, agentsFor %v %v", id, ft.At, ft.FirstExternalAt, st.At, st.FirstExternalAt)
		}
		ft.At, ft.FirstExternalAt = st.At, st.FirstExternalAt // equal instants, perhaps in other zones
		if ft != st || f.TC.Score != s.TC.Score || f.TC.Assessment != s.TC.Assessment || !f.TC.UpdatedAt.Equal(s.TC.UpdatedAt) {
			return fmt.Errorf("%s: counters %+v, agentsFor %+v", id, f.TC, s.TC)
		}
	}
	return nil
}

// PartyPlans runs evaluateTrust's read of ids calls times on one connection
// of the pool,
// and returns how many of those calls Postgres ran on the statement's generic
// plan and how many it planned afresh (pg_prepared_statements).
func (d *DB) PartyPlans(ctx context.Context, ids []string, calls int) (generic, custom int64, err error) {
	conn, err := d.pool.Acquire(ctx)
	if err != nil {
		return 0, 0, err
	}
	defer conn.Release()
	sql := partySQL(len(ids))
	args := make([]any, 0, len(ids))
	for _, id := range ids {
		args = append(args, id)
	}
	for range calls {
		rows, err := conn.Query(ctx, sql, args...)
		if err != nil {
			return 0, 0, err
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return 0, 0, err
		}
	}
	err = conn.QueryRow(ctx, `SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement = $1`, sql).Scan(&generic, &custom)
	return generic, custom, err
}
