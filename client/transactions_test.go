package client_test

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/client"
)

func TestTransactionsExecuteGetReverse(t *testing.T) {
	t.Parallel()
	b := setup(t)
	from, to := b.register(b.c, "payer", "100"), b.register(b.c, "payee", "100")

	tx, err := b.c.Transactions.Execute(b.ctx, client.ExecuteInput{
		FromAgent: from.ID, ToAgent: to.ID, Action: "purchase", Amount: dec("0.10"), Currency: "USD", Memo: "coffee ☕",
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tx.ID, "tx_") || tx.FromAgent != from.ID || tx.ToAgent != to.ID || tx.Amount.String() != "0.1" ||
		tx.Memo != "coffee ☕" || tx.Status != client.TransactionCompleted || tx.ReversalOf != "" || tx.CreatedAt.IsZero() {
		t.Fatalf("executed: %+v", tx)
	}
	// Exact amounts: 0.1 + 0.2 is 0.3.
	tx2 := b.execute(from.ID, to.ID, "0.2")
	if sum := tx.Amount.Add(tx2.Amount); sum.String() != "0.3" {
		t.Fatalf("0.1 + 0.2 = %s", sum)
	}

	got, err := b.c.Transactions.Get(b.ctx, tx.ID)
	if err != nil || got.ID != tx.ID || !got.Amount.Equal(tx.Amount) || got.Memo != tx.Memo {
		t.Fatalf("get: %+v %v", got, err)
	}

	rev, err := b.c.Transactions.Reverse(b.ctx, tx.ID, "refund")
	if err != nil || rev.ReversalOf != tx.ID || rev.Status != client.TransactionReversed || rev.Reason != "refund" {
		t.Fatalf("reverse: %+v %v", rev, err)
	}
	orig, err := b.c.Transactions.Get(b.ctx, tx.ID)
	if err != nil || orig.Status != client.TransactionReversed || orig.ReversedBy != rev.ID {
		t.Fatalf("reversed original: %+v %v", orig, err)
	}
	if _, err := b.c.Transactions.Reverse(b.ctx, tx.ID, "again"); !errors.Is(err, client.ErrConflict) {
		t.Fatalf("second reverse: %v", err)
	}
	var fe *client.ForbiddenError
	other := b.otherOrg()
	theirs := b.register(other, "theirs", "10")
	if _, err := other.Transactions.Reverse(b.ctx, tx2.ID, "not mine"); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("reverse by a stranger: %v", err)
	}
	if _, err := other.Transactions.Get(b.ctx, tx2.ID); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("a stranger sees the transaction: %v", err)
	}
	// Paying an agent of another organization makes the transaction visible
	// to it, but only the sender may reverse it.
	cross := b.execute(from.ID, theirs.ID, "1")
	if _, err := other.Transactions.Get(b.ctx, cross.ID); err != nil {
		t.Fatalf("the payee's organization cannot see it: %v", err)
	}
	if _, err := other.Transactions.Reverse(b.ctx, cross.ID, "mine now"); !errors.As(err, &fe) || !errors.Is(err, client.ErrForbidden) {
		t.Fatalf("reverse by the payee's organization: %v", err)
	}
}

