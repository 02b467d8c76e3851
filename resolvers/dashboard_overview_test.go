package resolvers_test

import (
	"fmt"
	"testing"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/internal/testkit"
)

const overviewQuery = `{ overview { agentsByStatus { key count } agentsByAssessment { key count } transactionsLast24h { key count }
 pendingApprovals openDisputes webhooksFailing webhooksDisabled } }`

type countByKey struct {
	Key   string `json:"key"`
	Count int    `json:"count"`
}

type overview struct {
	AgentsByStatus      []countByKey `json:"agentsByStatus"`
	AgentsByAssessment  []countByKey `json:"agentsByAssessment"`
	TransactionsLast24h []countByKey `json:"transactionsLast24h"`
	PendingApprovals    int          `json:"pendingApprovals"`
	OpenDisputes        int          `json:"openDisputes"`
	WebhooksFailing     int          `json:"webhooksFailing"`
	WebhooksDisabled    int          `json:"webhooksDisabled"`
}

func readOverview(t *testing.T, k *testkit.Kit, key string) overview {
	t.Helper()
	var o overview
	k.Do(key, overviewQuery, nil).Into(t, "overview", &o)
	return o
}

// overview's counts equal what the list queries return, with zeros for
// every key, and another organization's activity leaves them alone.
func TestOverviewMatchesLists(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	other := k.NewOrgWithKey("other")
	buyer := k.Register(map[string]any{"name": "buyer", "spendingLimit": "1000"})
	seller := k.Register(map[string]any{"name": "seller", "authorizedActions": []any{"refund"}})
	idle := k.Register(map[string]any{"name": "idle"})
	k.SuspendAgent(idle.ID, "paused")
	theirs := k.RegisterAs(other.Key, map[string]any{"name": "theirs", "spendingLimit": "1000"})

	for i := range 4 {
		k.MustExecute(k.Key, testkit.Pay(buyer, seller, fmt.Sprint(10+i)))
	}
	k.Reverse(k.Key, k.MustExecute(k.Key, testkit.Pay(buyer, theirs, "3")).ID, "refunded").Into(t, "reverseTransaction", new(testkit.Transaction))
	var fromTheirs testkit.Transaction
	k.Do(other.Key, testkit.ExecuteMutation, map[string]any{"input": testkit.Pay(theirs, seller, "8")}).Into(t, "executeTransaction", &fromTheirs)
	k.SetPolicy(k.Key, buyer.ID, map[string]any{"approval": map[string]any{"above": "100", "expiresAfterSeconds": 3600}})
	var pending, declined testkit.Transaction
	k.Execute(k.Key, testkit.Pay(buyer, seller, "150")).Into(t, "executeTransaction", &pending)
	k.Execute(k.Key, testkit.Pay(buyer, seller, "160")).Into(t, "executeTransaction", &declined)
	k.Decline(k.Key, declined.ID, "no").Into(t, "declineTransaction", new(testkit.Transaction))
	// Their pending payment to our seller is theirs alone until it completes.
	k.SetPolicy(other.Key, theirs.ID, map[string]any{"approval": map[string]any{"above": "1", "expiresAfterSeconds": 3600}})
	k.Do(other.Key, testkit.ExecuteMutation, map[string]any{"input": testkit.Pay(theirs, seller, "50")}).Into(t, "executeTransaction", new(testkit.Transaction))

	buyerTx := k.MustExecute(k.Key, testkit.Pay(buyer, theirs, "2"))
	k.Report(other.Key, buyer.ID, "never delivered", buyerTx.ID).Into(t, "reportAgent", new(struct{}))
	// Endpoints as deliveries leave them: one paused, one failing, one
	// healthy (registering one would send a verification request).
	for i, state := range []string{"false, 0", "true, 3", "true, 0"} {
		k.Exec(fmt.Sprintf(`INSERT INTO webhooks (id, org_id, url, events, active, consecutive_failures, secret_sealed, created_at, updated_at)
 VALUES ($1, $2, $3, '{*}', %s, 'sealed', now(), now())`, state), fmt.Sprintf("wh_test%d", i), k.OrgID, fmt.Sprintf("https://hooks%d.example.com/in", i))
	}
	k.Exec(`INSERT INTO webhooks (id, org_id, url, events, active, consecutive_failures, secret_sealed, created_at, updated_at)
 VALUES ('wh_theirs', $1, 'https://theirs.example.com/in', '{*}', false, 5, 'sealed', now(), now())`, other.ID)

	o := readOverview(t, k, k.Key)

	// What the lists say.
	var agents struct {
		Nodes []struct {
			Status string `json:"status"`
			Trust  struct {
				Assessment string `json:"assessment"`
			} `json:"trust"`
		} `json:"nodes"`
	}
	k.Query(`{ agents(limit: 200) { nodes { status trust { assessment } } } }`, nil).Into(t, "agents", &agents)
	status, assessment := map[string]int{}, map[string]int{}
	for _, a := range agents.Nodes {
		status[a.Status]++
		assessment[a.Trust.Assessment]++
	}
	var txs struct {
		Nodes      []testkit.Transaction `json:"nodes"`
		TotalCount int                   `json:"totalCount"`
	}
	k.Query(`{ transactions(limit: 200) { nodes { id status } } }`, nil).Into(t, "transactions", &txs)
	byStatus := map[string]int{}
	for _, tx := range txs.Nodes {
		byStatus[tx.Status]++
	}
	var queue struct {
		TotalCount int `json:"totalCount"`
	}
	k.Query(`{ transactions(status: pending_approval) { totalCount } }`, nil).Into(t, "transactions", &queue)
	disputes := k.Disputes(k.Key, map[string]any{"status": "open"})
	var hooks []struct {
		Active              bool `json:"active"`
		ConsecutiveFailures int  `json:"consecutiveFailures"`
	}
	k.Query(`{ webhooks { active consecutiveFailures } }`, nil).Into(t, "webhooks", &hooks)
	failing, disabled := 0, 0
	for _, h := range hooks {
		if !h.Active {
			disabled++
		} else if h.ConsecutiveFailures > 0 {
			failing++
		}
	}

	want := overview{
		AgentsByStatus:      keyed(status, "active", "suspended"),
		AgentsByAssessment:  keyed(assessment, "Verified", "Moderate", "High Risk"),
		TransactionsLast24h: keyed(byStatus, "completed", "reversed", "pending_approval", "declined", "expired"),
		PendingApprovals:    queue.TotalCount, OpenDisputes: disputes.TotalCount, WebhooksFailing: failing, WebhooksDisabled: disabled,
	}
	if fmt.Sprint(o) != fmt.Sprint(want) {
		t.Fatalf("overview\n %+v\nlists say\n %+v", o, want)
	}
	// And the figures themselves, so the lists cannot agree with a wrong overview by accident.
	if status["active"] != 2 || status["suspended"] != 1 || byStatus["completed"] != 6 || byStatus["reversed"] != 2 ||
		byStatus["pending_approval"] != 1 || byStatus["declined"] != 1 || queue.TotalCount != 1 || failing != 1 || disabled != 1 {
		t.Errorf("lists: status %v, transactions %v, queue %d, webhooks failing %d disabled %d", status, byStatus, queue.TotalCount, failing, disabled)
	}
	if o.OpenDisputes != 1 {
		t.Errorf("open disputes %d, want the one filed against buyer", o.OpenDisputes)
	}
	theirView := readOverview(t, k, other.Key)
	if theirView.PendingApprovals != 1 || theirView.AgentsByStatus[0].Count != 1 || theirView.OpenDisputes != 1 {
		t.Errorf("the other organization's overview: %+v", theirView)
	}
}

func keyed(counts map[string]int, keys ...string) []countByKey {
	out := make([]countByKey, len(keys))
	for i, k := range keys {
		out[i] = countByKey{Key: k, Count: counts[k]}
	}
	return out
}

// overview is for admin and read-only keys; an agent key is FORBIDDEN.
func TestOverviewRoles(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	a := k.Register(nil)
	_, readonly := k.IssueKey(auth.RoleReadonly)
	_, agentKey := k.IssueKey(auth.RoleAgent, a.ID)
	if o := readOverview(t, k, readonly); o.AgentsByStatus[0].Count != 1 {
		t.Errorf("read-only key: %+v", o)
	}
	k.Do(agentKey, overviewQuery, nil).Refused(t, "FORBIDDEN")
	k.Do("", overviewQuery, nil).RefusedHTTP(t, 401, "UNAUTHENTICATED")
}
