package paging_test

import (
	"os"
	"regexp"
	"testing"

	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/paging"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	for limit, ok := range map[int]bool{-1: false, 0: false, 1: true, 50: true, 200: true, 201: false} {
		err := paging.Check(limit)
		if ok != (err == nil) {
			t.Errorf("Check(%d) = %v", limit, err)
		}
		if fe := failure.As(err); err != nil && (fe.Code != failure.ValidationFailed || fe.FieldErrors[0].Field != "limit") {
			t.Errorf("Check(%d): want VALIDATION_FAILED on limit, got %v", limit, err)
		}
	}
}

func TestLimit(t *testing.T) {
	t.Parallel()
	n := func(i int) *int { return &i }
	for _, tc := range []struct {
		limit   *int
		limitOf int
	}{{nil, 50}, {n(7), 7}, {n(0), 0}, {n(-3), -3}, {n(1000), 1000}} {
		if got := paging.Limit(tc.limit); got != tc.limitOf {
			t.Errorf("Limit(%v) = %d, want %d", tc.limit, got, tc.limitOf)
		}
	}
}

// TestSchemaDefaults keeps the `limit: Int = N` default of every connection
// in the schema, and the "1..M" in its descriptions, on the constants.
func TestSchemaDefaults(t *testing.T) {
	t.Parallel()
	schema, err := os.ReadFile("../schema.graphqls")
	if err != nil {
		t.Fatal(err)
	}
	defaults := regexp.MustCompile(`\blimit: Int = (\d+)[^)]*\)\s*:\s*\w*Connection!`).FindAllSubmatch(schema, -1)
	if len(defaults) == 0 {
		t.Fatal("no connection in the schema")
	}
	for _, m := range defaults {
		if string(m[1]) != "50" {
			t.Errorf("schema default %s, want paging.Default (%d)", m[0], paging.Default)
		}
	}
	for _, m := range regexp.MustCompile("`limit` is 1\\.\\.(\\d+)").FindAllSubmatch(schema, -1) {
		if string(m[1]) != "200" {
			t.Errorf("schema says %s, want paging.Max (%d)", m[0], paging.Max)
		}
	}
	if paging.Default != 50 || paging.Max != 200 {
		t.Fatal("the contract's page sizes are 50 by default and 200 at most")
	}
}

func TestTokens(t *testing.T) {
	t.Parallel()
	for rows, want := range map[int]int{0: 0, 1: 1, 200: 1, 201: 2, 1000: 5, 1001: 6} {
		if got := paging.Tokens(rows); got != want {
			t.Errorf("Tokens(%d) = %d, want %d", rows, got, want)
		}
	}
}
