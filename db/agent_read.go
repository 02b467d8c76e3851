package db

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/trust"
)

// agentView is an agent as the pgx reads select it (pageColumns or
// viewColumns), with its trust counters (trustColumns) when the statement
// joins them: the page of agents and the policy's read of its parties.
// readViews is its one reader, and scans the agent's columns straight into
// the domain's agent.Agent, which a page then hands out without a copy; tc
// is nil unless the statement reads the counters, so that a page without
// trust does not carry their room.
type agentView struct {
	Seq int64
	agent.Agent
	tc *viewCounters
}

// viewCounters are trustColumns as agentView reads them: NULL when the
// agent has no counters (a page joins them with LEFT JOIN).
type viewCounters struct {
	EvidenceAt       pgtype.Timestamptz
	Completed        pgtype.Float8
	Failures         pgtype.Float8
	LimitRefusals    pgtype.Float8
	Reversals        pgtype.Float8
	DisputingOrgs    pgtype.Float8
	OpenDisputes     pgtype.Int8
	CounterpartyOrgs pgtype.Int8
	FirstExternalAt  pgtype.Timestamptz
	Score            pgtype.Int8
	Assessment       pgtype.Text
	UpdatedAt        pgtype.Timestamptz
}

// viewColumns are agentView's own columns, of agents AS a; amounts come as
// text, the exact form money.Amount reads. pageColumns are the same without
// the spend policy, which a page reads only when asked for it: decoding its
// JSON costs more than the rest of the row.
const (
	pageColumns = `a.seq, a.id, a.org_id, a.name, a.authorized_actions, a.spending_limit::text AS spending_limit,
 a.daily_limit::text AS daily_limit, a.currency, a.environment, a.status, a.fingerprint, a.created_at, a.updated_at`
	viewColumns = pageColumns + `, a.policy`
)

