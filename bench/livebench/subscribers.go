package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// subscribers are the run's websocket subscriptions and what they received.
type subscribers struct {
	conns   []*websocket.Conn
	mu      sync.Mutex
	lat     []float64 // commit to receipt of every event received, in seconds
	got     atomic.Int64
	closing atomic.Bool // set once the benchmark closes the connections
	dropped atomic.Int64
	dropErr atomic.Value
}

// openSubscribers opens n subscriptions, subscription i under organization
// i % len(orgs), 64 handshakes at a time; capacity is the receipts expected.
func openSubscribers(addr string, orgs []org, n, capacity int) (*subscribers, error) {
	s := &subscribers{conns: make([]*websocket.Conn, n), lat: make([]float64, 0, capacity)}
	sem := make(chan struct{}, 64)
	var wg sync.WaitGroup
	var dialErr atomic.Value
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			c, err := subscribe(addr, orgs[i%len(orgs)].key)
			if err != nil {
				dialErr.Store(err)
				return
			}
			s.conns[i] = c
			go s.read(c)
		}()
	}
	wg.Wait()
	if err, ok := dialErr.Load().(error); ok {
		return nil, fmt.Errorf("subscribe: %w", err)
	}
	return s, nil
}

// read records the commit-to-receipt time of every event c receives, and
// counts c as dropped if it ends before the benchmark closes it.
func (s *subscribers) read(c *websocket.Conn) {
	for {
		_, raw, err := c.ReadMessage()
		if err != nil {
			if !s.closing.Load() {
				s.dropped.Add(1)
				s.dropErr.Store(err.Error())
			}
			return
		}
		now := time.Now()
		var m struct {
			Type    string
			Payload struct {
				Data struct{ Events struct{ CreatedAt time.Time } }
			}
		}
		if json.Unmarshal(raw, &m) != nil || m.Type != "next" {
			continue
		}
		s.mu.Lock()
		s.lat = append(s.lat, now.Sub(m.Payload.Data.Events.CreatedAt).Seconds())
		s.mu.Unlock()
		s.got.Add(1)
	}
}

// close closes every subscription.
func (s *subscribers) close() {
	s.closing.Store(true)
	for _, c := range s.conns {
		if c != nil {
			c.Close()
		}
	}
}

// sorted returns the commit-to-receipt times received, sorted.
func (s *subscribers) sorted() []float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	slices.Sort(s.lat)
	return s.lat
}

// writeBurst sends n mutations from writers concurrent writers, mutation i
// under organization i % len(orgs).
func writeBurst(base string, orgs []org, n, writers int) error {
	var wg sync.WaitGroup
	var next atomic.Int64
	var werr atomic.Value
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if _, err := mutate(base, orgs[i%len(orgs)].key, i); err != nil {
					werr.Store(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err, ok := werr.Load().(error); ok {
		return fmt.Errorf("burst: %w", err)
	}
	return nil
}

func subsOf(o, nSubs, nOrgs int) int {
	n := nSubs / nOrgs
	if o < nSubs%nOrgs {
		n++
	}
	return n
}

func subscribe(addr, key string) (*websocket.Conn, error) {
	d := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}, HandshakeTimeout: 30 * time.Second,
		ReadBufferSize: 1024, WriteBufferSize: 1024}
	c, _, err := d.Dial("ws://"+addr+"/graphql", nil)
	if err != nil {
		return nil, err
	}
	if err := c.WriteJSON(map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": "Bearer " + key}}); err != nil {
		return nil, err
	}
	var ack struct{ Type string }
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	if err := c.ReadJSON(&ack); err != nil || ack.Type != "connection_ack" {
		return nil, fmt.Errorf("connection_init: %v %q", err, ack.Type)
	}
	_ = c.SetReadDeadline(time.Time{})
	return c, c.WriteJSON(map[string]any{"type": "subscribe", "id": "1",
		"payload": map[string]any{"query": `subscription { events(types: ["agent.registered"]) { id createdAt } }`}})
}

func mutate(base, key string, i int) (string, error) {
	body, _ := json.Marshal(map[string]any{
		"query": `mutation($in: RegisterAgentInput!) { registerAgent(input: $in) { id } }`,
		"variables": map[string]any{"in": map[string]any{"name": fmt.Sprintf("bench-%d", i), "authorizedActions": []string{"purchase"},
			"spendingLimit": "10", "currency": "USD", "environment": "sandbox"}},
	})
	req, _ := http.NewRequest(http.MethodPost, base+"/graphql", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || strings.Contains(string(raw), `"errors"`) {
		return "", fmt.Errorf("registerAgent: %d %s", resp.StatusCode, raw)
	}
	return string(raw), nil
}
