package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/shopspring/decimal"

	"github.com/agenttrust/service/client"
)

// Register an agent. New reads the key from AGENTTRUST_API_KEY and the
// service's URL from AGENTTRUST_BASE_URL when Options leaves them empty.
func ExampleAgentsService_Register() {
	ctx := context.Background()
	c, err := client.New(client.Options{})
	if err != nil {
		log.Fatal(err)
	}
	agent, err := c.Agents.Register(ctx, client.RegisterAgentInput{
		Name:              "procurement-bot",
		AuthorizedActions: []string{"purchase"},
		SpendingLimit:     decimal.RequireFromString("500.00"),
		Currency:          "USD",
		Environment:       client.Sandbox,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(agent.Name, agent.Status, agent.SpendingLimit, agent.Currency)
	// Output: procurement-bot active 500 USD
}

// Ask the policy first, then pay. Execute sends an idempotency key (here the
// order number) on every attempt, so a retried call never pays twice; a
// refusal is a *PolicyDeniedError with the same reason code Evaluate gives.
func ExampleTransactionsService_Execute() {
	ctx := context.Background()
	c, err := client.New(client.Options{})
	if err != nil {
		log.Fatal(err)
	}
	buyer := mustRegister(c, "buyer", "200")
	seller := mustRegister(c, "seller", "200")
	amount := decimal.RequireFromString("120.50")

	ev, err := c.Trust.Evaluate(ctx, client.EvaluateInput{AgentID: buyer.ID, ToAgent: seller.ID, Action: "purchase", Amount: amount, Currency: "USD"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("allowed:", ev.Allowed, ev.ReasonCode)

	tx, err := c.Transactions.Execute(ctx, client.ExecuteInput{
		FromAgent: buyer.ID, ToAgent: seller.ID, Action: "purchase", Amount: amount, Currency: "USD",
		Memo: "order 1042", IdempotencyKey: "order-1042",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(tx.Status, tx.Amount, tx.Currency, tx.Memo)

	_, err = c.Transactions.Execute(ctx, client.ExecuteInput{
		FromAgent: buyer.ID, ToAgent: seller.ID, Action: "purchase", Amount: decimal.RequireFromString("900"), Currency: "USD",
	})
	var denied *client.PolicyDeniedError
	if errors.As(err, &denied) {
		fmt.Println("denied:", denied.ReasonCode)
	}
	// Output:
	// allowed: true ok
	// completed 120.5 USD order 1042
	// denied: amount_exceeds_limit
}

// Iterate over every page of a list: ListAll fetches the next page when the
// loop reaches it, newest first.
func ExampleTransactionsService_ListAll() {
	ctx := context.Background()
	c, err := client.New(client.Options{})
	if err != nil {
		log.Fatal(err)
	}
	payer := mustRegister(c, "payer", "100")
	payee := mustRegister(c, "payee", "100")
	for _, amount := range []string{"1.25", "2.50", "3.75", "5"} {
		_, err := c.Transactions.Execute(ctx, client.ExecuteInput{FromAgent: payer.ID, ToAgent: payee.ID, Action: "purchase",
			Amount: decimal.RequireFromString(amount), Currency: "USD"})
		if err != nil {
			log.Fatal(err)
		}
	}
	total := decimal.Zero
	for tx, err := range c.Transactions.ListAll(ctx, client.ListTransactionsParams{AgentID: payer.ID, Limit: 2}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(tx.Amount)
		total = total.Add(tx.Amount)
	}
	fmt.Println("total", total)
	// Output:
	// 5
	// 3.75
	// 2.5
	// 1.25
	// total 12.5
}

// Branch on the kind of error with errors.As or errors.Is; every error the
// service answers keeps its request id.
func ExampleNotFoundError() {
	c, err := client.New(client.Options{})
	if err != nil {
		log.Fatal(err)
	}
	_, err = c.Agents.Get(context.Background(), "agent_missing")
	var nf *client.NotFoundError
	if errors.As(err, &nf) {
		fmt.Println(nf.Code, errors.Is(err, client.ErrNotFound), nf.RequestID != "")
	}
	// Output: NOT_FOUND true true
}

// Stream the organization's events. After a dropped connection the stream
// reconnects and resumes after the last event it delivered; keep
// LastEventID to resume in a later process.
func ExampleEventsService_Subscribe() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := client.New(client.Options{})
	if err != nil {
		log.Fatal(err)
	}
	stream, err := c.Events.Subscribe(ctx, client.SubscribeOptions{Types: []string{"transaction.completed"}})
	if err != nil {
		log.Fatal(err)
	}
	defer stream.Close()
	for ev := range stream.Events() {
		fmt.Println(ev.ID, ev.Type, string(ev.Data))
	}
	if err := stream.Err(); err != nil {
		log.Fatal(err)
	}
}

func mustRegister(c *client.Client, name, limit string) *client.Agent {
	a, err := c.Agents.Register(context.Background(), client.RegisterAgentInput{
		Name: name, AuthorizedActions: []string{"purchase"}, SpendingLimit: decimal.RequireFromString(limit),
		Currency: "USD", Environment: client.Sandbox,
	})
	if err != nil {
		log.Fatal(err)
	}
	return a
}
