package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agenttrust/service/client"
)

// TestWalkStopsOnAStuckCursor: a server that ignores the cursor and answers
// every page with the same one ends ListAll and ListAllBackward with an error
// instead of fetching that page forever.
func TestWalkStopsOnAStuckCursor(t *testing.T) {
	t.Parallel()
	const page = `{"data":{"agents":{"nodes":[{"id":"agent_1"}],"totalCount":9,
		"pageInfo":{"endCursor":"c","hasNextPage":true,"startCursor":"c","hasPreviousPage":true}}}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(page))
	}))
	defer srv.Close()
	c, err := client.New(client.Options{APIKey: "k", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	walks := map[string]func() (int, error){
		"forward": func() (int, error) {
			n := 0
			for _, err := range c.Agents.ListAll(context.Background(), client.ListAgentsParams{}) {
				if err != nil {
					return n, err
				}
				n++
			}
			return n, nil
		},
		"backward": func() (int, error) {
			n := 0
			for _, err := range c.Agents.ListAllBackward(context.Background(), client.ListAgentsParams{}) {
				if err != nil {
					return n, err
				}
				n++
			}
			return n, nil
		},
	}
	for name, walk := range walks {
		n, err := walk()
		// The first page names cursor "c" after starting from none; the
		// second, asked from "c", answers "c" again and ends the walk.
		if err == nil || !strings.Contains(err.Error(), "same cursor") || n != 2 {
			t.Errorf("%s: %d items, err %v; want 2 items then the stuck-cursor error", name, n, err)
		}
	}
}
