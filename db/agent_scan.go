package db

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/money"
	"github.com/agenttrust/service/trust"
)

// agentColumns are the columns agentScanner reads, in its order (the list's
// organization is the caller's, so org_id is not read); amounts come as
// text, the exact form money.ParseAmount reads.
const agentColumns = "seq, id, name, authorized_actions, spending_limit::text, daily_limit::text, currency, environment, status, fingerprint, created_at, updated_at"

// Positions of agentColumns read from the raw row.
const (
	colID = 1 + iota
	colName
	colActions
	colLimit
	colDaily
	colCurrency
	colEnvironment
	colStatus
	colFingerprint
	colCreated
	colUpdated
	colCounters // the first of counterColumns, when a page is read with trust
)

// counterColumns are an agent's trust counters (trust.Counters) as
// agentScanner reads them after agentColumns, from trust_counters AS tc.
const counterColumns = "tc.evidence_at, tc.completed, tc.failures, tc.limit_refusals, tc.reversals, tc.disputing_orgs, tc.open_disputes, tc.counterparty_orgs, tc.first_external_at, tc.updated_at"

// nCounterColumns is the number of counterColumns.
const nCounterColumns = 10

// agentScanner reads a page of agentColumns rows of one organization
// straight into one slab of agents: a page of agents is the service's
// commonest read, and a string, a slice and an amount allocated per column
// per row cost more than the query. The text of every row (ids, names,
// fingerprints, actions, limits) is copied into one buffer and becomes one
// string when the page is complete; the enum columns (currency,
// environment, status) take the constants' strings.
type agentScanner struct {
	orgID  string
	agents []agent.Agent
	work   *scanWork // where seqs, text, rows, acts and counters come from
	seqs   []int64
	text   []byte      // the text columns of every row, one after the other
	rows   []agentText // where each row's text is in text
	acts   []span      // every row's authorized actions
	raw    bool        // authorized_actions arrive in the binary array format
	// binary: the other columns rows.Scan would read arrive in the binary
	// format with the types of agentOIDs (rawAgents), and are decoded here.
	binary bool

	// Destinations of rows.Scan, reused for every row.
	seq              int64
	actions          []string // only when the array does not come in the binary format
	created, updated time.Time
	live             bool // the API key check after agentColumns, when asked for (auth.Fold)
	withKey          bool
	dest             []any
	// bare is dest with the counters' destinations nil, for a row without
	// counters (they cannot take NULL).
	bare []any

	// With trust: each row's counters (trust.Counters), and whether it had
	// any; c, first and tcUpdated are the destinations of counterColumns.
	withTrust bool
	counters  []rowCounters
	c         trust.Counters
	first     pgtype.Timestamptz
	tcUpdated time.Time
}

// scanWork is an agentScanner's working memory that nothing it returns
// refers to (page copies the text; profiles copy the counters), kept in
// scannerWork between pages: a page of 50 agents with trust needs about
// 20 KB of it.
type scanWork struct {
	text     []byte
	rows     []agentText
	acts     []span
	seqs     []int64
	counters []rowCounters
}

var scannerWork sync.Pool

// maxWork is the most text a scanner's working memory keeps for the next page.
const maxWork = 1 << 20

// release hands the scanner's working memory to the next page; the caller
// is done with the scanner, and with the seqs page returned.
func (s *agentScanner) release() {
	w := s.work
	if w == nil || cap(s.text) > maxWork {
		return
	}
	w.text, w.rows, w.acts, w.seqs, w.counters = s.text[:0], s.rows[:0], s.acts[:0], s.seqs[:0], s.counters[:0]
	s.work = nil
	scannerWork.Put(w)
}

// rowCounters are one row's trust counters.
type rowCounters struct {
	c       trust.Counters
	updated time.Time
	ok      bool // the agent has counters
}

// span is a piece of agentScanner.text.
type span struct{ off, end int }

type agentText struct {
	id, name, fingerprint, limit, daily span
	hasDaily                            bool
	acts                                span // indexes of agentScanner.acts
}

