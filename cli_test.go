package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/agenttrust/service/db/dbtest"
	"github.com/agenttrust/service/internal/testkit"
	"github.com/agenttrust/service/keyring"
)

// Every command explains itself: its own name, flags and an example, and no
// other command's flags.
func TestHelpForEveryCommand(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args    []string
		want    []string
		notWant []string
	}{
		{[]string{"--help"}, []string{"agenttrust [global options] [command", "serve", "migrate", "org", "apikey", "trust",
			"--database-url", "$DATABASE_URL", "--listen", "$LISTEN_ADDR", "Exit codes", "Examples:"}, []string{"--fix", "--org", "--key"}},
		{[]string{"serve", "--help"}, []string{"agenttrust serve", "--listen", "--rate-limit-rps", "$RATE_LIMIT_BURST", "--ws-allowed-origins", "$WS_ALLOWED_ORIGINS", "--database-url", "Examples:"}, []string{"--fix", "--org"}},
		{[]string{"migrate", "--help"}, []string{"agenttrust migrate", "applied", "--database-url", "Example:"}, []string{"--listen", "--name"}},
		{[]string{"org", "--help"}, []string{"agenttrust org", "create"}, []string{"--fix", "--key"}},
		{[]string{"org", "create", "--help"}, []string{"agenttrust org create", "--name NAME", "api_key", "Example:", "org create --name acme", "same value as serve"}, []string{"--fix", "--key", "--org", "--listen"}},
		{[]string{"webhook", "receive", "--help"}, []string{"agenttrust webhook receive", "--api-key KEY", "$AGENTTRUST_API_KEY", "WEBHOOK_CA_FILE", "Example:"}, []string{"--fix", "--org", "--listen ADDRESS  HTTP"}},
		{[]string{"apikey", "--help"}, []string{"agenttrust apikey", "create", "revoke", "list"}, []string{"--fix"}},
		{[]string{"apikey", "create", "--help"}, []string{"agenttrust apikey create", "--org ID", "--name NAME", "--role ROLE", "--agent ID", "Examples:"}, []string{"--fix", "--key"}},
		{[]string{"apikey", "revoke", "--help"}, []string{"agenttrust apikey revoke", "--key ID", "Example:"}, []string{"--fix", "--name", "--org"}},
		{[]string{"apikey", "list", "--help"}, []string{"agenttrust apikey list", "--org ID", "last_used_at", "never a key", "Example:"}, []string{"--fix", "--name", "--key"}},
		{[]string{"trust", "--help"}, []string{"agenttrust trust", "rebuild"}, []string{"--name"}},
		{[]string{"trust", "rebuild", "--help"}, []string{"agenttrust trust rebuild", "--fix", "Exits 3", "Examples:"}, []string{"--name", "--org", "--key"}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Parallel()
			var out, errOut bytes.Buffer
			if err := run(context.Background(), c.args, func(string) string { return "" }, &out, &errOut); err != nil {
				t.Fatalf("%v: %v", c.args, err)
			}
			for _, w := range c.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("help lacks %q:\n%s", w, out.String())
				}
			}
			for _, w := range c.notWant {
				if strings.Contains(out.String(), w) {
					t.Errorf("help mentions another command's %q:\n%s", w, out.String())
				}
			}
		})
	}
}

