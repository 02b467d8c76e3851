package httpapi_test

import (
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/internal/testkit"
	"github.com/agenttrust/service/transaction"
)

// quoteMemo is a memo that inflates an export: CSV doubles each quote, and
// JSON (and GraphQL's string) escapes each one.
var quoteMemo = strings.Repeat(`"`, 1000)

// exportSeed is an organization whose visible history is sent and received
// transactions (a counterparty's memos land in its export), beside
// transactions of another organization it must not see.
type exportSeed struct {
	kit  *testkit.Kit
	conn *sql.DB
	base time.Time
}

// seedExport stores n visible transactions, three per created_at (so pages
// of the export split rows with equal times), half of them received from
// another organization with memo, and n/10 the caller cannot see.
func seedExport(t *testing.T, b *testkit.Kit, n int, memo string) exportSeed {
	t.Helper()
	mine := b.Register(nil)
	other := b.NewOrgWithKey("globex")
	theirs := b.RegisterAs(other.Key, map[string]any{"name": "theirs"})
	third := b.RegisterAs(other.Key, map[string]any{"name": "third"})
	conn := b.SQL()
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	_, err := conn.Exec(`INSERT INTO transactions (id, from_agent, to_agent, from_org, to_org, action, amount, currency, memo, status, created_at)
		SELECT 'tx_exp' || lpad(g::text, 7, '0'),
			CASE WHEN g % 2 = 0 THEN $1 ELSE $2 END, CASE WHEN g % 2 = 0 THEN $2 ELSE $1 END,
			CASE WHEN g % 2 = 0 THEN $3 ELSE $4 END, CASE WHEN g % 2 = 0 THEN $4 ELSE $3 END,
			'purchase', 1.5, 'USD', CASE WHEN g % 7 = 0 THEN '=1+1' ELSE $5 END, 'completed',
			$6::timestamptz + (g / 3) * interval '1 second'
		FROM generate_series(0, $7 - 1) g`, mine.ID, theirs.ID, b.OrgID, other.ID, memo, base, n)
	if err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(`INSERT INTO transactions (id, from_agent, to_agent, from_org, to_org, action, amount, currency, memo, status, created_at)
		SELECT 'tx_hidden' || g, $1, $2, $3, $3, 'purchase', 1, 'USD', 'not yours', 'completed', $4::timestamptz + g * interval '1 second'
		FROM generate_series(1, $5) g`, theirs.ID, third.ID, other.ID, base, n/10)
	if err != nil {
		t.Fatal(err)
	}
	return exportSeed{kit: b, conn: conn, base: base}
}

// ids are the visible transactions' ids in export order, within [since, until).
func (s exportSeed) ids(t *testing.T, since, until time.Time) []string {
	t.Helper()
	rows, err := s.conn.Query(`SELECT id FROM transactions WHERE (from_org = $1 OR to_org = $1) AND created_at >= $2 AND created_at < $3
		ORDER BY created_at, id`, s.kit.OrgID, since, until)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	return out
}

// getExport fetches GET /transactions/export with query as key.
func getExport(t *testing.T, ts *httptest.Server, key string, query url.Values) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/transactions/export?"+query.Encode(), nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read export: %v", err)
	}
	return resp, body
}

// The REST export streams every visible row exactly once, in order, as CSV
// that parses and as a JSON array, memos unchanged (a formula neutralised in
// CSV), whatever the memos hold; exportTransactions refuses the same range,
// past its byte bound, on until, and answers a narrow one.
func TestExportStream(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	const n = 3000 // about 6.5 MB of CSV: past the GraphQL field's 2 MiB
	s := seedExport(t, b, n, quoteMemo)
	ts := httptest.NewServer(b.Handler)
	defer ts.Close()
	all := s.ids(t, s.base, s.base.Add(time.Hour))
	if len(all) != n {
		t.Fatalf("seeded %d visible transactions, want %d", len(all), n)
	}

	resp, body := getExport(t, ts, b.Key, url.Values{"format": {"csv"}})
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/csv; charset=utf-8" {
		t.Fatalf("csv export: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	recs, err := csv.NewReader(strings.NewReader(string(body))).ReadAll()
	if err != nil {
		t.Fatalf("csv export does not parse: %v", err)
	}
	if !slices.Equal(recs[0], transaction.CSVHeader) {
		t.Fatalf("header %q", recs[0])
	}
	var got []string
	for i, r := range recs[1:] {
		got = append(got, r[0])
		want := quoteMemo
		if g, _ := strconv.Atoi(strings.TrimPrefix(r[0], "tx_exp")); g%7 == 0 {
			want = "'=1+1"
		}
		if r[6] != want || r[4] != "1.5" {
			t.Fatalf("row %d (%s): memo of %d bytes, amount %s", i, r[0], len(r[6]), r[4])
		}
	}
	if !slices.Equal(got, all) {
		t.Fatalf("csv export: %d rows, want every one of %d once, in order", len(got), len(all))
	}

	since, until := s.base.Add(100*time.Second), s.base.Add(700*time.Second)
	resp, body = getExport(t, ts, b.Key, url.Values{"format": {"json"}, "since": {since.Format(time.RFC3339)}, "until": {until.Format(time.RFC3339)}})
	var rows []struct {
		ID   string
		Memo string
	}
	if err := json.Unmarshal(body, &rows); err != nil || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("json export: %v %s", err, resp.Header.Get("Content-Type"))
	}
	got = got[:0]
	for _, r := range rows {
		got = append(got, r.ID)
	}
	if want := s.ids(t, since, until); !slices.Equal(got, want) || len(want) != 1800 {
		t.Fatalf("json export of a range: %d rows, want %d", len(got), len(want))
	}

	r := b.Do(b.Key, `{ exportTransactions(format: csv) { count } }`, nil)
	if f := r.Fields(t); len(f) != 1 || f[0] != "until" || !strings.Contains(r.Errors[0].Message, "2097152") {
		t.Fatalf("exportTransactions past its bound: %+v", r.Errors)
	}
	var small struct {
		Count   int
		Content string
	}
	b.Query(`query($u: Time) { exportTransactions(format: csv, until: $u) { count content } }`,
		map[string]any{"u": s.base.Add(10 * time.Second).Format(time.RFC3339)}).Into(t, "exportTransactions", &small)
	if small.Count != 30 || !strings.Contains(small.Content, `""""`) {
		t.Fatalf("a small range: %d rows", small.Count)
	}
}