// newAgentScanner reads rows of agentColumns, followed by counterColumns
// when withTrust, and by the key's liveness when withKey.
func newAgentScanner(orgID string, rows pgx.Rows, capacity int, withTrust, withKey bool) *agentScanner {
	s := &agentScanner{orgID: orgID, agents: make([]agent.Agent, 0, capacity)}
	if w, ok := scannerWork.Get().(*scanWork); ok {
		s.work = w
	} else {
		s.work = &scanWork{text: make([]byte, 0, 160*capacity), rows: make([]agentText, 0, capacity),
			acts: make([]span, 0, 2*capacity), seqs: make([]int64, 0, capacity)}
	}
	s.seqs, s.text, s.rows, s.acts = s.work.seqs[:0], s.work.text[:0], s.work.rows[:0], s.work.acts[:0]
	fields := rows.FieldDescriptions()
	s.raw = len(fields) > colActions && fields[colActions].Format == pgx.BinaryFormatCode
	s.binary, s.withKey = s.raw && rawAgents(fields, withTrust, withKey), withKey
	s.dest = []any{&s.seq, nil, nil, nil, nil, nil, nil, nil, nil, nil, &s.created, &s.updated}
	if withTrust {
		if cap(s.work.counters) < capacity {
			s.work.counters = make([]rowCounters, 0, capacity)
		}
		s.withTrust, s.counters = true, s.work.counters[:0]
		c := &s.c
		s.dest = append(s.dest, &c.At, &c.Completed, &c.Failures, &c.LimitRefusals, &c.Reversals,
			&c.DisputingOrgs, &c.OpenDisputes, &c.CounterpartyOrgs, &s.first, &s.tcUpdated)
	}
	if withKey {
		s.dest = append(s.dest, &s.live)
	}
	if withTrust {
		s.bare = append([]any(nil), s.dest...)
		for i := colCounters; i < colCounters+nCounterColumns; i++ {
			s.bare[i] = nil
		}
	}
	if !s.raw {
		s.dest[colActions] = &s.actions
	}
	return s
}

// scan reads the current row.
func (s *agentScanner) scan(rows pgx.Rows) error {
	dest := s.dest
	hasCounters := s.withTrust && rows.RawValues()[colCounters] != nil // evidence_at is NOT NULL: nil is no row of trust_counters
	if s.withTrust && !hasCounters {
		dest = s.bare
	}
	if s.binary {
		if err := s.decode(rows.RawValues(), hasCounters); err != nil {
			return fmt.Errorf("scan agent: %w", err)
		}
	} else if err := rows.Scan(dest...); err != nil {
		return fmt.Errorf("scan agent: %w", err)
	}
	if s.withTrust {
		rc := rowCounters{ok: hasCounters}
		if hasCounters {
			rc.c, rc.updated = s.c, s.tcUpdated.UTC()
			if s.first.Valid {
				rc.c.FirstExternalAt = s.first.Time
			}
		}
		s.counters = append(s.counters, rc)
	}
	s.agents = append(s.agents, agent.Agent{OrgID: s.orgID, CreatedAt: s.created.UTC(), UpdatedAt: s.updated.UTC()})
	a := &s.agents[len(s.agents)-1]
	s.seqs = append(s.seqs, s.seq)
	raw := rows.RawValues()
	t := agentText{id: s.keep(raw[colID]), name: s.keep(raw[colName]), fingerprint: s.keep(raw[colFingerprint]),
		limit: s.keep(raw[colLimit]), hasDaily: raw[colDaily] != nil}
	if t.hasDaily {
		t.daily = s.keep(raw[colDaily])
	}
	t.acts.off = len(s.acts)
	if s.raw {
		if err := s.keepArray(raw[colActions]); err != nil {
			return fmt.Errorf("scan agent authorized_actions: %w", err)
		}
	} else {
		for _, act := range s.actions {
			s.acts = append(s.acts, s.keep([]byte(act)))
		}
	}
	t.acts.end = len(s.acts)
	s.rows = append(s.rows, t)
	a.Currency = money.Currency(constant(raw[colCurrency]))
	a.Environment = agent.Environment(constant(raw[colEnvironment]))
	a.Status = agent.Status(constant(raw[colStatus]))
	return nil
}

// agentOIDs are the types of the columns of agentColumns (by position) and
// counterColumns (from colCounters) that agentScanner reads through
// rows.Scan unless they come in the binary format; text columns are absent.
var agentOIDs = map[int]uint32{0: pgtype.Int8OID, colCreated: pgtype.TimestamptzOID, colUpdated: pgtype.TimestamptzOID,
	colCounters: pgtype.TimestamptzOID, colCounters + 1: pgtype.Float8OID, colCounters + 2: pgtype.Float8OID,
	colCounters + 3: pgtype.Float8OID, colCounters + 4: pgtype.Float8OID, colCounters + 5: pgtype.Float8OID,
	colCounters + 6: pgtype.Int8OID, colCounters + 7: pgtype.Int8OID, colCounters + 8: pgtype.TimestamptzOID,
	colCounters + 9: pgtype.TimestamptzOID}

// rawAgents reports whether fields, of agentColumns (with counterColumns
// when withTrust, and the key's check when withKey), come with agentOIDs'
// types in the binary format, so that decode can read them: a page reads
// 50 rows, and pgx's scan plans per column cost more than the decoding.
func rawAgents(fields []pgconn.FieldDescription, withTrust, withKey bool) bool {
	n := colCounters
	if withTrust {
		n += nCounterColumns
	}
	if withKey {
		n++
	}
	if len(fields) != n {
		return false
	}
	for i, f := range fields {
		oid, ok := agentOIDs[i]
		switch {
		case withKey && i == n-1:
			oid, ok = pgtype.BoolOID, true
		case !ok:
			continue
		}
		if f.DataTypeOID != oid || f.Format != pgx.BinaryFormatCode {
			return false
		}
	}
	return true
}

