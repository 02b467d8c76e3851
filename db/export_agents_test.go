package db

import (
	"context"
	"fmt"
	"reflect"
)

// CompareAgentScans reads orgID's agents with listAgents' statements (with
// and without trust, with and without the check of the key keyID) and
// requires agentScanner's decoding of the binary format to read every row as
// rows.Scan reads it.
func (d *DB) CompareAgentScans(ctx context.Context, orgID, keyID string) error {
	for _, withTrust := range []bool{false, true} {
		for _, withKey := range []bool{false, true} {
			if err := d.compareAgentScans(ctx, orgID, keyID, withTrust, withKey); err != nil {
				return fmt.Errorf("trust %t, key %t: %w", withTrust, withKey, err)
			}
		}
	}
	return nil
}

func (d *DB) compareAgentScans(ctx context.Context, orgID, keyID string, withTrust, withKey bool) error {
	args := []any{orgID, 100}
	if withKey {
		args = append(args, keyID)
	}
	rows, err := d.reads.Query(ctx, listStatements[listStatement(false, false, withTrust, withKey)], args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	fast := newAgentScanner(orgID, rows, 100, withTrust, withKey)
	slow := newAgentScanner(orgID, rows, 100, withTrust, withKey)
	if !fast.binary {
		return fmt.Errorf("the page's rows are not all in the binary format of agentOIDs: %+v", rows.FieldDescriptions())
	}
	slow.binary = false
	n := 0
	for rows.Next() {
		if err := fast.scan(rows); err != nil {
			return err
		}
		if err := slow.scan(rows); err != nil {
			return err
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("no agents")
	}
	if !reflect.DeepEqual(fast.agents, slow.agents) || !reflect.DeepEqual(fast.seqs, slow.seqs) ||
		!reflect.DeepEqual(fast.counters, slow.counters) || fast.live != slow.live {
		return fmt.Errorf("decoded %+v %v %+v (key live %t),\nscanned %+v %v %+v (%t)",
			fast.agents, fast.seqs, fast.counters, fast.live, slow.agents, slow.seqs, slow.counters, slow.live)
	}
	return nil
}
