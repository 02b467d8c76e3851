package transaction_test

import (
	"encoding/csv"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/money"
	"github.com/agenttrust/service/transaction"
)

func input() transaction.ExecuteInput {
	memo := "order 7"
	return transaction.ExecuteInput{FromAgent: "agent_a", ToAgent: "agent_b", Action: "pay",
		Amount: money.MustParse("10.5"), Currency: "USD", Memo: &memo}
}

func TestExecuteInputValidate(t *testing.T) {
	t.Parallel()
	if cur, err := input().Validate(); err != nil || cur != "USD" {
		t.Fatalf("valid input: %v %v", cur, err)
	}
	long := strings.Repeat("é", transaction.MaxMemoLength+1)
	empty := ""
	for field, change := range map[string]func(*transaction.ExecuteInput){
		"input.fromAgent":      func(in *transaction.ExecuteInput) { in.FromAgent = "tx_a" },
		"input.toAgent":        func(in *transaction.ExecuteInput) { in.ToAgent = in.FromAgent },
		"input.action":         func(in *transaction.ExecuteInput) { in.Action = " " },
		"input.currency":       func(in *transaction.ExecuteInput) { in.Currency = "usd" },
		"input.amount":         func(in *transaction.ExecuteInput) { in.Amount, in.Currency = money.MustParse("1.5"), "JPY" },
		"input.memo":           func(in *transaction.ExecuteInput) { in.Memo = &long },
		"input.idempotencyKey": func(in *transaction.ExecuteInput) { in.IdempotencyKey = &empty },
	} {
		in := input()
		change(&in)
		_, err := in.Validate()
		fe := failure.As(err)
		if fe == nil || len(fe.FieldErrors) != 1 || fe.FieldErrors[0].Field != field {
			t.Errorf("%s: got %v", field, err)
		}
	}
}

func TestRequestHash(t *testing.T) {
	t.Parallel()
	a, b := input(), input()
	b.Amount = money.MustParse("10.50") // the same value
	key := "k"
	b.IdempotencyKey = &key // the key itself is not a parameter
	if a.RequestHash() != b.RequestHash() {
		t.Error("equal requests hash differently")
	}
	for name, change := range map[string]func(*transaction.ExecuteInput){
		"amount": func(in *transaction.ExecuteInput) { in.Amount = money.MustParse("10.51") },
		"to":     func(in *transaction.ExecuteInput) { in.ToAgent = "agent_c" },
		"memo":   func(in *transaction.ExecuteInput) { in.Memo = nil },
		"action": func(in *transaction.ExecuteInput) { in.Action = "refund" },
	} {
		c := input()
		change(&c)
		if c.RequestHash() == a.RequestHash() {
			t.Errorf("changing %s kept the hash", name)
		}
	}
}

func TestEncoderRoundTrip(t *testing.T) {
	t.Parallel()
	memo := "a, \"quoted\"\nline"
	rev := "tx_1"
	txs := []*transaction.Transaction{
		{ID: "tx_1", FromAgent: "agent_a", ToAgent: "agent_b", Action: "pay", Amount: money.MustParse("0.1"), Currency: "USD",
			Memo: &memo, Status: transaction.Reversed, ReversedBy: &rev, CreatedAt: time.Date(2026, 11, 21, 1, 2, 3, 456789000, time.UTC)},
		{ID: "tx_2", FromAgent: "agent_b", ToAgent: "agent_a", Action: "pay", Amount: money.MustParse("0.2"), Currency: "USD",
			Status: transaction.Reversed, ReversalOf: &rev, CreatedAt: time.Date(2026, 11, 21, 1, 2, 4, 0, time.UTC)},
	}
	for _, format := range []transaction.Format{transaction.CSV, transaction.JSON} {
		exp, err := transaction.Collect(format, 1<<20, func(each func([]*transaction.Transaction) error) error {
			if err := each(txs[:1]); err != nil {
				return err
			}
			return each(txs[1:])
		})
		if err != nil || exp.Count != 2 {
			t.Fatalf("%s: %v %d", format, err, exp.Count)
		}
		if format == transaction.CSV {
			rows, err := csv.NewReader(strings.NewReader(exp.Content)).ReadAll()
			if err != nil || len(rows) != 3 || rows[1][6] != memo || rows[1][4] != "0.1" || rows[2][8] != "tx_1" || rows[1][11] != "2026-11-21T01:02:03.456Z" {
				t.Fatalf("csv: %v %q", err, rows)
			}
			continue
		}
		var got []map[string]json.RawMessage
		if err := json.Unmarshal([]byte(exp.Content), &got); err != nil || len(got) != 2 || string(got[1]["amount"]) != "0.2" || string(got[1]["reversalOf"]) != `"tx_1"` {
			t.Fatalf("json: %v %s", err, exp.Content)
		}
	}
	exp, err := transaction.Collect(transaction.JSON, 1<<20, func(func([]*transaction.Transaction) error) error { return nil })
	if err != nil || exp.Content != "[]" || exp.Count != 0 {
		t.Fatalf("empty json export: %v %+v", err, exp)
	}
}

// TestCollectBound: an export whose content would pass the bound is refused
// on until, whatever its row count, and one at the bound is answered.
func TestCollectBound(t *testing.T) {
	t.Parallel()
	memo := strings.Repeat(`"`, 1000)
	tx := &transaction.Transaction{ID: "tx_1", FromAgent: "agent_a", ToAgent: "agent_b", Action: "pay",
		Amount: money.MustParse("1"), Currency: "USD", Memo: &memo, Status: transaction.Completed}
	read := func(rows int) func(func([]*transaction.Transaction) error) error {
		return func(each func([]*transaction.Transaction) error) error {
			for range rows {
				if err := each([]*transaction.Transaction{tx}); err != nil {
					return err
				}
			}
			return nil
		}
	}
	one, err := transaction.Collect(transaction.CSV, 1<<20, read(1))
	if err != nil {
		t.Fatal(err)
	}
	size := len(one.Content) // the header and one row of 2,002 quoted quotes
	if _, err := transaction.Collect(transaction.CSV, size, read(1)); err != nil {
		t.Fatalf("an export of exactly the bound: %v", err)
	}
	for _, format := range []transaction.Format{transaction.CSV, transaction.JSON} {
		_, err := transaction.Collect(format, 10*size, read(11))
		fe := failure.As(err)
		if fe == nil || fe.Code != failure.ValidationFailed || fe.FieldErrors[0].Field != "until" || !strings.Contains(fe.Message, strconv.Itoa(10*size)) {
			t.Fatalf("%s over the bound: %v", format, err)
		}
	}
}

func TestExportRangeValidate(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	t1 := t0.Add(time.Hour)
	for _, tc := range []struct {
		since, until *time.Time
		ok           bool
	}{
		{nil, nil, true}, {&t0, nil, true}, {nil, &t1, true}, {&t0, &t1, true},
		{&t0, &t0, false}, {&t1, &t0, false},
	} {
		err := transaction.ExportRange{Since: tc.since, Until: tc.until}.Validate()
		if tc.ok != (err == nil) {
			t.Errorf("%v..%v: %v", tc.since, tc.until, err)
		}
		if fe := failure.As(err); err != nil && (fe.Code != failure.ValidationFailed || fe.FieldErrors[0].Field != "until") {
			t.Errorf("want VALIDATION_FAILED on until, got %v", err)
		}
	}
	if fe := failure.As(transaction.ExportTooLarge(5 << 20)); fe == nil || fe.FieldErrors[0].Field != "until" || !strings.Contains(fe.Message, "5242880") {
		t.Errorf("ExportTooLarge = %v", fe)
	}
}
