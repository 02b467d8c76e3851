package client_test

import (
	"errors"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agenttrust/service/client"
	"github.com/agenttrust/service/internal/testkit"
)

// The client reads policy usage, a spend series and the overview, and a
// bad series comes back as a *ValidationError naming the argument.
func TestDashboardReads(t *testing.T) {
	t.Parallel()
	b := setup(t)
	buyer := b.kit.Register(map[string]any{"name": "buyer", "spendingLimit": "500", "dailyLimit": "100"})
	seller := b.kit.Register(map[string]any{"name": "seller"})
	b.kit.MustExecute(b.kit.Key, testkit.Pay(buyer, seller, "30"))
	b.kit.MustExecute(b.kit.Key, testkit.Pay(buyer, seller, "12.5"))

	u, err := b.c.Agents.PolicyUsage(b.ctx, buyer.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(u.SpendLimits) != 1 || !u.SpendLimits[0].Used.Equal(decimal.RequireFromString("42.5")) ||
		!u.SpendLimits[0].Remaining.Equal(decimal.RequireFromString("57.5")) || u.SpendLimits[0].FreesUpAt == nil {
		t.Fatalf("usage: %+v", u)
	}
	now := time.Now()
	points, err := b.c.Dashboard.SpendSeries(b.ctx, client.SpendSeriesParams{AgentID: buyer.ID, Bucket: client.BucketHour,
		Since: now.Add(-2 * time.Hour), Until: now.Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	var sum decimal.Decimal
	count := 0
	for _, p := range points {
		sum, count = sum.Add(p.Amount), count+p.Count
	}
	if len(points) < 3 || !sum.Equal(decimal.RequireFromString("42.5")) || count != 2 {
		t.Fatalf("series: %+v", points)
	}
	o, err := b.c.Dashboard.Overview(b.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if o.AgentsByStatus[0] != (client.Count{Key: "active", Count: 2}) || o.TransactionsLast24h[0].Count != 2 {
		t.Fatalf("overview: %+v", o)
	}
	_, err = b.c.Dashboard.SpendSeries(b.ctx, client.SpendSeriesParams{Bucket: client.BucketDay, Since: now, Until: now.Add(time.Hour)})
	var ve *client.ValidationError
	if !errors.As(err, &ve) || len(ve.FieldErrors) != 1 || ve.FieldErrors[0].Field != "currency" {
		t.Fatalf("no currency: %v", err)
	}
}
