package httpapi_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agenttrust/service/internal/testkit"
)

// cpu is this process's user+system CPU time.
func cpu() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestMeasureWorstRequests prints the CPU seconds this process spends on the
// heaviest requests we could build (the figures in docs/limits.md). It runs
// only with ATT_MEASURE=1; it asserts nothing.
func TestMeasureWorstRequests(t *testing.T) {
	if os.Getenv("ATT_MEASURE") == "" {
		t.Skip("set ATT_MEASURE=1 to measure")
	}
	b := testkit.New(t)
	ids := make([]string, 50)
	for i := range ids {
		ids[i] = b.Register(map[string]any{"name": fmt.Sprintf("m%d", i)}).ID
	}
	// 500 audit entries per agent (content is irrelevant to reading them).
	sqldb := openSQL(t, b.DBURL)
	if _, err := sqldb.ExecContext(context.Background(), `INSERT INTO audit_entries (agent_id, sequence, action, at, actor, details, hash, previous_hash)
		SELECT a.id, s, 'transaction.completed', now(), 'key_x', '{"amount":"1","currency":"USD"}', md5(a.id || s), md5(a.id || (s-1))
		FROM agents a, generate_series(2, 500) s`); err != nil {
		t.Fatal(err)
	}
	chainQ := func(deep int) string {
		var q strings.Builder
		q.WriteString("query { ...F0 }")
		for i := range deep {
			fmt.Fprintf(&q, " fragment F%d on Query { ...F%d ...F%d }", i, i+1, i+1)
		}
		fmt.Fprintf(&q, " fragment F%d on Query { __typename }", deep)
		return q.String()
	}
	fields := []string{"id", "name", "authorizedActions", "spendingLimit", "dailyLimit", "currency",
		"environment", "status", "fingerprint", "createdAt", "updatedAt", "__typename"}
	var wide strings.Builder
	for _, f := range fields {
		wide.WriteString(strings.Repeat(" "+f, 50))
	}
	deep := 22
	if d := os.Getenv("ATT_MEASURE_DEEP"); d != "" {
		fmt.Sscan(d, &deep)
	}
	typenames := 3000
	if d := os.Getenv("ATT_MEASURE_TYPENAMES"); d != "" {
		fmt.Sscan(d, &typenames)
	}
	cases := []struct{ name, query string }{
		{fmt.Sprintf("fragment chain %d deep", deep), chainQ(deep)},
		{fmt.Sprintf("%d __typename in one selection", typenames), "{ agents { nodes {" + strings.Repeat(" __typename", typenames) + " } } }"},
		{"12 names x 50 in one selection", "{ agents { nodes {" + wide.String() + " } } }"},
		{"14 agents x 500 audit entries x 7 fields", `{ agents(limit: 14) { nodes { id auditChain { sequence action timestamp actor details hash previousHash } } } }`},
		{"50 agents x 500 audit entries x 7 fields", `{ agents(limit: 50) { nodes { id auditChain { sequence action timestamp actor details hash previousHash } } } }`},
		{"20 pages of 200", "{" + strings.Repeat(` a: agents(limit: 200) { nodes { id name authorizedActions spendingLimit dailyLimit currency environment status fingerprint createdAt updatedAt } }`, 1) +
			func() string {
				var q strings.Builder
				for i := range 9 {
					fmt.Fprintf(&q, ` a%d: agents(limit: 200) { nodes { id name authorizedActions spendingLimit dailyLimit currency environment status fingerprint createdAt updatedAt } }`, i)
				}
				for i := range 10 {
					fmt.Fprintf(&q, ` t%d: transactions(limit: 200) { nodes { id fromAgent toAgent action amount currency memo status reversalOf reversedBy reason createdAt } }`, i)
				}
				return q.String()
			}() + " }"},
		{"10 totalCounts", "{" + strings.Repeat(" a: agents { totalCount }", 1) + ` b1: agents { totalCount } b2: agents(status: active) { totalCount } b3: agents(status: suspended) { totalCount } b4: transactions { totalCount } b5: transactions(status: completed) { totalCount } b6: transactions(status: reversed) { totalCount } b7: agents(limit: 1) { totalCount } b8: agents(limit: 2) { totalCount } b9: agents(limit: 3) { totalCount } }`},
	}
	for _, c := range cases {
		before, start := cpu(), time.Now()
		r := b.Post(b.Key, map[string]any{"query": c.query})
		outcome := "ok"
		if len(r.Errors) > 0 {
			outcome = fmt.Sprintf("%v: %.90s", r.Errors[0].Extensions["code"], r.Errors[0].Message)
		}
		t.Logf("%-42s %7d bytes  cpu %8.3f s  wall %8.3f s  %s", c.name, len(c.query), (cpu() - before).Seconds(), time.Since(start).Seconds(), outcome)
	}
}
