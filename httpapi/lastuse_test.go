package httpapi_test

import (
	"context"
	"testing"
	"time"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/internal/testkit"
)

// A key's last use is recorded by its first request and then at most once
// per auth.LastUseResolution, so tracking it costs no write on most requests
// (and, with the key cached, no statement at all).
func TestKeyLastUseIsRecordedCheaply(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	ctx := context.Background()
	keys, err := b.Orgs.ListKeys(ctx, auth.Principal{OrgID: b.OrgID, Role: auth.RoleAdmin})
	if err != nil || len(keys) != 1 || keys[0].LastUsedAt != nil {
		t.Fatalf("before any request: %+v %v", keys, err)
	}
	typename := func() int64 {
		before := b.DB.Statements()
		if r := b.Query(`{ __typename }`, nil); r.Code() != "" {
			t.Fatalf("query: %s", r.Body)
		}
		return b.DB.Statements() - before
	}
	if n := typename(); n != 2 { // the key lookup and the last-use write
		t.Fatalf("first request ran %d statements, want 2", n)
	}
	keys, err = b.Orgs.ListKeys(ctx, auth.Principal{OrgID: b.OrgID, Role: auth.RoleAdmin})
	if err != nil || keys[0].LastUsedAt == nil {
		t.Fatalf("after a request: %+v %v", keys, err)
	}
	first := *keys[0].LastUsedAt
	for i := 0; i < 3; i++ {
		// The key comes from the cache, or, while the process's listener is
		// away, from a lookup: never a write.
		if n := typename(); n > 1 {
			t.Fatalf("request %d within a minute ran %d statements, want at most 1", i+2, n)
		}
	}
	keys, _ = b.Orgs.ListKeys(ctx, auth.Principal{OrgID: b.OrgID, Role: auth.RoleAdmin})
	if !keys[0].LastUsedAt.Equal(first) {
		t.Fatalf("last use moved within a minute: %v then %v", first, keys[0].LastUsedAt)
	}
	// A minute later the next request records the use again.
	later := first.Add(auth.LastUseResolution + time.Second)
	b.DB.Now = func() time.Time { return later }
	if n := typename(); n != 2 {
		t.Fatalf("request a minute later ran %d statements, want 2", n)
	}
	keys, _ = b.Orgs.ListKeys(ctx, auth.Principal{OrgID: b.OrgID, Role: auth.RoleAdmin})
	if !keys[0].LastUsedAt.Equal(later) {
		t.Fatalf("last use after a minute: %v, want %v", keys[0].LastUsedAt, later)
	}
	if _, err := b.Orgs.ListKeys(ctx, auth.Principal{OrgID: "org_nope", Role: auth.RoleAdmin}); err == nil {
		t.Fatal("ListKeys of an unknown organization succeeded")
	}
}