// Mistakes on the command line exit 2 with a message that says what to do,
// before any database is opened.
func TestCommandLineMistakes(t *testing.T) {
	t.Parallel()
	env := map[string]string{"DATABASE_URL": "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=1"}
	caFile := filepath.Join(t.TempDir(), "receiver-ca.pem")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate": the commands are serve, migrate, org, apikey, trust and webhook`},
		{[]string{"webhook", "receive"}, "webhook receive: --api-key is required"},
		{[]string{"webhook", "receive", "--api-key", "k", "--ca-file", caFile, "--listen", "0.0.0.0:0"}, "webhook receive: --listen must be a loopback address"},
		{[]string{"org"}, "org: missing command"},
		{[]string{"org", "delete"}, `org: unknown command "delete"`},
		{[]string{"org", "create"}, "--name is required, e.g. `org create --name acme`"},
		{[]string{"apikey", "create"}, "apikey create: --org is required"},
		{[]string{"apikey", "revoke"}, "apikey revoke: --key is required"},
		{[]string{"apikey", "list"}, "apikey list: --org is required"},
		{[]string{"apikey", "create", "--owner", "x"}, "apikey create: flag provided but not defined: -owner; see `agenttrust apikey create --help`"},
		{[]string{"serve", "now"}, `serve: unexpected argument "now"`},
		{[]string{"--listen"}, "flag needs an argument"},
		{[]string{"migrate", "--log-format", "xml"}, "LOG_FORMAT (--log-format) must be text or json"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Parallel()
			err := run(context.Background(), c.args, func(k string) string { return env[k] }, io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
			if code := exitCode(err); code != exitUsage {
				t.Fatalf("exit code %d, want %d", code, exitUsage)
			}
		})
	}
}

// A switch takes no value: --webhook-allow-private-networks leaves the flag
// after it alone, and given explicitly it wins over its variable.
func TestBooleanFlagsTakeNoValue(t *testing.T) {
	t.Parallel()
	env := map[string]string{"WEBHOOK_ALLOW_PRIVATE_NETWORKS": "maybe"}
	getenv := func(k string) string { return env[k] }
	err := run(context.Background(), []string{"serve", "--webhook-allow-private-networks", "--log-format", "xml"}, getenv, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "LOG_FORMAT (--log-format) must be text or json") || strings.Contains(err.Error(), "WEBHOOK_ALLOW_PRIVATE_NETWORKS") {
		t.Fatalf("the switch before --log-format: %v", err)
	}
	err = run(context.Background(), []string{"serve", "--log-format", "xml"}, getenv, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "WEBHOOK_ALLOW_PRIVATE_NETWORKS (--webhook-allow-private-networks) must be true or false") ||
		!strings.Contains(err.Error(), "LOG_FORMAT") {
		t.Fatalf("a bad variable is reported with the other bad settings: %v", err)
	}
	var cfg Config
	cfg.webhookAllowPrivate, cfg.LogFormat, cfg.LogLevel, cfg.ListenAddr = "false", "text", "info", ":0"
	cmd := newCommand(&cfg, "agenttrust", getenv, io.Discard, io.Discard)
	cmd.Action = func(context.Context, *cli.Command) error { return cfg.Validate() }
	if err := cmd.Run(context.Background(), []string{"agenttrust", "--webhook-allow-private-networks"}); err != nil || !cfg.Webhooks.AllowPrivateNetworks {
		t.Fatalf("the switch did not switch: %v, %+v", err, cfg.Webhooks)
	}
}

// The program names itself as it was called, in help and in errors.
func TestProgramNamesItselfByItsBinary(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := runAs(context.Background(), "service", []string{"org", "create", "--help"}, func(string) string { return "" }, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "service org create [options]") || !strings.Contains(out.String(), "  service org create --name acme") || strings.Contains(out.String(), "agenttrust") {
		t.Fatalf("help of a binary called service:\n%s", out.String())
	}
	err := runAs(context.Background(), "service", []string{"apikey", "create", "--owner", "x"}, func(string) string { return "" }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "see `service apikey create --help`") {
		t.Fatalf("error of a binary called service: %v", err)
	}
}

