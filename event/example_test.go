package event_test

import (
	"fmt"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/failure"
)

// A webhook's or a subscription's type filter: known types, or exactly "*".
func ExampleValidateTypes() {
	fmt.Println(event.ValidateTypes("input.events", []string{"*"}))
	err := event.ValidateTypes("input.events", []string{"agent.registered", "agent.deleted", "webhook.test"})
	for _, fe := range failure.As(err).FieldErrors {
		fmt.Println(fe.Field, fe.Message)
	}
	fmt.Println(event.Matches([]string{"agent.registered"}, event.AgentSuspended))
	// Output:
	// <nil>
	// input.events[1] unknown event type "agent.deleted"
	// input.events[2] "webhook.test" is sent only to the endpoint being tested or registered
	// false
}
