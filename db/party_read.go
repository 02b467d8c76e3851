package db

import (
	"context"
	"fmt"
	"strings"
)

// partySQL is the statement reading n agents with their counters. The ids
// are scalar parameters (a.id = $1, a.id IN ($1, $2)), not one array:
// Postgres then estimates the rows of a generic plan as of a custom one and
// keeps the generic plan after the fifth call on a connection, with or
// without statistics; with = ANY($1::text[]) and tables not yet analyzed (a
// new database, a small organization) it planned every call afresh, which
// cost more than the read itself. pgx prepares each text once per
// connection; evaluateTrust has one or two ids, so there are two texts.
func partySQL(n int) string {
	if n <= 2 {
		return partyTexts[n-1]
	}
	return partyText(n)
}

var partyTexts = [2]string{partyText(1), partyText(2)}

func partyText(n int) string {
	var b strings.Builder
	b.WriteString(`SELECT `)
	b.WriteString(strings.Join(strings.Fields(viewColumns+`, `+trustColumns), " "))
	b.WriteString(` FROM agents AS a JOIN trust_counters AS tc ON tc.agent_id = a.id WHERE a.id `)
	if n == 1 {
		b.WriteString(`= $1`)
		return b.String()
	}
	b.WriteString(`IN (`)
	for i := range n {
		if i > 0 {
			b.WriteString(`, `)
		}
		fmt.Fprintf(&b, `$%d`, i+1)
	}
	b.WriteString(`)`)
	return b.String()
}

// readParties reads the agents an evaluation names, with their counters,
// on the pgx pool from a prepared statement: what agentsFor reads for the
// policy, without locking anything (an execute reads its parties with
// lockParties).
func (d *DB) readParties(ctx context.Context, ids ...string) (map[string]*agentRow, error) {
	if len(ids) == 0 {
		return map[string]*agentRow{}, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := d.query(ctx, partySQL(len(ids)), args...)
	if err != nil {
		return nil, fmt.Errorf("read agents: %w", err)
	}
	views, err := readViews(rows)
	if err != nil {
		return nil, fmt.Errorf("read agents: %w", err)
	}
	out := make(map[string]*agentRow, len(views))
	for i := range views {
		out[views[i].ID] = views[i].row()
	}
	return out, nil
}
