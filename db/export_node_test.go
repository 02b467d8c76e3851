package db

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
