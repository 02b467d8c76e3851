// Package testkit is the one test kit of the service: a per-test database and
// handler (New), a small typed GraphQL client over that handler (Do, Query and
// the operations in agent.go, transaction.go, trust.go), the JSON mirror types
// of the schema, and helpers to reach behind the service (Exec, Events).
//
// Tests of any package use it through the public surface: every call goes
// through the real HTTP handler. A new operation is a const document, a mirror
// type and a few-line method in the file of its noun.
package testkit

import (
	"context"
	"database/sql"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/db/dbtest"
	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/wire"
)

// Kit is one test's isolated service: its own database and handler, and one
// organization with an API key to act as.
type Kit struct {
	T       testing.TB
	DB      *db.DB
	DBURL   string
	Orgs    *db.OrgService
	Handler http.Handler
	// The organization the kit acts as by default, and its key.
	OrgID, KeyID, Key string
}

// New builds a kit on a fresh database: the handler wire.Handler builds, with
// rate limits high enough not to interfere unless cfgs lower them.
func New(t testing.TB, cfgs ...func(*httpapi.Config)) *Kit {
	t.Helper()
	d, u := dbtest.NewWithURL(t)
	cfg := httpapi.Config{RateLimitRPS: 10000, RateLimitBurst: 10000}
	for _, f := range cfgs {
		f(&cfg)
	}
	k := &Kit{T: t, DB: d, DBURL: u, Orgs: db.NewOrgService(d)}
	k.Handler = wire.Handler(wire.Options{DB: d, Config: cfg, Logger: Logger(t)})
	o := k.NewOrgWithKey("acme")
	k.OrgID, k.KeyID, k.Key = o.ID, o.KeyID, o.Key
	return k
}

// For returns a copy of the kit that reports to t (a subtest).
func (k *Kit) For(t testing.TB) *Kit {
	c := *k
	c.T = t
	return &c
}

// Org is an organization and its first API key.
type Org struct{ ID, KeyID, Key string }

// NewOrgWithKey creates another organization with one API key.
func (k *Kit) NewOrgWithKey(name string) Org {
	k.T.Helper()
	orgID, keyID, key, err := k.Orgs.CreateOrg(context.Background(), name)
	if err != nil {
		k.T.Fatalf("create org: %v", err)
	}
	return Org{orgID, keyID, key}
}

// NewOrg creates another organization and returns its id and API key.
func (k *Kit) NewOrg(name string) (orgID, key string) {
	k.T.Helper()
	o := k.NewOrgWithKey(name)
	return o.ID, o.Key
}

// SQL opens a database/sql handle on the test database, for seeding and
// checks behind the service's back; it is closed when the test ends.
func (k *Kit) SQL() *sql.DB {
	k.T.Helper()
	conn := k.openSQL()
	k.T.Cleanup(func() { conn.Close() })
	return conn
}

func (k *Kit) openSQL() *sql.DB { return dbtest.OpenSQL(k.DBURL) }

// Exec runs SQL straight against the test database, behind the service's
// back, and fails unless it changed a row.
func (k *Kit) Exec(query string, args ...any) {
	k.T.Helper()
	conn := k.openSQL()
	defer conn.Close()
	res, err := conn.ExecContext(context.Background(), query, args...)
	if err != nil {
		k.T.Fatalf("exec %q: %v", query, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		k.T.Fatalf("exec %q changed no row", query)
	}
}

// Events returns an organization's durable event log, oldest first.
func (k *Kit) Events(orgID string) []event.Event {
	k.T.Helper()
	evs, err := k.DB.Events(context.Background(), orgID, 0, 10000)
	if err != nil {
		k.T.Fatalf("read events: %v", err)
	}
	return evs
}

// EventsOf returns an organization's events of type typ, oldest first.
func (k *Kit) EventsOf(orgID, typ string) []event.Event {
	k.T.Helper()
	var out []event.Event
	for _, e := range k.Events(orgID) {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// AgentEvents lists the types of an organization's agent.* events, oldest
// first (other capabilities, such as trust, add their own events alongside).
func (k *Kit) AgentEvents(orgID string) []string {
	k.T.Helper()
	var out []string
	for _, e := range k.Events(orgID) {
		if strings.HasPrefix(e.Type, "agent.") {
			out = append(out, e.Type)
		}
	}
	return out
}

// Logger sends the service's warnings and errors to t's log.
func Logger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(Writer{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// Writer writes each line to a test's log.
type Writer struct{ T testing.TB }

func (w Writer) Write(p []byte) (int, error) {
	w.T.Helper()
	w.T.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
