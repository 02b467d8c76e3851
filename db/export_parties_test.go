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
	if err := d.decodedAlike(ctx, ids); err != nil {
		return err
	}
	var rows []agentRow
	if err := agentsFor(d.bun, &rows, ids...).Scan(ctx); err != nil {
		return err
	}
	if err := scannedAlike(ctx, d, ids, rows); err != nil {
		return err
	}
	slow := byID(rows)
	if len(fast) != len(slow) {
		return fmt.Errorf("readParties found %d agents, agentsFor %d", len(fast), len(slow))
	}
	for id, s := range slow {
		f := fast[id]
		if f == nil {
			return fmt.Errorf("readParties missed %s", id)
		}
		if !reflect.DeepEqual(party(f), party(s)) {
			return fmt.Errorf("%s: party %+v, agentsFor %+v", id, party(f), party(s))
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

// PartyPlans runs evaluateTrust's read of ids (with the API key keyID's
// check when keyID is set) calls times on one connection of the read pool,
// and returns how many of those calls Postgres ran on the statement's generic
// plan and how many it planned afresh (pg_prepared_statements).
func (d *DB) PartyPlans(ctx context.Context, ids []string, keyID string, calls int) (generic, custom int64, err error) {
	conn, err := d.reads.Acquire(ctx)
	if err != nil {
		return 0, 0, err
	}
	defer conn.Release()
	sql := partySQL(len(ids), keyID != "")
	args := make([]any, 0, len(ids)+1)
	for _, id := range ids {
		args = append(args, id)
	}
	if keyID != "" {
		args = append(args, keyID)
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

// decodedAlike reads ids with the key check and requires the rows in the
// binary format, each decoded by decodeParty exactly as rows.Scan reads it
// (scanParty).
func (d *DB) decodedAlike(ctx context.Context, ids []string) error {
	args := []any{}
	for _, id := range ids {
		args = append(args, id)
	}
	rows, err := d.reads.Query(ctx, partySQL(len(ids), true), append(args, "key_none")...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rawParties(rows, true) {
		return fmt.Errorf("the party read's rows are not all in the binary format of partyOIDs: %+v", rows.FieldDescriptions())
	}
	n := 0
	for rows.Next() {
		liveRaw, liveScan := true, true
		raw, err := decodeParty(rows.RawValues(), true, &liveRaw)
		if err != nil {
			return err
		}
		scanned, err := scanParty(rows, true, &liveScan)
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(raw, scanned) || liveRaw != liveScan || liveRaw {
			return fmt.Errorf("decoded %+v (key live %t), scanned %+v (%t)", raw, liveRaw, scanned, liveScan)
		}
		n++
	}
	if n != len(ids) {
		return fmt.Errorf("%d rows for %d ids", n, len(ids))
	}
	return rows.Err()
}

// scannedAlike requires scanAgents (the execute's lock) to read ids as bun's
// Scan of the same statement did (want), field for field.
func scannedAlike(ctx context.Context, d *DB, ids []string, want []agentRow) error {
	q := agentsFor(d.bun, (*agentRow)(nil), ids...)
	if got, want := q.String(), agentsFor(d.bun, &want, ids...).String(); got != want {
		return fmt.Errorf("scanAgents' statement:\n %s\nbun's:\n %s", got, want)
	}
	got, err := scanAgents(ctx, q)
	if err != nil {
		return err
	}
	if !reflect.DeepEqual(got, want) {
		return fmt.Errorf("scanAgents read\n %+v\nbun read\n %+v", got, want)
	}
	return nil
}
