package failure_test

import (
	"fmt"

	"github.com/agenttrust/service/failure"
)

// One table gives every contract code its HTTP status and GraphQL extensions.
func ExampleCode_HTTPStatus() {
	for _, c := range failure.Codes() {
		fmt.Println(c, c.HTTPStatus(), c.ExtensionKeys())
	}
	// Output:
	// UNAUTHENTICATED 401 []
	// FORBIDDEN 403 []
	// NOT_FOUND 404 []
	// VALIDATION_FAILED 422 [fieldErrors]
	// CONFLICT 409 []
	// POLICY_DENIED 422 [reasonCode reason]
	// RATE_LIMITED 429 [retryAfter]
	// INTERNAL 500 []
}
