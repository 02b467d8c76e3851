package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/auth"

	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/internal/testkit"
)

// tryKey sends a query with key from the peer remote (host:port), with
// X-Forwarded-For hops if any, and returns the HTTP status.
func tryKey(b *testkit.Kit, key, remote string, forwarded ...string) int {
	b.T.Helper()
	req := testkit.Request(http.MethodPost, "/graphql", strings.NewReader(`{"query":"{ agents { totalCount } }"}`),
		"Content-Type", "application/json", "Authorization", "Bearer "+key)
	req.RemoteAddr = remote
	for _, f := range forwarded {
		req.Header.Add("X-Forwarded-For", f)
	}
	return testkit.Serve(b.T, b.Handler, req).Status
}

// badKey is a well-formed key nobody holds.
func badKey(i int) string { return fmt.Sprintf("att_sk_guess%040d", i) }

// failuresBudget is the budget of failed attempts the tests below use: 5,
// refilled far slower than a test runs.
func failuresBudget(c *httpapi.Config) { c.AuthFailureBurst = 5; c.AuthFailuresPerMinute = 0.01 }

// Bad keys from an address spend that address's budget of failed attempts,
// but a valid key from the same address is still served; guesses beyond the
// budget are refused without a database statement.
func TestFailedLoginsDoNotLockOutValidKeys(t *testing.T) {
	t.Parallel()
	b := testkit.New(t, failuresBudget)
	const nat = "198.51.100.7:4000"
	if s := tryKey(b, b.Key, nat); s != http.StatusOK {
		t.Fatalf("valid key: %d", s)
	}
	for i := range 5 {
		if s := tryKey(b, badKey(i), nat); s != http.StatusUnauthorized {
			t.Fatalf("bad key %d within the budget: %d", i, s)
		}
	}
	before := b.DB.Statements()
	for i := 5; i < 25; i++ {
		if s := tryKey(b, badKey(i), nat); s != http.StatusTooManyRequests {
			t.Fatalf("bad key %d beyond the budget: %d", i, s)
		}
	}
	if n := b.DB.Statements() - before; n != 0 {
		t.Fatalf("20 guesses beyond the budget ran %d statements", n)
	}
	for range 3 {
		if s := tryKey(b, b.Key, nat); s != http.StatusOK {
			t.Fatalf("valid key from the address whose budget is spent: %d", s)
		}
	}
	// A key never used before, created now, also by another process.
	_, fresh, err := b.Orgs.CreateKey(context.Background(), b.OrgID)
	must(t, err)
	if s := tryKey(b, fresh, nat); s != http.StatusOK {
		t.Fatalf("a new key from the address whose budget is spent: %d", s)
	}
	other, err := db.Open(context.Background(), b.DBURL)
	must(t, err)
	defer other.Close()
	_, elsewhere, err := db.NewOrgService(other).CreateKey(context.Background(), b.OrgID)
	must(t, err)
	deadline := time.Now().Add(auth.RevocationBound)
	for tryKey(b, elsewhere, nat) != http.StatusOK {
		if time.Now().After(deadline) {
			t.Fatalf("a key created by another process is refused after %v", auth.RevocationBound)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Another address keeps its own budget.
	if s := tryKey(b, badKey(99), "198.51.100.8:4000"); s != http.StatusUnauthorized {
		t.Fatalf("bad key from another address: %d", s)
	}
}

// An IPv6 client rotating through its /64 shares one budget; the next /64
// has its own.
func TestFailedLoginsIPv6GroupedBy64(t *testing.T) {
	t.Parallel()
	b := testkit.New(t, failuresBudget)
	for i := range 5 {
		if s := tryKey(b, badKey(i), fmt.Sprintf("[2001:db8:0:7::%x]:4000", i+1)); s != http.StatusUnauthorized {
			t.Fatalf("bad key %d: %d", i, s)
		}
	}
	if s := tryKey(b, badKey(5), "[2001:db8:0:7:ffff:1:2:3]:4000"); s != http.StatusTooManyRequests {
		t.Fatalf("another address of the same /64: %d, want 429", s)
	}
	if s := tryKey(b, badKey(6), "[2001:db8:0:8::1]:4000"); s != http.StatusUnauthorized {
		t.Fatalf("the next /64: %d, want 401", s)
	}
}

// Behind a trusted proxy, each client's budget is its own: the client is
// the rightmost X-Forwarded-For hop that is not a trusted proxy, and hops a
// client wrote itself never count. An untrusted peer's header is ignored.
func TestFailedLoginsBehindTrustedProxy(t *testing.T) {
	t.Parallel()
	b := testkit.New(t, failuresBudget, func(c *httpapi.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	})
	const proxy = "10.1.2.3:5000"
	for i := range 5 { // the attacker forges a different first hop each time
		if s := tryKey(b, badKey(i), proxy, fmt.Sprintf("203.0.113.%d, 198.51.100.7", i), "10.9.9.9"); s != http.StatusUnauthorized {
			t.Fatalf("bad key %d: %d", i, s)
		}
	}
	if s := tryKey(b, badKey(5), proxy, "198.51.100.7"); s != http.StatusTooManyRequests {
		t.Fatalf("the attacker behind the proxy: %d, want 429", s)
	}
	if s := tryKey(b, badKey(6), proxy, "198.51.100.9"); s != http.StatusUnauthorized {
		t.Fatalf("another client behind the same proxy: %d, want 401", s)
	}
	// Not a trusted proxy: its header is the client's own claim.
	for i := range 5 {
		tryKey(b, badKey(10+i), "192.0.2.50:5000", fmt.Sprintf("198.51.100.%d", 100+i))
	}
	if s := tryKey(b, badKey(20), "192.0.2.50:5000", "198.51.100.200"); s != http.StatusTooManyRequests {
		t.Fatalf("an untrusted peer forging X-Forwarded-For: %d, want 429", s)
	}
}

// An unknown well-formed key costs one statement per window however often
// it is sent, and a key created afterwards, even by another process on the
// same database (the CLI's org create), works at once.
func TestUnknownKeyNegativeCache(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	const remote = "198.51.100.20:4000"
	chosen := "att_sk_chosen_bootstrap_key_0123456789"
	before := b.DB.Statements()
	for range 10 {
		if s := tryKey(b, chosen, remote); s != http.StatusUnauthorized {
			t.Fatalf("unknown key: %d", s)
		}
	}
	if n := b.DB.Statements() - before; n != 1 {
		t.Fatalf("the same unknown key 10 times ran %d statements, want 1", n)
	}
	other, err := db.Open(context.Background(), b.DBURL)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := db.NewOrgService(other).EnsureKey(context.Background(), chosen, "later"); err != nil {
		t.Fatal(err)
	}
	// The other process's notification reaches this one within the bound a
	// revocation has.
	deadline := time.Now().Add(auth.RevocationBound)
	for tryKey(b, chosen, remote) != http.StatusOK {
		if time.Now().After(deadline) {
			t.Fatalf("a key created by another process is refused after %v", auth.RevocationBound)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
