package db

import (
	"context"
	"database/sql/driver"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// simpleConnector is pgx's database/sql connector for bun. bun writes every
// argument into its statements' text, so no two of its statements share a
// text: prepared and cached the way pgx treats a query with arguments, each
// would cost a round trip of its own and a slot in the connection's
// statement cache for one use. Its queries therefore go out in the simple
// protocol, as pgx sends a statement without arguments anyway; the pgx reads
// on the same pool keep their prepared statements.
type simpleConnector struct{ driver.Connector }

// Connect returns a connection whose queries use the simple protocol.
func (c simpleConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return simpleConn{conn.(*stdlib.Conn)}, nil
}

type simpleConn struct{ *stdlib.Conn }

// QueryContext runs a query without arguments (bun's) in the simple
// protocol, and one with arguments as pgx does.
func (c simpleConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if len(args) == 0 {
		args = []driver.NamedValue{{Ordinal: 1, Value: pgx.QueryExecModeSimpleProtocol}}
	}
	return c.Conn.QueryContext(ctx, query, args)
}

// pgxConn is the pgx connection under a database/sql driver connection of
// the pool (sql.Conn.Raw's argument).
func pgxConn(driverConn any) *pgx.Conn { return driverConn.(simpleConn).Conn.Conn() }
