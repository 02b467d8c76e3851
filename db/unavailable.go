package db

import (
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"syscall"
)

// Unavailable reports whether err means the database could not be reached,
// as opposed to a query that failed; the edge answers such errors with 503.
func Unavailable(err error) bool {
	var nerr net.Error
	var operr *net.OpError
	return errors.As(err, &nerr) || errors.As(err, &operr) ||
		errors.Is(err, driver.ErrBadConn) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}
