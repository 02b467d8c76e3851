package hostile_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/internal/testkit"
	"github.com/agenttrust/service/live"
	"github.com/agenttrust/service/wire"
)

// world is the service under attack: a running process on its own
// database, the attacker's organization (the kit's) and a victim
// organization with agents, transactions, a dispute and events of its own.
type world struct {
	k  *testkit.Kit
	ts *httptest.Server

	victimKey, revokedKey      string
	a1, a2, v1, v2             testkit.Agent
	victimTx, inboundTx, ownTx string
	victimDispute, victimEvent string
	ownFirstEvent              string
	victimHash                 string // of a persisted query only the victim registered
	victimCursor, ownCursor    string // endCursors of the victim's and the attacker's agents, one a page
}

func setup(t *testing.T) *world {
	t.Helper()
	k := testkit.New(t)
	cfg := httpapi.Config{RateLimitRPS: 100000, RateLimitBurst: 100000, ExportMaxBytes: exportMaxBytes,
		AuthFailureBurst: failureBudget, AuthFailuresPerMinute: 6,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")}}
	srv := wire.NewServer(wire.Options{DB: k.DB, Config: cfg, Logger: testkit.Logger(t), Live: live.Options{MaxReplay: maxReplay}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = srv.Run(ctx); close(done) }()
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); cancel(); <-done })
	k.Handler = srv

	w := &world{k: k, ts: ts}
	victim := k.NewOrgWithKey("victim")
	w.victimKey = victim.Key
	keyID, key, err := k.Orgs.CreateKey(context.Background(), k.OrgID)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Orgs.RevokeKey(context.Background(), keyID); err != nil {
		t.Fatal(err)
	}
	w.revokedKey = key

	w.a1 = k.Register(map[string]any{"name": "attacker-1", "spendingLimit": "1000"})
	w.a2 = k.Register(map[string]any{"name": "attacker-2"})
	w.v1 = k.RegisterAs(victim.Key, map[string]any{"name": "victim-1", "spendingLimit": "1000"})
	w.v2 = k.RegisterAs(victim.Key, map[string]any{"name": "victim-2"})
	w.victimTx = k.MustExecute(victim.Key, testkit.Pay(w.v1, w.v2, "10.00")).ID
	// A counterparty's memo lands in the attacker's export: quotes, which
	// CSV doubles, make it pass the export's byte bound.
	inbound := testkit.Pay(w.v1, w.a1, "5.00")
	inbound["memo"] = strings.Repeat(`"`, exportMaxBytes/2+1)
	w.inboundTx = k.MustExecute(victim.Key, inbound).ID
	w.ownTx = k.MustExecute(k.Key, testkit.Pay(w.a1, w.a2, "1.00")).ID
	var d testkit.Dispute
	k.Report(victim.Key, w.v2.ID, "never delivered", w.victimTx).Into(t, "reportAgent", &d)
	w.victimDispute = d.ID
	evs := k.Events(victim.ID)
	if len(evs) == 0 {
		t.Fatal("victim has no events")
	}
	w.victimEvent = evs[0].ID
	own := k.Events(k.OrgID)
	if len(own) <= maxReplay+1 {
		t.Fatalf("the attacker has %d events: a replay from the first is within the bound", len(own))
	}
	w.ownFirstEvent = own[0].ID
	w.setupLeaks(t)
	return w
}

// diff names the tables whose count or contents changed.
func diff(before, after map[string]string) []string {
	var out []string
	for k, v := range before {
		if after[k] != v {
			out = append(out, k+" "+v+" -> "+after[k])
		}
	}
	slices.Sort(out)
	return out
}

// TestHostileRequests sends every hostile request of the table and checks
// each answer's code, then that no table changed.
func TestHostileRequests(t *testing.T) {
	t.Parallel()
	w := setup(t)
	httpCases := append(append(w.httpCases(), w.fairnessCases()...), w.leakCases()...)
	wsCases := append(w.wsCases(), w.fairnessWSCases()...)
	if n := len(httpCases) + len(wsCases); n < 150 {
		t.Fatalf("the table has %d hostile requests, want at least 150", n)
	}
	before := w.k.Snapshot()
	for _, c := range httpCases {
		t.Run(c.name, func(t *testing.T) { w.runHTTP(t, c) })
	}
	for _, c := range wsCases {
		t.Run("ws/"+c.name, func(t *testing.T) { w.runWS(t, c) })
	}
	// A refused request could still leave work behind that lands a moment
	// later (a queued event, a deferred write): look twice.
	time.Sleep(300 * time.Millisecond)
	if d := diff(before, w.k.Snapshot()); len(d) > 0 {
		t.Fatalf("hostile requests changed the database:\n%s", strings.Join(d, "\n"))
	}
	// The snapshot sees a change as small as one renamed agent.
	if r := w.k.Do(w.k.Key, testkit.UpdateMutation, map[string]any{"id": w.a2.ID, "input": map[string]any{"name": "attacker-2b"}}); len(r.Errors) > 0 {
		t.Fatalf("legitimate update failed: %s", r.Body)
	}
	if len(diff(before, w.k.Snapshot())) == 0 {
		t.Fatal("the snapshot does not see a legitimate update: it cannot prove anything")
	}
	t.Logf("%d HTTP and %d websocket hostile requests refused; %d tables unchanged", len(httpCases), len(wsCases), len(before))
}