// decode reads the current row's columns rows.Scan would read, from their
// binary form (rawAgents), as rows.Scan reads them.
func (s *agentScanner) decode(raw [][]byte, hasCounters bool) error {
	var errs []error
	req := func(i int) []byte {
		if raw[i] == nil {
			errs = append(errs, fmt.Errorf("column %d is null", i))
		}
		return raw[i]
	}
	s.seq = int64(decodeUint(req(0), 8, &errs))
	s.created, s.updated = decodeTime(req(colCreated), &errs), decodeTime(req(colUpdated), &errs)
	if hasCounters {
		c := &s.c
		c.At = decodeTime(req(colCounters), &errs)
		for i, f := range [...]*float64{&c.Completed, &c.Failures, &c.LimitRefusals, &c.Reversals, &c.DisputingOrgs} {
			*f = math.Float64frombits(decodeUint(req(colCounters+1+i), 8, &errs))
		}
		c.OpenDisputes = int64(decodeUint(req(colCounters+6), 8, &errs))
		c.CounterpartyOrgs = int64(decodeUint(req(colCounters+7), 8, &errs))
		s.first = pgtype.Timestamptz{}
		if b := raw[colCounters+8]; b != nil {
			// As pgx scans into a Timestamptz: ±infinity is valid, with a zero Time.
			if us := int64(decodeUint(b, 8, &errs)); us != math.MaxInt64 && us != math.MinInt64 {
				s.first.Time = decodeTime(b, &errs)
			}
			s.first.Valid = true
		}
		s.tcUpdated = decodeTime(req(colCounters+9), &errs)
	}
	if s.withKey {
		s.live = decodeUint(req(len(raw)-1), 1, &errs) != 0
	}
	return errors.Join(errs...)
}

// keep copies b into the page's text.
func (s *agentScanner) keep(b []byte) span {
	off := len(s.text)
	s.text = append(s.text, b...)
	return span{off, len(s.text)}
}

// keepArray copies the elements of a one-dimensional text[] in Postgres'
// binary array format (arrayElements).
func (s *agentScanner) keepArray(b []byte) error {
	return arrayElements(b, func(e []byte) { s.acts = append(s.acts, s.keep(e)) })
}

// page completes the agents: their text becomes one string, sliced.
func (s *agentScanner) page() ([]*agent.Agent, []int64, error) {
	text := string(s.text)
	str := func(sp span) string { return text[sp.off:sp.end] }
	actions := make([]string, len(s.acts))
	for i, sp := range s.acts {
		actions[i] = str(sp)
	}
	out := make([]*agent.Agent, len(s.agents))
	for i := range s.agents {
		a, t := &s.agents[i], &s.rows[i]
		a.ID, a.Name, a.Fingerprint = str(t.id), str(t.name), str(t.fingerprint)
		a.AuthorizedActions = actions[t.acts.off:t.acts.end:t.acts.end]
		var daily *string
		if t.hasDaily {
			d := str(t.daily)
			daily = &d
		}
		var err error
		if a.SpendingLimit, a.DailyLimit, err = parseLimits(str(t.limit), daily); err != nil {
			return nil, nil, fmt.Errorf("scan agent %s: %w", a.ID, err)
		}
		out[i] = a
	}
	return out, s.seqs, nil
}

// profiles scores the first n rows' counters at now, in row order; an
// agent without counters has a nil profile. The profiles are one slab.
func (s *agentScanner) profiles(n int, now time.Time) []*trust.Profile {
	slab := make([]trust.Profile, n)
	out := make([]*trust.Profile, n)
	for i := range n {
		rc := &s.counters[i]
		if !rc.ok {
			continue
		}
		a := &s.agents[i]
		rc.c.Suspended = a.Status == agent.Suspended
		slab[i] = trust.NewProfile(a.ID, rc.c, now, rc.updated)
		out[i] = &slab[i]
	}
	return out
}

// constants are the values of the enum columns, so that reading them
// allocates nothing.
var constants = func() map[string]string {
	m := map[string]string{}
	for _, v := range []string{string(agent.Active), string(agent.Suspended), string(agent.Sandbox), string(agent.Production)} {
		m[v] = v
	}
	for _, c := range money.ActiveCurrencies() {
		m[string(c)] = string(c)
	}
	return m
}()

// constant is b as one of constants' strings, or a new string.
func constant(b []byte) string {
	if v, ok := constants[string(b)]; ok {
		return v
	}
	return string(b)
}

func parseLimits(limit string, daily *string) (money.Amount, *money.Amount, error) {
	l, err := money.ParseAmount(limit)
	if err != nil {
		return money.Amount{}, nil, fmt.Errorf("spending_limit: %w", err)
	}
	if daily == nil {
		return l, nil, nil
	}
	d, err := money.ParseAmount(*daily)
	if err != nil {
		return money.Amount{}, nil, fmt.Errorf("daily_limit: %w", err)
	}
	return l, &d, nil
}
