package db

import (
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/puddle/v2"
)

// Unavailable reports whether err means the database could not be reached,
// as opposed to a query that failed; the edge answers such errors with 503.
// Besides network failures this covers a closed pool (shutting down) and
// Postgres refusing service: connection exceptions, shutdown, start-up, too
// many connections, the database no longer existing, or a statement cancelled
// (57014): by statement_timeout, a query or lock wait that ran StatementTimeout
// because the database cannot serve it now (a later retry may succeed), or
// by a caller that went away, who reads no answer, or a lock wait that ran
// its lock_timeout (55P03: a webhook registration waiting for event writers).
func Unavailable(err error) bool {
	var nerr net.Error
	var operr *net.OpError
	if errors.As(err, &nerr) || errors.As(err, &operr) ||
		errors.Is(err, driver.ErrBadConn) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return true
	}
	var pgxErr *pgconn.PgError
	var connectErr *pgconn.ConnectError
	if errors.As(err, &pgxErr) {
		return unavailableCode(pgxErr.Code)
	}
	if errors.As(err, &connectErr) || errors.Is(err, puddle.ErrClosedPool) || pgconn.SafeToRetry(err) {
		return true
	}
	// database/sql does not export this error; its text is stable.
	return err != nil && strings.Contains(err.Error(), "sql: database is closed")
}

// unavailableCode reports whether a Postgres error code means it refuses service.
func unavailableCode(code string) bool {
	switch code {
	case "57P01", "57P02", "57P03", "53300", "3D000", "57014", "55P03":
		return true
	default:
		return strings.HasPrefix(code, "08")
	}
}
