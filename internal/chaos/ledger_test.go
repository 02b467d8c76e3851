package chaos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agenttrust/service/client"
	"github.com/agenttrust/service/event"
)

// outcome is what the client knows about one execute.
type outcome int

const (
	pending outcome = iota
	acked           // answered with the transaction: it must exist, once
	unknown         // no answer, or a 503: it may or may not have run
	denied          // POLICY_DENIED: it must not exist
)

// op is one executeTransaction with its own idempotency key, which is also
// its memo, so the rows say which request each came from.
type op struct {
	in     client.ExecuteInput
	via    string
	state  outcome
	txID   string
	reason string // the refusal's reason code
	status int    // the HTTP status of an error answer (0: none, or no answer)
	sentAt time.Time
	took   time.Duration
}

// ledger is the client side's record of every execute of a scenario.
type ledger struct {
	mu  sync.Mutex
	ops []*op
	// unexpected holds answers no fault explains (a 500, a validation
	// error, a conflict): each is a broken promise.
	unexpected []string
	// internal holds the 500 INTERNAL answers (see execute).
	internal []string
	// statuses counts the HTTP status of error answers, by server phase.
	statuses map[int]int
}

func newLedger() *ledger { return &ledger{statuses: map[int]int{}} }

func (l *ledger) add(from, to string, amount decimal.Decimal) *op {
	key := client.NewIdempotencyKey()
	o := &op{in: client.ExecuteInput{FromAgent: from, ToAgent: to, Action: "purchase", Amount: amount,
		Currency: "USD", Memo: key, IdempotencyKey: key}}
	l.mu.Lock()
	l.ops = append(l.ops, o)
	l.mu.Unlock()
	return o
}

// execute sends o once through c and records what the answer proves.
func (l *ledger) execute(ctx context.Context, c *client.Client, via string, o *op) {
	start := time.Now()
	tx, err := c.Transactions.Execute(ctx, o.in)
	l.mu.Lock()
	defer l.mu.Unlock()
	o.via, o.sentAt, o.took, o.status = via, start, time.Since(start), 0
	var pd *client.PolicyDeniedError
	var api *client.APIError
	switch {
	case err == nil:
		o.state, o.txID = acked, tx.ID
	case errors.As(err, &pd):
		o.state, o.reason = denied, pd.ReasonCode
	case errors.As(err, &api):
		l.statuses[api.StatusCode]++
		o.state, o.status = unknown, api.StatusCode
		switch {
		case api.StatusCode == http.StatusServiceUnavailable:
		case api.Code == client.CodeInternal: // 500, or a GraphQL error at 200
			// The service answers a statement timeout (an execute queued
			// more than 15 s behind its agent's row lock on a starved
			// machine) INTERNAL without 503: counted apart, resent like a 503.
			l.internal = append(l.internal, fmt.Sprintf("%s via %s: %v", o.in.IdempotencyKey, via, err))
		default:
			l.unexpected = append(l.unexpected, fmt.Sprintf("%s via %s: %v", o.in.IdempotencyKey, via, err))
		}
	default:
		o.state = unknown // no answer: connection refused, reset or cut off
	}
}

// counts returns how many ops are in each state.
func (l *ledger) counts() (ack, unk, den int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, o := range l.ops {
		switch o.state {
		case acked:
			ack++
		case unknown, pending:
			unk++
		case denied:
			den++
		}
	}
	return
}

func (l *ledger) snapshot() []op {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]op, len(l.ops))
	for i, o := range l.ops {
		out[i] = *o
	}
	return out
}

func (l *ledger) internalAnswers() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.internal...)
}

// note500s logs the 500 answers of a scenario whose promise is about money,
// not status codes, and returns the figure for its table line.
func (l *ledger) note500s(t *testing.T) string {
	t.Helper()
	bad := l.internalAnswers()
	if len(bad) == 0 {
		return ""
	}
	t.Logf("NOTE: %d executes answered INTERNAL without a 503 (the server logs say why; a statement timeout behind a row lock should be 503):\n  %s", len(bad), brokenf(bad))
	return fmt.Sprintf("%d answered INTERNAL, not 503 (statement timeouts; resent with their keys)", len(bad))
}

