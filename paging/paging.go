// Package paging is the one page-size rule of every paged list: the schema's
// `limit: Int = 50` defaults, the resolvers' default for an explicit null,
// the stores' check and the REST edge all read these constants. (The cost
// limit charges a page its requested limit: httpapi/cost.go.)
package paging

import "github.com/agenttrust/service/failure"

// Page sizes of the contract: a list answers Default items unless asked,
// and at most Max.
const (
	Default = 50
	Max     = 200
)

// Check enforces 1 <= limit <= Max. It returns a ValidationFailed error on
// field "limit", or nil.
func Check(limit int) error {
	if limit < 1 || limit > Max {
		return failure.Invalid("limit", "must be between 1 and %d (got %d)", Max, limit)
	}
	return nil
}

// Limit is the page size asked for: Default when limit is absent or null.
func Limit(limit *int) int {
	if limit == nil {
		return Default
	}
	return *limit
}

// Tokens is what reading rows costs the caller's rate limit beyond the
// request's own token: one per Max rows (rounded up), as many as the list
// pages that would read them, so that an export or a replay costs what
// paging through the same rows would.
func Tokens(rows int) int {
	return (rows + Max - 1) / Max
}