// httpCase is one hostile HTTP request and the answer it must get.
type httpCase struct {
	name   string
	method string // default POST
	target string // default /graphql
	auth   string // Authorization header; default the attacker's key; "-" sends none
	ctype  string // default application/json
	body   []byte // default the JSON of query and vars
	query  string
	vars   map[string]any
	code   string // the first error's extensions.code (GraphQL) or error.code (REST)
	status int    // 0: 200 for GraphQL errors other than the ones with a fixed status
	from   string // the client address the trusted proxy forwards; default the peer
	field  string // the first error's first field error names this field
	detail string // and its message, or the field error's, says this
	// noStatements: the refusal runs no SQL statement (a guess past its
	// address's budget costs the database nothing).
	noStatements bool
}

func (w *world) runHTTP(t *testing.T, c httpCase) {
	method, target, ctype := c.method, c.target, c.ctype
	if method == "" {
		method = http.MethodPost
	}
	if target == "" {
		target = "/graphql"
	}
	if ctype == "" {
		ctype = "application/json"
	}
	body := c.body
	if body == nil && c.query != "" {
		var err error
		if body, err = json.Marshal(map[string]any{"query": c.query, "variables": c.vars}); err != nil {
			t.Fatal(err)
		}
	}
	req, err := http.NewRequest(method, w.ts.URL+target, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("Accept", "application/graphql-response+json, application/json")
	switch c.auth {
	case "":
		req.Header.Set("Authorization", "Bearer "+w.k.Key)
	case "-":
	default:
		req.Header.Set("Authorization", c.auth)
	}
	if c.from != "" {
		req.Header.Set("X-Forwarded-For", c.from)
	}
	statements := w.k.DB.Statements()
	res, err := w.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if n := w.k.DB.Statements() - statements; c.noStatements && n != 0 {
		t.Errorf("the refusal ran %d SQL statements, want none", n)
	}
	if c.status != 0 && res.StatusCode != c.status {
		t.Errorf("HTTP %d, want %d: %.300s", res.StatusCode, c.status, raw)
	}
	if res.StatusCode >= 500 {
		t.Errorf("HTTP %d: a hostile request must not look like a server fault: %.300s", res.StatusCode, raw)
	}
	var ans struct {
		Data   map[string]json.RawMessage `json:"data"`
		Errors []struct {
			Message    string `json:"message"`
			Extensions struct {
				Code        string       `json:"code"`
				FieldErrors []fieldError `json:"fieldErrors"`
			} `json:"extensions"`
		} `json:"errors"`
		Error *struct {
			Code        string       `json:"code"`
			Message     string       `json:"message"`
			FieldErrors []fieldError `json:"field_errors"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &ans); err != nil {
		t.Fatalf("HTTP %d answer is not JSON (%v): %.300s", res.StatusCode, err, raw)
	}
	var code, msg string
	var fields []fieldError
	switch {
	case len(ans.Errors) > 0:
		code, msg, fields = ans.Errors[0].Extensions.Code, ans.Errors[0].Message, ans.Errors[0].Extensions.FieldErrors
	case ans.Error != nil:
		code, msg, fields = ans.Error.Code, ans.Error.Message, ans.Error.FieldErrors
	}
	if code != c.code || msg == "" {
		t.Errorf("code %q (message %q), want %q; HTTP %d: %.400s", code, msg, c.code, res.StatusCode, raw)
	}
	if c.field != "" && (len(fields) == 0 || fields[0].Field != c.field) {
		t.Errorf("field errors %+v, want the first on %q: %.400s", fields, c.field, raw)
	}
	if c.detail != "" {
		said := msg
		if len(fields) > 0 {
			said += "\n" + fields[0].Message
		}
		if !strings.Contains(said, c.detail) {
			t.Errorf("the refusal does not say %q: %.400s", c.detail, raw)
		}
	}
	for k, v := range ans.Data {
		if string(v) != "null" {
			t.Errorf("refused request returned data %s: %.200s", k, v)
		}
	}
	for _, leak := range internals {
		if strings.Contains(strings.ToLower(string(raw)), leak) {
			t.Errorf("answer leaks internals (%q): %.300s", leak, raw)
		}
	}
}

// fieldError is one entry of an error's fieldErrors.
type fieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// internals are what no refusal may show: SQL errors, stacks, and this
// server's network (its resolver, dial and TLS errors), which would make
// the service a probe of hosts and ports.
var internals = []string{"sqlstate", "goroutine ", "dial tcp", "lookup ", "x509", "connection refused", "i/o timeout", "no such host", "tls: "}