// The REST export refuses bad parameters before streaming, with the REST
// error body naming each, and a request without a key.
func TestExportStreamRefusals(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	ts := httptest.NewServer(b.Handler)
	defer ts.Close()
	for name, c := range map[string]struct {
		key    string
		q      url.Values
		status int
		fields []string
	}{
		"no key":      {"", url.Values{"format": {"csv"}}, http.StatusUnauthorized, nil},
		"no format":   {b.Key, url.Values{}, http.StatusUnprocessableEntity, []string{"format"}},
		"xml":         {b.Key, url.Values{"format": {"xml"}, "since": {"yesterday"}}, http.StatusUnprocessableEntity, []string{"format", "since"}},
		"empty range": {b.Key, url.Values{"format": {"csv"}, "since": {"2026-11-02T00:00:00Z"}, "until": {"2026-11-01T00:00:00Z"}}, http.StatusUnprocessableEntity, []string{"until"}},
		"bad until":   {b.Key, url.Values{"format": {"json"}, "until": {"2026-13-01"}}, http.StatusUnprocessableEntity, []string{"until"}},
	} {
		resp, body := getExport(t, ts, c.key, c.q)
		var e httpapi.RESTError
		if err := json.Unmarshal(body, &e); err != nil || resp.StatusCode != c.status {
			t.Fatalf("%s: %d %s", name, resp.StatusCode, body)
		}
		var fields []string
		for _, fe := range e.Error.FieldErrors {
			fields = append(fields, fe.Field)
		}
		if !slices.Equal(fields, c.fields) {
			t.Errorf("%s: fields %v, want %v", name, fields, c.fields)
		}
	}
	resp, body := getExport(t, ts, b.Key, url.Values{"format": {"json"}})
	if resp.StatusCode != http.StatusOK || string(body) != "[]" {
		t.Fatalf("empty json export: %d %q", resp.StatusCode, body)
	}
	resp, body = getExport(t, ts, b.Key, url.Values{"format": {"csv"}})
	if resp.StatusCode != http.StatusOK || string(body) != strings.Join(transaction.CSVHeader, ",")+"\n" {
		t.Fatalf("empty csv export: %d %q", resp.StatusCode, body)
	}
}

// Rows read are charged to the key's rate limit, one token per 200, on the
// REST stream and the GraphQL field alike.
func TestExportChargesRows(t *testing.T) {
	t.Parallel()
	b := testkit.New(t, func(c *httpapi.Config) { c.RateLimitRPS, c.RateLimitBurst = 0.001, 12 })
	seedExport(t, b, 1000, "memo") // one registration: 1 token
	ts := httptest.NewServer(b.Handler)
	defer ts.Close()
	resp, body := getExport(t, ts, b.Key, url.Values{"format": {"csv"}}) // 1 + 5 tokens
	if resp.StatusCode != http.StatusOK || strings.Count(string(body), "\n") != 1001 {
		t.Fatalf("export: %d, %d lines", resp.StatusCode, strings.Count(string(body), "\n"))
	}
	// 12 - 7 = 5 tokens are left: 6 root fields are refused, 5 answered.
	roots := func(n int) string {
		var q strings.Builder
		for i := range n {
			fmt.Fprintf(&q, " a%d: agents { totalCount }", i)
		}
		return "{" + q.String() + " }"
	}
	b.Do(b.Key, roots(6), nil).Refused(t, "RATE_LIMITED")
	b.Query(roots(5), nil)

	// The field is charged by its cost (40,000: 5 tokens) before it runs,
	// and its rows one token per 200 as they are read.
	g := testkit.New(t, func(c *httpapi.Config) { c.RateLimitRPS, c.RateLimitBurst = 0.001, 12 })
	seedExport(t, g, 1000, "memo")                                                                // 1 token: 11 left
	g.Query(`{ exportTransactions(format: json, until: "2026-11-01T00:01:00Z") { count } }`, nil) // 180 rows: 5 + 1, 5 left
	r := g.Do(g.Key, `{ exportTransactions(format: json) { count } }`, nil)                       // 5, and its rows 5 more than the 0 left
	r.RefusedHTTP(t, http.StatusTooManyRequests, "RATE_LIMITED")
	if r.Header.Get("Retry-After") == "" {
		t.Fatal("a refused export's rows: no Retry-After")
	}
}
