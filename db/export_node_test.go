package db

import "github.com/uptrace/bun/dialect/pgdialect"

// AttemptsByID is the statement DeliveriesByID runs, for the test of its
// plan; BatchOf is its batch ids' argument.
const AttemptsByID = attemptsByID

// BatchOf is batchOf, for the test of AttemptsByID's plan.
func BatchOf(dlvID string) string { return batchOf(dlvID) }

// PageAttempts is the statement of a forward page of DeliveryPages, for the
// test of its plan.
const PageAttempts = pageAttempts

// PageAttemptsBefore is the statement of a backward page of DeliveryPages.
const PageAttemptsBefore = pageAttemptsBefore

// Statement is query with args written in as bun sends it (a []string as
// an array), for the tests of a statement's plan.
func (d *DB) Statement(query string, args ...any) string {
	for i, a := range args {
		if s, ok := a.([]string); ok {
			args[i] = pgdialect.Array(s)
		}
	}
	return d.bun.QueryGen().FormatQuery(query, args...)
}
