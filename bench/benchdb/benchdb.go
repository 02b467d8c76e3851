// Package benchdb holds what the benchmarks do to a seeded database directly
// in SQL, shared by the Go benchmarks (resolvers) and the load tools
// (bench/load, bench/read), and where those tools find the module's files.
package benchdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"github.com/agenttrust/service/id"
	"github.com/agenttrust/service/trust"
)

// Rescore stores, for the agents among ids (every agent when ids is nil),
// the score and assessment their stored counters produce now, as the write
// path would have left them: seeding writes counters in SQL, not through
// the service.
func Rescore(ctx context.Context, conn *sql.DB, ids []string) error {
	q := `SELECT tc.agent_id, tc.evidence_at, tc.completed, tc.failures, tc.limit_refusals,
		tc.reversals, tc.disputing_orgs, tc.open_disputes, tc.counterparty_orgs, coalesce(tc.first_external_at, 'epoch'), a.status
		FROM trust_counters tc JOIN agents a ON a.id = tc.agent_id`
	var args []any
	if ids != nil {
		q += ` WHERE tc.agent_id = ANY($1::text[])`
		args = append(args, TextArray(ids))
	}
	rows, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("read counters: %w", err)
	}
	type score struct {
		id, assessment string
		score          int
	}
	var scores []score
	now := time.Now().UTC()
	for rows.Next() {
		var s score
		var c trust.Counters
		var status string
		if err := rows.Scan(&s.id, &c.At, &c.Completed, &c.Failures, &c.LimitRefusals, &c.Reversals, &c.DisputingOrgs,
			&c.OpenDisputes, &c.CounterpartyOrgs, &c.FirstExternalAt, &status); err != nil {
			rows.Close()
			return fmt.Errorf("scan counters: %w", err)
		}
		if c.FirstExternalAt.Unix() == 0 {
			c.FirstExternalAt = time.Time{}
		}
		c.Suspended = status == "suspended"
		r := trust.Compute(c, now)
		s.score, s.assessment = r.Score, r.Assessment
		scores = append(scores, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read counters: %w", err)
	}
	for _, s := range scores {
		if _, err := conn.ExecContext(ctx, `UPDATE trust_counters SET score = $1, assessment = $2, updated_at = $3 WHERE agent_id = $4`,
			s.score, s.assessment, now, s.id); err != nil {
			return fmt.Errorf("rescore %s: %w", s.id, err)
		}
	}
	return nil
}

// arrayEscaper escapes an element of a quoted array literal.
var arrayEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`)

// TextArray is ss as a Postgres text[] literal, for a $n::text[] parameter
// of database/sql (which takes no slices).
func TextArray(ss []string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, s := range ss {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		b.WriteString(arrayEscaper.Replace(s))
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

// ModuleRoot is the directory of the service's go.mod, where the load tools
// find the migrations and the pgbench scripts: they run with `go run` from
// inside the module.
func ModuleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("run from inside the service's module (go run ./bench/load, ./bench/read)")
	}
	return filepath.Dir(mod), nil
}

// Open opens database/sql over pgx for dbURL.
func Open(dbURL string) *sql.DB {
	conn, err := sql.Open("pgx", dbURL)
	if err != nil {
		panic(err) // only an unknown driver fails here
	}
	return conn
}

// Scratch creates an empty database named prefix and a random suffix on
// the server at adminURL, and returns its URL and a function that drops it.
func Scratch(ctx context.Context, adminURL, prefix string) (string, func(), error) {
	u, err := url.Parse(adminURL)
	if err != nil {
		return "", nil, fmt.Errorf("admin database url: %w", err)
	}
	name := prefix + strings.ToLower(id.Random(8))
	admin := Open(adminURL)
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close()
		return "", nil, fmt.Errorf("create database: %w", err)
	}
	drop := func() {
		defer admin.Close()
		if _, err := admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			fmt.Fprintln(os.Stderr, "drop database:", err)
		}
	}
	u.Path = "/" + name
	q := u.Query()
	if q.Get("sslmode") == "" {
		q.Set("sslmode", "disable")
	}
	u.RawQuery = q.Encode()
	return u.String(), drop, nil
}
