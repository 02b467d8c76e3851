package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/db/dbtest"
	"github.com/agenttrust/service/keyring"
	"github.com/agenttrust/service/live"
	"github.com/agenttrust/service/transaction"
	"github.com/agenttrust/service/webhook/delivery"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// runCmd runs one command line as the binary would, with env as its environment.
func runCmd(t *testing.T, env map[string]string, args ...string) (map[string]any, error) {
	t.Helper()
	var out bytes.Buffer
	err := run(context.Background(), args, func(k string) string { return env[k] }, &out, io.Discard)
	var v map[string]any
	if err == nil {
		if jerr := json.Unmarshal(out.Bytes(), &v); jerr != nil {
			t.Fatalf("%v printed %q: %v", args, out.String(), jerr)
		}
	}
	return v, err
}

func gql(t *testing.T, addr, key, query string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/graphql", strings.NewReader(fmt.Sprintf(`{"query":%q}`, query)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestCommandLineAndServe(t *testing.T) {
	t.Parallel()
	_, url := dbtest.NewWithURL(t)
	addr := freeAddr(t)
	env := map[string]string{"DATABASE_URL": url, "LISTEN_ADDR": addr, "BOOTSTRAP_API_KEY": "boot-key-0123456789", "LOG_LEVEL": "error",
		"ENCRYPTION_KEY": keyring.Generate()}

	if _, err := runCmd(t, env, "migrate"); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	org, err := runCmd(t, env, "org", "create", "--name", "acme")
	if err != nil || !strings.HasPrefix(org["org_id"].(string), "org_") || !strings.HasPrefix(org["key_id"].(string), "key_") {
		t.Fatalf("org create: %v %v", org, err)
	}
	second, err := runCmd(t, env, "apikey", "create", "--org", org["org_id"].(string))
	if err != nil || second["api_key"] == org["api_key"] {
		t.Fatalf("apikey create: %v %v", second, err)
	}
	if _, err := runCmd(t, env, "apikey", "create", "--org", "org_nope"); err == nil {
		t.Fatal("apikey create for an unknown org succeeded")
	}

	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- run(ctx, nil, func(k string) string { return env[k] }, io.Discard, io.Discard) }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err == nil && resp.StatusCode == http.StatusOK {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server never became ready: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, key := range []string{org["api_key"].(string), second["api_key"].(string), "boot-key-0123456789"} {
		if code, body := gql(t, addr, key, `{ agents { totalCount } }`); code != http.StatusOK || !strings.Contains(body, `"totalCount":0`) {
			t.Fatalf("key %s…: %d %s", key[:8], code, body)
		}
	}
	if _, err := runCmd(t, env, "apikey", "revoke", "--key", second["key_id"].(string)); err != nil {
		t.Fatalf("apikey revoke: %v", err)
	}
	// The serving process hears of the revocation within auth.RevocationBound.
	for revoked := time.Now(); ; {
		code, body := gql(t, addr, second["api_key"].(string), `{ agents { totalCount } }`)
		if code == http.StatusUnauthorized && strings.Contains(body, "UNAUTHENTICATED") {
			break
		}
		if code != http.StatusOK || time.Since(revoked) > auth.RevocationBound {
			t.Fatalf("revoked key: %d %s", code, body)
		}
	}
	// apikey list: both keys, newest first, used and revoked, never a key.
	var listed bytes.Buffer
	if err := run(context.Background(), []string{"apikey", "list", "--org", org["org_id"].(string)},
		func(k string) string { return env[k] }, &listed, io.Discard); err != nil {
		t.Fatalf("apikey list: %v", err)
	}
	if strings.Contains(listed.String(), "att_sk_") {
		t.Fatalf("apikey list shows a key: %s", listed.String())
	}
	var list struct {
		OrgID string `json:"org_id"`
		Keys  []struct {
			KeyID      string  `json:"key_id"`
			CreatedAt  string  `json:"created_at"`
			LastUsedAt *string `json:"last_used_at"`
			RevokedAt  *string `json:"revoked_at"`
		} `json:"keys"`
	}
	if err := json.Unmarshal(listed.Bytes(), &list); err != nil || len(list.Keys) != 2 || list.OrgID != org["org_id"] {
		t.Fatalf("apikey list: %s (%v)", listed.String(), err)
	}
	newest, first := list.Keys[0], list.Keys[1]
	if newest.KeyID != second["key_id"] || first.KeyID != org["key_id"] || newest.CreatedAt == "" ||
		newest.LastUsedAt == nil || first.LastUsedAt == nil || newest.RevokedAt == nil || first.RevokedAt != nil {
		t.Fatalf("apikey list: %s", listed.String())
	}
	if _, err := time.Parse(time.RFC3339, *first.LastUsedAt); err != nil {
		t.Fatalf("last_used_at %q: %v", *first.LastUsedAt, err)
	}
	cancel() // what SIGTERM does
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("serve returned %v", err)
		}
	case <-time.After(35 * time.Second):
		t.Fatal("serve did not shut down")
	}
	// Start-up with the bootstrap key again is idempotent: one organization.
	if _, err := runCmd(t, env, "migrate"); err != nil {
		t.Fatal(err)
	}
	conn, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var orgs int
	if err := conn.QueryRow(`SELECT count(*) FROM orgs WHERE name = 'bootstrap'`).Scan(&orgs); err != nil || orgs != 1 {
		t.Fatalf("bootstrap organizations after two start-ups: %d (%v)", orgs, err)
	}
}

