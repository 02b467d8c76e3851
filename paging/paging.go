// Package paging is the one page-size rule of every paged list: the schema's
// `limit: Int = 50` defaults, the cost the complexity limit charges for a
// list, the resolvers' default for an explicit null and the stores' check
// all read these constants.
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

// Cost is the number of items a list answers at most for limit, for the
// complexity limit: Limit clamped to 1..Max (an out-of-range limit is
// refused later, so it is charged what it could at most have cost).
func Cost(limit *int) int {
	return min(max(Limit(limit), 1), Max)
}