// readViews reads rows of pageColumns or viewColumns, with trustColumns or
// without. The field each column scans into is chosen once per statement
// from the column names (viewFields), and each row is scanned positionally
// by rows.Scan: choosing by name per row (pgx's RowToStructByName) costs a
// string of every column name and a reflective walk of the struct per row.
// A view is large: each is scanned where it stays, not copied into a
// growing slice.
func readViews(rows pgx.Rows) ([]*agentView, error) {
	defer rows.Close()
	cols := rows.FieldDescriptions()
	fields := make([]func(*agentView) any, len(cols))
	for i, c := range cols {
		if fields[i] = viewFields[c.Name]; fields[i] == nil {
			return nil, fmt.Errorf("agent view has no field for column %q", c.Name)
		}
	}
	withCounters := slices.ContainsFunc(cols, func(c pgconn.FieldDescription) bool { return strings.HasPrefix(c.Name, "tc_") })
	dest := make([]any, len(cols))
	var views []*agentView
	for rows.Next() {
		var v *agentView
		if !withCounters {
			v = new(agentView)
		} else { // one allocation for the view and its counters
			vc := new(struct {
				agentView
				tc viewCounters
			})
			v = &vc.agentView
			v.tc = &vc.tc
		}
		for i, field := range fields {
			dest[i] = field(v)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		v.Agent.CreatedAt, v.Agent.UpdatedAt = v.Agent.CreatedAt.UTC(), v.Agent.UpdatedAt.UTC()
		views = append(views, v)
	}
	return views, rows.Err()
}

// viewFields is where readViews scans each column of agentView's
// statements.
var viewFields = map[string]func(*agentView) any{
	"seq":                  func(v *agentView) any { return &v.Seq },
	"id":                   func(v *agentView) any { return &v.ID },
	"org_id":               func(v *agentView) any { return &v.OrgID },
	"name":                 func(v *agentView) any { return &v.Name },
	"authorized_actions":   func(v *agentView) any { return &v.AuthorizedActions },
	"spending_limit":       func(v *agentView) any { return &v.SpendingLimit },
	"daily_limit":          func(v *agentView) any { return &v.DailyLimit },
	"policy":               func(v *agentView) any { return &v.Policy },
	"currency":             func(v *agentView) any { return &v.Currency },
	"environment":          func(v *agentView) any { return &v.Environment },
	"status":               func(v *agentView) any { return &v.Status },
	"fingerprint":          func(v *agentView) any { return &v.Fingerprint },
	"created_at":           func(v *agentView) any { return &v.Agent.CreatedAt },
	"updated_at":           func(v *agentView) any { return &v.Agent.UpdatedAt },
	"tc_evidence_at":       func(v *agentView) any { return &v.tc.EvidenceAt },
	"tc_completed":         func(v *agentView) any { return &v.tc.Completed },
	"tc_failures":          func(v *agentView) any { return &v.tc.Failures },
	"tc_limit_refusals":    func(v *agentView) any { return &v.tc.LimitRefusals },
	"tc_reversals":         func(v *agentView) any { return &v.tc.Reversals },
	"tc_disputing_orgs":    func(v *agentView) any { return &v.tc.DisputingOrgs },
	"tc_open_disputes":     func(v *agentView) any { return &v.tc.OpenDisputes },
	"tc_counterparty_orgs": func(v *agentView) any { return &v.tc.CounterpartyOrgs },
	"tc_first_external_at": func(v *agentView) any { return &v.tc.FirstExternalAt },
	"tc_score":             func(v *agentView) any { return &v.tc.Score },
	"tc_assessment":        func(v *agentView) any { return &v.tc.Assessment },
	"tc_updated_at":        func(v *agentView) any { return &v.tc.UpdatedAt },
}

// hasCounters reports whether the row had trust counters (evidence_at is NOT NULL).
func (v *agentView) hasCounters() bool { return v.tc != nil && v.tc.EvidenceAt.Valid }

// agent is the view's agent.
func (v *agentView) agent() agent.Agent { return v.Agent }

// row is the view as the agentRow the policy and the trust model read.
func (v *agentView) row() *agentRow {
	a := &v.Agent
	r := &agentRow{Seq: v.Seq, ID: a.ID, OrgID: a.OrgID, Name: a.Name, AuthorizedActions: a.AuthorizedActions,
		SpendingLimit: a.SpendingLimit, DailyLimit: a.DailyLimit, Policy: a.Policy, Currency: a.Currency,
		Environment: string(a.Environment), Status: string(a.Status), Fingerprint: a.Fingerprint,
		CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
	r.TC = v.counters()
	return r
}

// counters are the view's trust counters as an agentRow holds them (zero
// when the statement did not read them).
func (v *agentView) counters() trustCounters {
	c := v.tc
	if c == nil {
		return trustCounters{}
	}
	tc := trustCounters{EvidenceAt: c.EvidenceAt.Time, Completed: c.Completed.Float64, Failures: c.Failures.Float64,
		LimitRefusals: c.LimitRefusals.Float64, Reversals: c.Reversals.Float64, DisputingOrgs: c.DisputingOrgs.Float64,
		OpenDisputes: c.OpenDisputes.Int64, CounterpartyOrgs: c.CounterpartyOrgs.Int64, Score: int(c.Score.Int64),
		Assessment: c.Assessment.String, UpdatedAt: c.UpdatedAt.Time}
	if c.FirstExternalAt.Valid {
		t := c.FirstExternalAt.Time
		tc.FirstExternalAt = &t
	}
	return tc
}

// listAgents reads a page of the caller's agents in one statement, and with
// withTrust each one's trust counters too, scored at the current time
// (profiles[i] is page.Agents[i]'s, nil for an agent without counters). A
// backward page is read oldest first from its cursor and put newest first.
func (d *DB) listAgents(ctx context.Context, p auth.Principal, f agent.ListFilter, withTrust bool) (*agent.Page, []*trust.Profile, error) {
	if err := checkLimit(f.Limit); err != nil {
		return nil, nil, err
	}
	w := f.Window
	args := make([]any, 1, 4)
	args[0] = p.OrgID
	if f.Status != nil {
		args = append(args, string(*f.Status))
	}
	if c := w.Cursor(); c != "" {
		seq, err := d.cursors(p.OrgID, agentList).parseSeq(c)
		if err != nil {
			return nil, nil, cursorErr(err, w)
		}
		args = append(args, seq)
	}
	args = append(args, f.Limit+1)
	rows, err := d.query(ctx, listStatements[listStatement(f.Status != nil, w.Cursor() != "", withTrust, w.Backward, f.WithPolicy)], args...)
	if err != nil {
		return nil, nil, fmt.Errorf("list agents: %w", err)
	}
	views, err := readViews(rows)
	if err != nil {
		return nil, nil, fmt.Errorf("list agents: %w", err)
	}
	cursors := d.cursors(p.OrgID, agentList)
	views, end := finishPage(views, w, func(v *agentView) string { return cursors.seq(v.Seq) })
	page := &agent.Page{Agents: make([]*agent.Agent, len(views)), Cursors: end.cursors, EndCursor: end.endCursor,
		HasNextPage: end.hasNext, HasPreviousPage: end.hasPrevious}
	for i := range views {
		page.Agents[i] = &views[i].Agent
	}
	if !withTrust {
		return page, nil, nil
	}
	now := d.Now()
	profiles := make([]*trust.Profile, len(views))
	scored := make([]trust.Profile, len(views))
	for i, v := range views {
		if v.hasCounters() {
			tc := v.counters()
			scored[i] = trust.NewProfile(v.ID, tc.counters(string(v.Status)), now, tc.UpdatedAt.UTC())
			profiles[i] = &scored[i]
		}
	}
	return page, profiles, nil
}

// listStatements are listAgents' statements, one per combination of
// listStatement's options, written once.
var listStatements = func() (out [32]string) {
	for i := range out {
		out[i] = listSQL(i&1 != 0, i&2 != 0, i&4 != 0, i&8 != 0, i&16 != 0)
	}
	return out
}()

func listStatement(status, cursor, withTrust, backward, withPolicy bool) int {
	i := 0
	for bit, on := range []bool{status, cursor, withTrust, backward, withPolicy} {
		if on {
			i |= 1 << bit
		}
	}
	return i
}

// listSQL is the statement of a page of agents of the organization $1:
// filtered by status and after (or, backward, before) a cursor when asked
// (each combination of filters is its own statement, so that every prepared
// plan uses the index made for it), then limited. A backward page reads
// from its cursor towards the newer agents, oldest first. A page with trust
// reads each agent's counters by the same statement (primary-key lookups
// beside the page's rows), so it needs no second one. The spend policy is
// read only withPolicy. Its parameters come in that order: org, status,
// seq, limit.
func listSQL(status, cursor, withTrust, backward, withPolicy bool) string {
	cmp, order := "<", "DESC"
	if backward {
		cmp, order = ">", "ASC"
	}
	cols := pageColumns
	if withPolicy {
		cols = viewColumns
	}
	sql, n := `SELECT `+cols+` FROM agents AS a WHERE a.org_id = $1`, 1
	if status {
		n++
		sql += fmt.Sprintf(" AND a.status = $%d", n)
	}
	if cursor {
		n++
		sql += fmt.Sprintf(" AND a.seq %s $%d", cmp, n)
	}
	n++
	sql += fmt.Sprintf(" ORDER BY a.seq %s LIMIT $%d", order, n)
	if !withTrust {
		return sql
	}
	return `SELECT page.*, ` + trustColumns + ` FROM (` + sql + `) AS page
 LEFT JOIN trust_counters AS tc ON tc.agent_id = page.id ORDER BY page.seq ` + order
}