func (l *ledger) unexpectedAnswers() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.unexpected...)
}

// worker sends executes built by next through the clients, starting with
// clients[first], until ctx ends; after an answerless failure it moves to
// the next client, as a client behind a load balancer would.
func (l *ledger) worker(ctx context.Context, clients []*client.Client, names []string, first int, next func(*rand.Rand) (from, to string, amount decimal.Decimal), pause time.Duration) {
	r := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	i := first
	for ctx.Err() == nil {
		from, to, amount := next(r)
		o := l.add(from, to, amount)
		// The request itself is not cut short by the load's end: an answer
		// cut off by the test would be an unknown outcome nobody caused.
		l.execute(context.WithoutCancel(ctx), clients[i%len(clients)], names[i%len(names)], o)
		l.mu.Lock()
		failed := o.state == unknown
		l.mu.Unlock()
		if failed {
			i++
			sleep(ctx, 250*time.Millisecond)
		} else if pause > 0 {
			sleep(ctx, pause)
		}
	}
}

// storm runs n workers until ctx ends and returns when all have stopped.
func (l *ledger) storm(ctx context.Context, n int, clients []*client.Client, names []string, next func(*rand.Rand) (string, string, decimal.Decimal), pause time.Duration) {
	var wg sync.WaitGroup
	for w := range n {
		wg.Add(1)
		go func() { defer wg.Done(); l.worker(ctx, clients, names, w, next, pause) }()
	}
	wg.Wait()
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// resolve sends every op without a known outcome again, with its own key
// and input, until it is answered (the service is back): the answer is the
// original transaction if the first attempt ran, or a first execution if it
// did not. It returns how many were resolved and an error if any stays
// unresolved when ctx ends.
func (l *ledger) resolve(ctx context.Context, c *client.Client, via string) (int, error) {
	l.mu.Lock()
	var todo []*op
	for _, o := range l.ops {
		if o.state == unknown || o.state == pending {
			todo = append(todo, o)
		}
	}
	l.mu.Unlock()
	var wg sync.WaitGroup
	errs := make(chan error, len(todo))
	sem := make(chan struct{}, 8)
	for _, o := range todo {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			for {
				l.execute(ctx, c, via, o)
				l.mu.Lock()
				done := o.state != unknown
				l.mu.Unlock()
				if done {
					return
				}
				if ctx.Err() != nil {
					errs <- fmt.Errorf("op %s still has no answer: %w", o.in.IdempotencyKey, ctx.Err())
					return
				}
				sleep(ctx, 100*time.Millisecond)
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return 0, err
	}
	return len(todo), nil
}

// replay sends acknowledged ops again with their keys (at most limit of
// them, spread over the run) and reports every one that did not return its
// original transaction: an idempotency key forgotten across the fault would
// pay twice.
func (l *ledger) replay(ctx context.Context, c *client.Client, limit int) (n int, broken []string) {
	var ackd []op
	for _, o := range l.snapshot() {
		if o.state == acked {
			ackd = append(ackd, o)
		}
	}
	step := 1
	if limit > 0 && len(ackd) > limit {
		step = (len(ackd) + limit - 1) / limit
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := 0; i < len(ackd); i += step {
		o := ackd[i]
		n++
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			tx, err := c.Transactions.Execute(ctx, o.in)
			if err != nil || tx.ID != o.txID {
				mu.Lock()
				broken = append(broken, fmt.Sprintf("key %s first answered %s, replayed: %v %v", o.in.IdempotencyKey, o.txID, txID(tx), err))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return n, broken
}

func txID(tx *client.Transaction) string {
	if tx == nil {
		return ""
	}
	return tx.ID
}

// txRow is a transaction as stored.
type txRow struct {
	id, memo, from, to, status string
	amount                     decimal.Decimal
	createdAt                  time.Time
}

// rows reads every transaction the organization sent.
func (e *env) rows(ctx context.Context) ([]txRow, error) {
	rs, err := e.sql.QueryContext(ctx, `SELECT id, coalesce(memo, ''), from_agent, to_agent, status, amount::text, created_at
		FROM transactions WHERE from_org = $1 ORDER BY created_at, id`, e.orgID)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []txRow
	for rs.Next() {
		var r txRow
		var amt string
		if err := rs.Scan(&r.id, &r.memo, &r.from, &r.to, &r.status, &amt, &r.createdAt); err != nil {
			return nil, err
		}
		if r.amount, err = decimal.NewFromString(amt); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rs.Err()
}

// audit is what checkLedger found.
type audit struct {
	rows   []txRow
	events []event.Event
	// spent is every sender's total outflow, as stored.
	spent map[string]decimal.Decimal
}

// checkLedger compares the client's record with the rows, once every op
// has an outcome: every acknowledged execute is stored with its id and
// amount, no key ran twice, nothing was stored that nobody asked for
// (seeded ids excepted), refused ones left nothing, each sender's stored
// total is exactly the sum of its acknowledged amounts, every idempotency
// key points at its transaction, and each transaction has exactly one
// transaction.completed event carrying its id.
func (e *env) checkLedger(ctx context.Context, l *ledger, seeded map[string]bool) (audit, []string) {
	var broken []string
	fail := func(format string, args ...any) { broken = append(broken, fmt.Sprintf(format, args...)) }
	rows, err := e.rows(ctx)
	if err != nil {
		return audit{}, []string{"read transactions: " + err.Error()}
	}
	a := audit{rows: rows, spent: map[string]decimal.Decimal{}}
	byMemo := map[string][]txRow{}
	for _, r := range rows {
		a.spent[r.from] = a.spent[r.from].Add(r.amount)
		if !seeded[r.id] {
			byMemo[r.memo] = append(byMemo[r.memo], r)
		}
	}
	want := map[string]decimal.Decimal{}
	ops := l.snapshot()
	asked := map[string]bool{}
	for _, o := range ops {
		key := o.in.IdempotencyKey
		asked[key] = true
		got := byMemo[key]
		if len(got) > 1 {
			fail("idempotency key %s executed %d times: %v", key, len(got), ids(got))
		}
		switch o.state {
		case acked:
			want[o.in.FromAgent] = want[o.in.FromAgent].Add(o.in.Amount)
			if len(got) == 0 {
				fail("acknowledged transaction %s (key %s) is missing", o.txID, key)
			} else if got[0].id != o.txID || !got[0].amount.Equal(o.in.Amount) {
				fail("key %s: acknowledged %s for %s, stored %s for %s", key, o.txID, o.in.Amount, got[0].id, got[0].amount)
			}
		case denied:
			if len(got) > 0 {
				fail("refused execute (key %s, %s) was stored as %s", key, o.reason, got[0].id)
			}
		default:
			fail("op %s has no outcome to check", key)
		}
	}
	for memo, got := range byMemo {
		if !asked[memo] {
			fail("transaction %s (memo %q) was stored but never asked for", got[0].id, memo)
		}
	}
	for from, sum := range a.spent {
		for _, r := range rows {
			if seeded[r.id] && r.from == from {
				sum = sum.Sub(r.amount)
			}
		}
		if !sum.Equal(want[from]) {
			fail("agent %s: stored outflow %s, acknowledged %s", from, sum, want[from])
		}
	}
	keys, err := e.idempotencyKeys(ctx)
	if err != nil {
		fail("read idempotency keys: %v", err)
	}
	for _, o := range ops {
		if o.state == acked && keys[o.in.IdempotencyKey] != o.txID {
			fail("idempotency key %s points at %q, want %s", o.in.IdempotencyKey, keys[o.in.IdempotencyKey], o.txID)
		}
	}
	// Readers see an event once every older transaction of the Postgres
	// cluster ended (other scenarios share it): wait for the whole log.
	// Each stored transaction has exactly the events of its status: a
	// completed one transaction.completed, a pending one
	// transaction.approval_requested, an expired one that and
	// transaction.expired, each once.
	wantEvents := map[string]map[string]int{}
	n := 0
	for _, r := range rows {
		if seeded[r.id] {
			continue
		}
		w := txEvents(r.status)
		if w == nil {
			fail("transaction %s is stored %s", r.id, r.status)
		}
		wantEvents[r.id] = w
		for _, c := range w {
			n += c
		}
	}
	a.events, err = e.waitLog(ctx, n, time.Minute)
	if err != nil {
		fail("read the event log: %v", err)
	}
	perTx := map[string]map[string]int{}
	for _, ev := range a.events {
		if !slices.Contains(txEventTypes, ev.Type) {
			continue
		}
		var d struct{ ID string }
		_ = json.Unmarshal(ev.Data, &d)
		if perTx[d.ID] == nil {
			perTx[d.ID] = map[string]int{}
		}
		perTx[d.ID][ev.Type]++
	}
	for id, w := range wantEvents {
		for _, typ := range txEventTypes {
			if got := perTx[id][typ]; got != w[typ] {
				fail("transaction %s has %d %s events, want %d", id, got, typ, w[typ])
			}
		}
	}
	if len(broken) > 10 {
		broken = append(broken[:10], fmt.Sprintf("… and %d more", len(broken)-10))
	}
	return a, broken
}

func ids(rows []txRow) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.id
	}
	return out
}

func (e *env) idempotencyKeys(ctx context.Context) (map[string]string, error) {
	rs, err := e.sql.QueryContext(ctx, `SELECT key, transaction_id FROM idempotency_keys WHERE org_id = $1`, e.orgID)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	out := map[string]string{}
	for rs.Next() {
		var k, tx string
		if err := rs.Scan(&k, &tx); err != nil {
			return nil, err
		}
		out[k] = tx
	}
	return out, rs.Err()
}

// log reads the organization's whole event log in log order, as the
// subscriptions and the webhook dispatcher read it.
func (e *env) log(ctx context.Context) ([]event.Event, error) {
	var out []event.Event
	var pos event.Position
	for {
		evs, err := e.db.ReadOrgEvents(ctx, e.orgID, pos, 1000)
		if err != nil {
			return nil, err
		}
		if len(evs) == 0 {
			return out, nil
		}
		out = append(out, evs...)
		pos = evs[len(evs)-1].Position
	}
}

func eventIDs(evs []event.Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.ID
	}
	return out
}

// txEventTypes are the event types a stored execute's transaction has.
var txEventTypes = []string{event.TransactionCompleted, event.TransactionApprovalRequested, event.TransactionExpired}

// txEvents is how many events of each of txEventTypes a transaction
// stored in status has (nil: a status an execute never leaves it in).
func txEvents(status string) map[string]int {
	switch status {
	case "completed":
		return map[string]int{event.TransactionCompleted: 1}
	case "pending_approval":
		return map[string]int{event.TransactionApprovalRequested: 1}
	case "expired":
		return map[string]int{event.TransactionApprovalRequested: 1, event.TransactionExpired: 1}
	}
	return nil
}

// waitLog waits until the log holds at least n events of txEventTypes
// (readers see an event only once every older transaction of the Postgres
// cluster ended) and returns it.
func (e *env) waitLog(ctx context.Context, n int, timeout time.Duration) ([]event.Event, error) {
	var evs []event.Event
	var err error
	ok := eventually(timeout, func() bool {
		evs, err = e.log(ctx)
		c := 0
		for _, ev := range evs {
			if slices.Contains(txEventTypes, ev.Type) {
				c++
			}
		}
		return err == nil && c >= n
	})
	if !ok && err == nil {
		err = fmt.Errorf("the log holds fewer than %d transaction events after %s", n, timeout)
	}
	return evs, err
}

// percentile returns the p-th percentile (0..100) of ds.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(float64(len(s)-1) * p / 100)
	return s[i]
}

func ms(d time.Duration) string {
	if d < 10*time.Millisecond {
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	}
	if d < 10*time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}

func brokenf(list []string) string { return strings.Join(list, "\n  ") }
