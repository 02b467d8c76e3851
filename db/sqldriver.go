package db

import (
	"context"
	"database/sql/driver"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// simpleConnector is pgx's database/sql connector for bun and River's
// inserts. bun writes its arguments into each statement's text, so its
// statements go out in the simple protocol instead of each being prepared
// for one use; River's, which carry arguments, are prepared and cached as
// pgx does. A connection is taken for a request with a slot of its
// organization (enter: the bulkhead) and gives it back when closed:
// database/sql keeps no idle connection (Open), so it is closed as soon as
// its statement or transaction is done.
type simpleConnector struct {
	driver.Connector
	enter func(context.Context) (leave func(), err error)
}

// Connect returns a connection whose queries use the simple protocol.
func (c simpleConnector) Connect(ctx context.Context) (driver.Conn, error) {
	leave, err := c.enter(ctx)
	if err != nil {
		return nil, err
	}
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		leave()
		return nil, err
	}
	return simpleConn{Conn: conn.(*stdlib.Conn), leave: leave}, nil
}

type simpleConn struct {
	*stdlib.Conn
	leave func()
}

// Close gives the connection back to the pool and its slot to its organization.
func (c simpleConn) Close() error {
	err := c.Conn.Close()
	c.leave()
	return err
}

// QueryContext runs a query without arguments (bun's) in the simple
// protocol, and one with arguments (River's) as pgx does.
func (c simpleConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if len(args) == 0 {
		args = []driver.NamedValue{{Ordinal: 1, Value: pgx.QueryExecModeSimpleProtocol}}
	}
	return c.Conn.QueryContext(ctx, query, args)
}

// pgxConn is the pgx connection under a database/sql driver connection of
// the pool (sql.Conn.Raw's argument), for a transaction's batches (txn.raw).
func pgxConn(driverConn any) *pgx.Conn { return driverConn.(simpleConn).Conn.Conn() }
