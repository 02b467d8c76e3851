package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestExecuteScript runs the executeTransaction wrk script (skipped without
// wrk) against a recording server: disjoint, each connection sends from one
// sender to its own four receivers, and every sender is used; random, a
// connection sends from several senders.
func TestExecuteScript(t *testing.T) {
	t.Parallel()
	bin, err := exec.LookPath("wrk")
	if err != nil {
		t.Skip("wrk not installed")
	}
	const conns = 8
	var senders, receivers []string
	for i := range conns {
		senders = append(senders, fmt.Sprintf("agent_s%d", i))
	}
	for i := range 4 * conns {
		receivers = append(receivers, fmt.Sprintf("agent_r%d", i))
	}
	receiverOf := map[string]int{}
	for i, r := range receivers {
		receiverOf[r] = i
	}
	for _, mode := range []string{"disjoint", "random"} {
		t.Run(mode, func(t *testing.T) {
			seen := runScript(t, bin, mode, senders, receivers)
			if len(seen) != conns {
				t.Fatalf("%d connections sent, want %d", len(seen), conns)
			}
			used := map[string]bool{}
			for c, pairs := range seen {
				from := map[string]bool{}
				for p := range pairs {
					from[p.from] = true
					used[p.from] = true
				}
				if mode == "random" {
					if len(from) < 2 {
						t.Errorf("connection %s sent from %d sender(s) only", c, len(from))
					}
					continue
				}
				for p := range pairs {
					var s int
					fmt.Sscanf(p.from, "agent_s%d", &s)
					if len(from) != 1 || receiverOf[p.to]/4 != s {
						t.Errorf("connection %s sent %v: not one sender to its own receivers", c, pairs)
						break
					}
				}
			}
			if len(used) != len(senders) {
				t.Errorf("%d senders used, want %d", len(used), len(senders))
			}
		})
	}
}

// pair is one request's sender and receiver.
type pair struct{ from, to string }

// runScript runs the script for mode with wrk for a second, one connection
// per sender, against a server that records the pairs each connection sent.
func runScript(t *testing.T, bin, mode string, senders, receivers []string) map[string]map[pair]bool {
	var mu sync.Mutex
	seen := map[string]map[pair]bool{} // by connection
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var v struct {
			Variables struct {
				In struct{ FromAgent, ToAgent string }
			} `json:"variables"`
		}
		if err := json.Unmarshal(b, &v); err != nil || r.Header.Get("Authorization") != "Bearer key" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		c := r.Context().Value(connKey{}).(string)
		mu.Lock()
		defer mu.Unlock()
		if seen[c] == nil {
			seen[c] = map[pair]bool{}
		}
		seen[c][pair{v.Variables.In.FromAgent, v.Variables.In.ToAgent}] = true
	}))
	srv.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		return context.WithValue(ctx, connKey{}, c.RemoteAddr().String())
	}
	srv.Start()
	defer srv.Close()
	e := &executeBench{mode: mode, conns: len(senders)}
	script, err := e.writeScript(filepath.Join(t.TempDir(), "execute.lua"), "key", senders, receivers)
	if err != nil {
		t.Fatal(err)
	}
	e.svc = target{url: srv.URL + "/graphql", script: script}
	if _, err := e.runWrk(options{wrk: bin, threads: 2, duration: time.Second}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	return seen
}

type connKey struct{}