func TestExitCodes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err  error
		want int
	}{
		{nil, 0},
		{errors.New("dial tcp: connection refused"), exitFailure},
		{usagef("org create: --name is required"), exitUsage},
		{driftError{agents: 2}, exitDrift},
	} {
		if got := exitCode(c.err); got != c.want {
			t.Errorf("exitCode(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}

// syncBuffer is a log destination the test may read while the server writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serveOnce starts serve with env, waits until it is ready, stops it and
// returns what it logged.
func serveOnce(t *testing.T, env map[string]string) string {
	t.Helper()
	var logs syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- run(ctx, []string{"serve"}, func(k string) string { return env[k] }, io.Discard, &logs)
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get("http://" + env["LISTEN_ADDR"] + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("server never became ready: %v\n%s", err, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	if err := <-served; err != nil {
		t.Fatalf("serve: %v", err)
	}
	return logs.String()
}

// A first start with no organization says in one log line how to make one;
// once one exists, or BOOTSTRAP_API_KEY makes it, the line is gone.
func TestFirstRunHint(t *testing.T) {
	t.Parallel()
	_, url := dbtest.NewWithURL(t)
	env := map[string]string{"DATABASE_URL": url, "LISTEN_ADDR": freeAddr(t), "ENCRYPTION_KEY": keyring.Generate()}
	const hint = "no organization yet: create one and its API key with `go run . org create --name NAME`"
	logs := serveOnce(t, env)
	var lines []string
	for _, l := range strings.Split(logs, "\n") {
		if strings.Contains(l, "no organization yet") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 || !strings.Contains(lines[0], hint) || !strings.Contains(lines[0], "BOOTSTRAP_API_KEY") {
		t.Fatalf("first start logged %d hint lines, want 1 with %q:\n%s", len(lines), hint, logs)
	}

	env["LISTEN_ADDR"] = freeAddr(t)
	env["BOOTSTRAP_API_KEY"] = "boot-key-first-run-0123"
	if logs := serveOnce(t, env); strings.Contains(logs, "no organization yet") || !strings.Contains(logs, "bootstrap API key ready") {
		t.Fatalf("start with BOOTSTRAP_API_KEY:\n%s", logs)
	}
	delete(env, "BOOTSTRAP_API_KEY")
	env["LISTEN_ADDR"] = freeAddr(t)
	if logs := serveOnce(t, env); strings.Contains(logs, "no organization yet") {
		t.Fatalf("start with an organization still hints:\n%s", logs)
	}
}

// trust rebuild reports drift with exit code 3, and --fix repairs it.
func TestTrustRebuildExitCodes(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	a := k.Register(nil)
	k.Exec(`UPDATE trust_counters SET failures = failures + 3 WHERE agent_id = $1`, a.ID)
	env := map[string]string{"DATABASE_URL": k.DBURL, "ENCRYPTION_KEY": keyring.Generate(), "LOG_LEVEL": "error"}
	rebuild := func(args ...string) (map[string]any, error) {
		var out bytes.Buffer
		err := run(context.Background(), append([]string{"trust", "rebuild"}, args...), func(k string) string { return env[k] }, &out, io.Discard)
		var v map[string]any
		if jerr := json.Unmarshal(out.Bytes(), &v); jerr != nil {
			t.Fatalf("trust rebuild %v printed %q: %v", args, out.String(), jerr)
		}
		return v, err
	}
	if v, err := rebuild(); exitCode(err) != exitDrift || v["drifted"] != 1.0 || v["fixed"] != false ||
		!strings.Contains(fmt.Sprint(err), "trust rebuild --fix") {
		t.Fatalf("drift without --fix: %v, exit %d (%v)", v, exitCode(err), err)
	}
	if v, err := rebuild("--fix"); err != nil || v["drifted"] != 1.0 || v["fixed"] != true {
		t.Fatalf("--fix: %v (%v)", v, err)
	}
	if v, err := rebuild(); err != nil || v["drifted"] != 0.0 {
		t.Fatalf("after --fix: %v (%v)", v, err)
	}
}

// apikey create gives a key its name, role and agents; apikey list shows
// them; a bad role is a usage error, an agent of no organization's a failure.
func TestAPIKeyRoles(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	a, b := k.Register(nil), k.Register(nil)
	env := map[string]string{"DATABASE_URL": k.DBURL, "ENCRYPTION_KEY": keyring.Generate(), "LOG_LEVEL": "error"}
	cmd := func(args ...string) (map[string]any, error) {
		var out bytes.Buffer
		err := run(context.Background(), append([]string{"apikey"}, args...), func(k string) string { return env[k] }, &out, io.Discard)
		var v map[string]any
		_ = json.Unmarshal(out.Bytes(), &v)
		return v, err
	}
	created, err := cmd("create", "--org", k.OrgID, "--name", "bot", "--role", "agent", "--agent", a.ID, "--agent", b.ID)
	if err != nil || created["role"] != "agent" || created["name"] != "bot" || fmt.Sprint(created["agent_ids"]) != fmt.Sprint([]any{a.ID, b.ID}) {
		t.Fatalf("create: %v (%v)", created, err)
	}
	var me testkit.APIKey
	k.Do(created["api_key"].(string), testkit.WhoamiQuery, nil).Into(t, "whoami", &me)
	if me.ID != created["key_id"] || me.Role != "agent" {
		t.Fatalf("whoami %+v", me)
	}
	listed, err := cmd("list", "--org", k.OrgID)
	keys, _ := listed["keys"].([]any)
	if err != nil || len(keys) != 2 || keys[0].(map[string]any)["role"] != "agent" || keys[1].(map[string]any)["role"] != "admin" {
		t.Fatalf("list: %v (%v)", listed, err)
	}
	if _, err := cmd("create", "--org", k.OrgID, "--role", "owner"); exitCode(err) != exitUsage {
		t.Fatalf("--role owner: exit %d (%v)", exitCode(err), err)
	}
	if _, err := cmd("create", "--org", k.OrgID, "--role", "agent", "--agent", "agent_none"); err == nil || !strings.Contains(err.Error(), "input.agentIds") {
		t.Fatalf("an unknown agent: %v", err)
	}
	// The organization holds two keys: at MAX_API_KEYS_PER_ORG=2 a third is
	// refused, naming the bound, and none is made.
	env["MAX_API_KEYS_PER_ORG"] = "2"
	if _, err := cmd("create", "--org", k.OrgID); err == nil || !strings.Contains(err.Error(), "MAX_API_KEYS_PER_ORG (2)") {
		t.Fatalf("a key past the bound: %v", err)
	}
	if listed, err := cmd("list", "--org", k.OrgID); err != nil || len(listed["keys"].([]any)) != 2 {
		t.Fatalf("after a refused create: %v (%v)", listed, err)
	}
}

// Transactions that never moved money (pending, declined) leave trust as
// it is, so a rebuild from the transactions finds no drift.
func TestTrustRebuildIgnoresUnsettled(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	_, shopKey := k.NewOrg("shop")
	shop := k.RegisterAs(shopKey, nil)
	a := k.Register(map[string]any{"spendingLimit": "1000"})
	k.SetPolicy(k.Key, a.ID, map[string]any{"approval": map[string]any{"above": "500", "expiresAfterSeconds": 3600}})
	k.MustExecute(k.Key, testkit.Pay(a, shop, "600"))
	declined := k.MustExecute(k.Key, testkit.Pay(a, shop, "700"))
	k.Decline(k.Key, declined.ID, "no").Into(t, "declineTransaction", new(testkit.Transaction))
	approved := k.MustExecute(k.Key, testkit.Pay(a, shop, "800"))
	k.Approve(k.Key, approved.ID).Into(t, "approveTransaction", new(testkit.Transaction))
	env := map[string]string{"DATABASE_URL": k.DBURL, "ENCRYPTION_KEY": keyring.Generate(), "LOG_LEVEL": "error"}
	var out bytes.Buffer
	err := run(context.Background(), []string{"trust", "rebuild"}, func(k string) string { return env[k] }, &out, io.Discard)
	var v map[string]any
	if jerr := json.Unmarshal(out.Bytes(), &v); err != nil || jerr != nil || v["drifted"] != 0.0 {
		t.Fatalf("trust rebuild: %s (%v)", out.String(), err)
	}
}
