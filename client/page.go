package client

import (
	"context"
	"iter"
	"time"
)

// PageInfo says where the next page of a list starts.
type PageInfo struct {
	// EndCursor is passed as After to get the next page; empty on an empty page.
	EndCursor string `json:"endCursor"`
	// HasNextPage says whether another page follows.
	HasNextPage bool `json:"hasNextPage"`
}

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
			after = next.EndCursor
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

// formatTime writes t as the service's Time scalar: RFC 3339, UTC, milliseconds.
func formatTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}