func TestConfigValidation(t *testing.T) {
	t.Parallel()
	env := map[string]string{"RATE_LIMIT_RPS": "fast", "LOG_FORMAT": "xml", "RATE_LIMIT_BURST": "0", "ENCRYPTION_KEY": "c2hvcnQ=",
		"WEBHOOK_ALLOW_PRIVATE_NETWORKS": "maybe", "WEBHOOK_CA_FILE": "/nonexistent.pem", "WEBHOOK_RETRY_SCHEDULE": "5s,soon",
		"WEBHOOK_DISABLE_AFTER": "0", "WEBHOOK_RETENTION": "forever", "WEBHOOK_ORG_CONCURRENCY": "101",
		"BOOTSTRAP_API_KEY": "  dev-key\n", "DATABASE_MAX_CONNS": "0", "MAX_API_KEYS_PER_ORG": "0", "TRUSTED_PROXIES": "10.0.0.0/8,proxy.local",
		"LIVE_UNAUTHENTICATED_PER_ADDRESS": "0", "LIVE_CONNECTIONS_PER_ORG": "many", "LIVE_SUBSCRIPTIONS_PER_ORG": "-1",
		"EXPORT_MAX_BYTES": "lots", "LIVE_REPLAY_MAX_EVENTS": "0", "APPROVAL_MAX_PENDING": "0",
		"DATABASE_CONNS_PER_ORG": "33", "SIMULATION_MAX_TRANSACTIONS": "1000001"}
	err := run(context.Background(), []string{"migrate"}, func(k string) string { return env[k] }, io.Discard, io.Discard)
	for _, want := range []string{"RATE_LIMIT_RPS", "LOG_FORMAT", "RATE_LIMIT_BURST", "ENCRYPTION_KEY", "WEBHOOK_ALLOW_PRIVATE_NETWORKS",
		"WEBHOOK_CA_FILE", "WEBHOOK_RETRY_SCHEDULE", "WEBHOOK_DISABLE_AFTER", "WEBHOOK_RETENTION", "WEBHOOK_ORG_CONCURRENCY", "BOOTSTRAP_API_KEY", "DATABASE_MAX_CONNS",
		"MAX_API_KEYS_PER_ORG", "TRUSTED_PROXIES", "LIVE_UNAUTHENTICATED_PER_ADDRESS", "LIVE_CONNECTIONS_PER_ORG", "LIVE_SUBSCRIPTIONS_PER_ORG",
		"EXPORT_MAX_BYTES", "LIVE_REPLAY_MAX_EVENTS", "APPROVAL_MAX_PENDING", "DATABASE_CONNS_PER_ORG", "SIMULATION_MAX_TRANSACTIONS"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not name %s", err, want)
		}
	}
	// Surrounding whitespace is trimmed; a key of 16 plain characters is fine.
	c := Config{BootstrapAPIKey: " dev-key-0123456789\n", LogFormat: "text", LogLevel: "info", ListenAddr: ":8080"}
	if err := c.Validate(); err != nil || c.BootstrapAPIKey != "dev-key-0123456789" {
		t.Errorf("trimmed bootstrap key: %q, %v", c.BootstrapAPIKey, err)
	}
	// The pool's size: the default when unset, else 1 to db.MaxConnsLimit.
	if c.DatabaseMaxConns != db.DefaultMaxConns {
		t.Errorf("DATABASE_MAX_CONNS unset: %d, want %d", c.DatabaseMaxConns, db.DefaultMaxConns)
	}
	for v, ok := range map[string]bool{"1": true, "64": true, "1000": true, "0": false, "1001": false, "-3": false, "many": false} {
		c.databaseMaxConns = v
		if err := c.Validate(); (err == nil) != ok || ok && fmt.Sprint(c.DatabaseMaxConns) != v {
			t.Errorf("DATABASE_MAX_CONNS=%s: %d, %v", v, c.DatabaseMaxConns, err)
		}
	}
	c.databaseMaxConns = ""
	// An organization's unrevoked keys: 100 when unset, else any count from 1.
	if c.MaxAPIKeysPerOrg != auth.DefaultMaxKeysPerOrg {
		t.Errorf("MAX_API_KEYS_PER_ORG unset: %d, want %d", c.MaxAPIKeysPerOrg, auth.DefaultMaxKeysPerOrg)
	}
	for v, ok := range map[string]bool{"1": true, "100": true, "5000": true, "0": false, "-1": false, "all": false} {
		c.maxAPIKeysPerOrg = v
		if err := c.Validate(); (err == nil) != ok || ok && fmt.Sprint(c.MaxAPIKeysPerOrg) != v {
			t.Errorf("MAX_API_KEYS_PER_ORG=%s: %d, %v", v, c.MaxAPIKeysPerOrg, err)
		}
	}
	c.maxAPIKeysPerOrg = ""
	// One organization's share of the pool: a quarter of it when unset,
	// else 1 to all of it.
	if err := c.Validate(); err != nil || c.DatabaseConnsPerOrg != db.DefaultConnsPerOrg(db.DefaultMaxConns) {
		t.Errorf("DATABASE_CONNS_PER_ORG unset: %d, want %d", c.DatabaseConnsPerOrg, db.DefaultConnsPerOrg(db.DefaultMaxConns))
	}
	for v, ok := range map[string]bool{"1": true, fmt.Sprint(db.DefaultMaxConns): true, fmt.Sprint(db.DefaultMaxConns + 1): false, "0": false, "some": false} {
		c.databaseConnsPerOrg = v
		if err := c.Validate(); (err == nil) != ok || ok && fmt.Sprint(c.DatabaseConnsPerOrg) != v {
			t.Errorf("DATABASE_CONNS_PER_ORG=%s: %d, %v", v, c.DatabaseConnsPerOrg, err)
		}
	}
	c.databaseConnsPerOrg = ""
	// One organization's share of a replica's deliveries: a quarter of
	// the workers when unset, else 1 to all of them.
	if c.Webhooks.OrgConcurrency != delivery.DefaultPerOrganization {
		t.Errorf("WEBHOOK_ORG_CONCURRENCY unset: %d, want %d", c.Webhooks.OrgConcurrency, delivery.DefaultPerOrganization)
	}
	for v, ok := range map[string]bool{"1": true, "25": true, "100": true, "0": false, "101": false, "-1": false, "half": false} {
		c.webhookOrgConcurrency = v
		if err := c.Validate(); (err == nil) != ok || ok && fmt.Sprint(c.Webhooks.OrgConcurrency) != v {
			t.Errorf("WEBHOOK_ORG_CONCURRENCY=%s: %d, %v", v, c.Webhooks.OrgConcurrency, err)
		}
	}
	c.webhookOrgConcurrency = ""
	// Trusted proxies: CIDRs or single addresses, normalised.
	c.trustedProxies = " 10.1.2.3/8, 192.0.2.7 ,2001:db8::/32"
	if err := c.Validate(); err != nil || fmt.Sprint(c.HTTP.TrustedProxies) != "[10.0.0.0/8 192.0.2.7/32 2001:db8::/32]" {
		t.Errorf("TRUSTED_PROXIES: %v, %v", c.HTTP.TrustedProxies, err)
	}
	c.trustedProxies = ""
	// The read bounds: their defaults when unset.
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.HTTP.ExportMaxBytes != transaction.DefaultExportMaxBytes || c.LiveReplayMaxEvents != live.DefaultMaxReplay {
		t.Errorf("read bounds unset: %d, %d", c.HTTP.ExportMaxBytes, c.LiveReplayMaxEvents)
	}
	c.exportMaxBytes, c.liveReplayMaxEvents = "65536", "50"
	if err := c.Validate(); err != nil || c.HTTP.ExportMaxBytes != 65536 || c.LiveReplayMaxEvents != 50 {
		t.Errorf("read bounds set: %d, %d, %v", c.HTTP.ExportMaxBytes, c.LiveReplayMaxEvents, err)
	}
	if err := run(context.Background(), []string{"frobnicate"}, func(string) string { return "" }, io.Discard, io.Discard); err == nil {
		t.Error("unknown command accepted")
	}
}