func TestTransactionsPolicyAndIdempotency(t *testing.T) {
	t.Parallel()
	b := setup(t)
	from, to := b.register(b.c, "payer", "50"), b.register(b.c, "payee", "50")
	in := client.ExecuteInput{FromAgent: from.ID, ToAgent: to.ID, Action: "purchase", Amount: dec("50.01"), Currency: "USD"}

	_, err := b.c.Transactions.Execute(b.ctx, in)
	var pd *client.PolicyDeniedError
	if !errors.As(err, &pd) || !errors.Is(err, client.ErrPolicyDenied) || pd.ReasonCode != client.ReasonAmountExceedsLimit ||
		!strings.Contains(pd.Reason, "50") {
		t.Fatalf("over the limit: %#v", err)
	}

	in.Amount, in.IdempotencyKey = dec("50"), "order-42"
	first, err := b.c.Transactions.Execute(b.ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	again, err := b.c.Transactions.Execute(b.ctx, in)
	if err != nil || again.ID != first.ID {
		t.Fatalf("same key: %+v %v", again, err)
	}
	in.Amount = dec("49")
	if _, err := b.c.Transactions.Execute(b.ctx, in); !errors.Is(err, client.ErrConflict) {
		t.Fatalf("same key, other amount: %v", err)
	}
	page, err := b.c.Transactions.List(b.ctx, client.ListTransactionsParams{})
	if err != nil || page.TotalCount != 1 {
		t.Fatalf("transactions: %+v %v", page, err)
	}
}

func TestTransactionsListAndExport(t *testing.T) {
	t.Parallel()
	b := setup(t)
	x, y, z := b.register(b.c, "x", "100"), b.register(b.c, "y", "100"), b.register(b.c, "z", "100")
	start := time.Now().Add(-time.Second)
	var all, ofZ []string
	for i, pair := range [][2]string{{x.ID, y.ID}, {y.ID, z.ID}, {x.ID, z.ID}, {x.ID, y.ID}, {z.ID, x.ID}} {
		tx := b.execute(pair[0], pair[1], []string{"1", "2.5", "3", "4.25", "5"}[i])
		all = append([]string{tx.ID}, all...)
		if pair[0] == z.ID || pair[1] == z.ID {
			ofZ = append([]string{tx.ID}, ofZ...)
		}
	}
	if _, err := b.c.Transactions.Reverse(b.ctx, all[4], "oops"); err != nil {
		t.Fatal(err)
	}
	collect := func(p client.ListTransactionsParams) []string {
		t.Helper()
		var ids []string
		for tx, err := range b.c.Transactions.ListAll(b.ctx, p) {
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, tx.ID)
		}
		return ids
	}
	got := collect(client.ListTransactionsParams{Limit: 2})
	if len(got) != 6 || !slices.Equal(got[1:], all) {
		t.Fatalf("all: %v, want the reversal then %v", got, all)
	}
	if got := collect(client.ListTransactionsParams{AgentID: z.ID, Limit: 1}); !slices.Equal(got, ofZ) {
		t.Fatalf("of z: %v, want %v", got, ofZ)
	}
	page, err := b.c.Transactions.List(b.ctx, client.ListTransactionsParams{Status: client.TransactionCompleted, Limit: 3})
	if err != nil || page.TotalCount != 4 || len(page.Transactions) != 3 || !page.PageInfo.HasNextPage {
		t.Fatalf("completed page: %+v %v", page, err)
	}

	exp, err := b.c.Transactions.Export(b.ctx, client.ExportParams{Format: client.ExportCSV, Since: start, Until: time.Now().Add(time.Minute)})
	if err != nil || exp.Format != client.ExportCSV || exp.Count != 6 {
		t.Fatalf("csv export: %+v %v", exp, err)
	}
	rows, err := csv.NewReader(strings.NewReader(exp.Content)).ReadAll()
	if err != nil || len(rows) != 7 || !slices.Contains(rows[0], "amount") {
		t.Fatalf("csv content: %v %q", err, exp.Content)
	}
	exp, err = b.c.Transactions.Export(b.ctx, client.ExportParams{Format: client.ExportJSON, Since: time.Now().Add(time.Hour)})
	if err != nil || exp.Count != 0 {
		t.Fatalf("empty json export: %+v %v", exp, err)
	}
	if _, err := b.c.Transactions.Export(b.ctx, client.ExportParams{Format: "xml"}); !errors.Is(err, client.ErrAPI) {
		t.Fatalf("xml export: %v", err)
	}

	// The stream holds the same bytes as the field's content.
	for _, format := range []client.ExportFormat{client.ExportCSV, client.ExportJSON} {
		p := client.ExportParams{Format: format, Since: start}
		exp, err := b.c.Transactions.Export(b.ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		n, err := b.c.Transactions.ExportTo(b.ctx, &buf, p)
		if err != nil || n != int64(buf.Len()) || buf.String() != exp.Content {
			t.Fatalf("%s stream: %v, %d bytes %q, want %q", format, err, n, buf.String(), exp.Content)
		}
	}
	var ve *client.ValidationError
	if _, err := b.c.Transactions.ExportTo(b.ctx, io.Discard, client.ExportParams{Format: "xml"}); !errors.As(err, &ve) || ve.FieldErrors[0].Field != "format" {
		t.Fatalf("xml stream: %v", err)
	}
}

// A stream the server could not finish is an error, never a short export.
func TestExportToTruncated(t *testing.T) {
	t.Parallel()
	b := setupWrapped(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/transactions/export" {
				h.ServeHTTP(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/csv")
			_, _ = io.WriteString(w, "id,fromAgent\n")
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		})
	})
	var buf bytes.Buffer
	if _, err := b.c.Transactions.ExportTo(b.ctx, &buf, client.ExportParams{Format: client.ExportCSV}); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("truncated stream: %v (%q)", err, buf.String())
	}
}
