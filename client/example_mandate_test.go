package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agenttrust/service/client"
)

// A task-scoped purchase: a person grants the agent "two concert tickets, at
// most 300 USD, from this seller, within a week"; the agent pays under the
// mandate, anything else is refused, and revoking it stops the agent at once.
func ExampleMandatesService_Create() {
	ctx := context.Background()
	c, err := client.New(client.Options{})
	if err != nil {
		log.Fatal(err)
	}
	buyer := mustRegister(c, "ticket-bot", "500")
	seller := mustRegister(c, "box-office", "500")

	two := 2
	m, err := c.Mandates.Create(ctx, client.CreateMandateInput{
		AgentID: buyer.ID, Description: "two concert tickets", Actions: []string{"purchase"},
		CounterpartyAgents: []string{seller.ID}, Budget: decimal.RequireFromString("300"), MaxUses: &two,
		ExpiresAt: time.Now().Add(7 * 24 * time.Hour),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.Status, m.Budget, m.Currency)

	pay := func(amount string) error {
		_, err := c.Transactions.Execute(ctx, client.ExecuteInput{FromAgent: buyer.ID, ToAgent: seller.ID,
			Action: "purchase", Amount: decimal.RequireFromString(amount), Currency: "USD", MandateID: m.ID})
		return err
	}
	if err := pay("180"); err != nil {
		log.Fatal(err)
	}
	var denied *client.PolicyDeniedError
	if err := pay("150"); errors.As(err, &denied) {
		fmt.Println("denied:", denied.ReasonCode)
	}
	if m, err = c.Mandates.Revoke(ctx, m.ID, "tickets bought elsewhere"); err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.Status, "spent", m.Spent, "in", m.Uses, "use, remaining", m.Remaining)
	if err := pay("10"); errors.As(err, &denied) {
		fmt.Println("denied:", denied.ReasonCode)
	}
	// Output:
	// active 300 USD
	// denied: mandate_amount_exceeded
	// revoked spent 180 in 1 use, remaining 120
	// denied: mandate_revoked
}
