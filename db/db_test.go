package db_test

import (
	"testing"

	"github.com/agenttrust/service/db/dbtest"
)

// Every pooled connection carries the statement timeout.
func TestStatementTimeout(t *testing.T) {
	t.Parallel()
	d := dbtest.New(t)
	for range 3 {
		if v, err := d.Setting(t.Context(), "statement_timeout"); err != nil || v != "15s" {
			t.Fatalf("statement_timeout %q, %v", v, err)
		}
	}
}
