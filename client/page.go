package client

import (
	"context"
	"fmt"
	"iter"
	"time"
)

// PageInfo says where the next page of a list starts, and the previous one.
type PageInfo struct {
	// EndCursor is passed as After to get the next page; empty on an empty page.
	EndCursor string `json:"endCursor"`
	// HasNextPage says whether another page follows.
	HasNextPage bool `json:"hasNextPage"`
	// StartCursor is passed as Before (with Last) to get the previous page;
	// empty on an empty page.
	StartCursor string `json:"startCursor"`
	// HasPreviousPage says whether a page comes before: true after a
	// cursor; on a page asked with Last, whether newer items precede it.
	HasPreviousPage bool `json:"hasPreviousPage"`
}

// pageInfoFields selects PageInfo.
const pageInfoFields = `pageInfo { endCursor hasNextPage startCursor hasPreviousPage }`

// fetchPage returns the page after cursor: its items and where the next starts.
type fetchPage[T any] func(ctx context.Context, after string) (items []T, next PageInfo, err error)

// every yields every item of every page from after on, fetching pages
// lazily; it stops at the first error, which it yields once.
func every[T any](ctx context.Context, after string, fetch fetchPage[T]) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for {
			items, next, err := fetch(ctx, after)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, it := range items {
				if !yield(it, nil) {
					return
				}
			}
			if !next.HasNextPage || next.EndCursor == "" {
				return
			}
			if next.EndCursor == after {
				var zero T
				yield(zero, stuckCursor(after))
				return
			}
			after = next.EndCursor
		}
	}
}

// stuckCursor ends a walk whose server answered a page with the cursor it
// was asked from, which would otherwise fetch that page forever.
func stuckCursor(c string) error {
	return fmt.Errorf("agenttrust: the server answered the page at cursor %q with the same cursor: stopping the walk", c)
}

// defaultPageSize is the server's page size when none is asked for: a
// backward walk must name its size, since a page without last and before
// is a forward one.
const defaultPageSize = 50

// backward yields every item of every page before before (from the list's
// end when empty), walking towards its head: each page's items last first,
// so the items come in the reverse of the list's order. It stops at the
// first error, which it yields once.
func backward[T any](ctx context.Context, before string, fetch fetchPage[T]) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for {
			items, page, err := fetch(ctx, before)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for i := len(items) - 1; i >= 0; i-- {
				if !yield(items[i], nil) {
					return
				}
			}
			if !page.HasPreviousPage || page.StartCursor == "" {
				return
			}
			if page.StartCursor == before {
				var zero T
				yield(zero, stuckCursor(before))
				return
			}
			before = page.StartCursor
		}
	}
}

// connection is a page of a list as the API answers it.
type connection[T any] struct {
	Nodes      []T      `json:"nodes"`
	PageInfo   PageInfo `json:"pageInfo"`
	TotalCount int      `json:"totalCount"`
}

// pageVars builds a list query's variables: limit and after, then filters as
// name, value pairs; zero values are left out, so the server's defaults apply.
func pageVars(limit int, after string, filters ...string) map[string]any {
	vars := map[string]any{}
	for i := 0; i+1 < len(filters); i += 2 {
		if filters[i+1] != "" {
			vars[filters[i]] = filters[i+1]
		}
	}
	if limit != 0 {
		vars["limit"] = limit
	}
	if after != "" {
		vars["after"] = after
	}
	return vars
}

// backVars adds a backward page's last and before to vars; zero values are
// left out.
func backVars(vars map[string]any, last int, before string) map[string]any {
	if last != 0 {
		vars["last"] = last
	}
	if before != "" {
		vars["before"] = before
	}
	return vars
}

// formatTime writes t as the service's Time scalar: RFC 3339, UTC, milliseconds.
func formatTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}
