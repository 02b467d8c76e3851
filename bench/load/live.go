package main

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/agenttrust/service/bench/benchdb"
)

// subscribers are websocket subscriptions (graphql-transport-ws) that count
// what each one receives, refuse to count an event twice, and record every
// event's commit-to-receipt time.
type subscribers struct {
	conns []*websocket.Conn
	got   []atomic.Int64        // events received, per subscriber
	seen  []map[uint64]struct{} // hashes of the event ids each received; read after close
	dups  atomic.Int64          // events a subscriber received more than once
	last  atomic.Int64          // UnixNano of the latest receipt
	bad   atomic.Int64          // messages other than next (error, complete) or unreadable
	mu    sync.Mutex
	lat   []time.Duration
	wg    sync.WaitGroup
}

// subscribe opens n subscriptions to query, subscriber i under keys[i %
// len(keys)], 64 handshakes at a time.
func subscribe(ctx context.Context, addr string, keys []string, n int, query string) (*subscribers, error) {
	s := &subscribers{conns: make([]*websocket.Conn, n), got: make([]atomic.Int64, n), seen: make([]map[uint64]struct{}, n)}
	sem := make(chan struct{}, 64)
	var wg sync.WaitGroup
	var once sync.Once
	var failed error
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			c, err := dialSubscription(ctx, addr, keys[i%len(keys)], query)
			if err != nil {
				once.Do(func() { failed = fmt.Errorf("subscriber %d: %w", i, err) })
				return
			}
			s.conns[i], s.seen[i] = c, map[uint64]struct{}{}
			s.wg.Go(func() { s.read(i, c) })
		})
	}
	wg.Wait()
	if failed != nil {
		s.close()
		return nil, failed
	}
	return s, nil
}

func dialSubscription(ctx context.Context, addr, key, query string) (*websocket.Conn, error) {
	d := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}, HandshakeTimeout: 30 * time.Second,
		ReadBufferSize: 1024, WriteBufferSize: 1024}
	c, _, err := d.DialContext(ctx, "ws://"+addr+"/graphql", nil)
	if err != nil {
		return nil, err
	}
	if err := c.WriteJSON(map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": "Bearer " + key}}); err != nil {
		c.Close()
		return nil, err
	}
	var ack struct{ Type string }
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	if err := c.ReadJSON(&ack); err != nil || ack.Type != "connection_ack" {
		c.Close()
		return nil, fmt.Errorf("connection_init: %v %q", err, ack.Type)
	}
	_ = c.SetReadDeadline(time.Time{})
	if err := c.WriteJSON(map[string]any{"type": "subscribe", "id": "1", "payload": map[string]any{"query": query}}); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// read counts subscriber i's events until its connection closes.
func (s *subscribers) read(i int, c *websocket.Conn) {
	seen := s.seen[i]
	var lat []time.Duration
	defer func() {
		s.mu.Lock()
		s.lat = append(s.lat, lat...)
		s.mu.Unlock()
	}()
	for {
		_, raw, err := c.ReadMessage()
		if err != nil {
			return
		}
		now := time.Now()
		var m struct {
			Type    string
			Payload struct {
				Data struct {
					Events struct {
						ID        string
						CreatedAt time.Time
					}
				}
			}
		}
		if json.Unmarshal(raw, &m) != nil {
			s.bad.Add(1)
			continue
		}
		switch m.Type {
		case "next":
		case "ping":
			_ = c.WriteJSON(map[string]any{"type": "pong"})
			continue
		case "pong":
			continue
		default:
			s.bad.Add(1)
			continue
		}
		h := idHash(m.Payload.Data.Events.ID)
		if _, dup := seen[h]; dup {
			s.dups.Add(1)
			continue
		}
		seen[h] = struct{}{}
		lat = append(lat, now.Sub(m.Payload.Data.Events.CreatedAt))
		s.got[i].Add(1)
		storeMax(&s.last, now.UnixNano())
	}
}

func idHash(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()
}

// waitFor waits until every subscriber i received at least want(i) events
// and nothing more arrived for two seconds, or within passes.
func (s *subscribers) waitFor(want func(i int) int, within time.Duration) {
	deadline := time.Now().Add(within)
	var last int64
	quietSince := time.Now()
	for time.Now().Before(deadline) {
		done := true
		var total int64
		for i := range s.got {
			n := s.got[i].Load()
			total += n
			if n < int64(want(i)) {
				done = false
			}
		}
		if total != last {
			last, quietSince = total, time.Now()
		}
		if done && time.Since(quietSince) >= 2*time.Second {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// storeMax raises a to v unless it is already higher.
func storeMax(a *atomic.Int64, v int64) {
	for {
		cur := a.Load()
		if v <= cur || a.CompareAndSwap(cur, v) {
			return
		}
	}
}

// lastReceipt is when the latest event arrived.
func (s *subscribers) lastReceipt() time.Time { return time.Unix(0, s.last.Load()) }

// total is how many events all subscribers received.
func (s *subscribers) total() int64 {
	var n int64
	for i := range s.got {
		n += s.got[i].Load()
	}
	return n
}

// close closes every connection and returns the commit-to-receipt times, sorted.
func (s *subscribers) close() []time.Duration {
	for _, c := range s.conns {
		if c != nil {
			c.Close()
		}
	}
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	slices.Sort(s.lat)
	return s.lat
}

// check, after close, reports as a table note whether every subscriber i
// received each event of want(i) (the ids committed during the measured
// run) exactly once; the error says which did not. Events committed before
// the run may arrive too (a new subscription starts where the server's log
// reader is, which can trail the last commit) and are not counted.
func (s *subscribers) check(want func(i int) []string, lat []time.Duration) (string, error) {
	var expected, received, fewestShare int64 = 0, 0, -1
	short := 0
	for i := range s.conns {
		ids := want(i)
		var n int64
		for _, id := range ids {
			if _, ok := s.seen[i][idHash(id)]; ok {
				n++
			}
		}
		expected += int64(len(ids))
		received += n
		if n < int64(len(ids)) {
			short++
		}
		if share := n * 1000 / max(1, int64(len(ids))); fewestShare < 0 || share < fewestShare {
			fewestShare = share
		}
	}
	note := fmt.Sprintf("%d subscribers: %d of %d expected deliveries received (%d subscribers short), %d duplicates, %d other messages; commit to receipt p50 %s p99 %s p99.9 %s max %s",
		len(s.conns), received, expected, short, s.dups.Load(), s.bad.Load(),
		dur(percentile(lat, 50)), dur(percentile(lat, 99)), dur(percentile(lat, 99.9)), dur(percentile(lat, 100)))
	if received != expected || s.dups.Load() > 0 || s.bad.Load() > 0 {
		return note, fmt.Errorf("subscribers did not receive every event exactly once")
	}
	return note, nil
}

// logEvent is one event of the log: its id and the organizations it concerns.
type logEvent struct {
	id   string
	orgs []string
}

// lastSeq is the log's newest position.
func lastSeq(ctx context.Context, dbURL string) (int64, error) {
	conn := benchdb.Open(dbURL)
	defer conn.Close()
	var seq int64
	err := conn.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM events`).Scan(&seq)
	return seq, err
}

// eventsAfter lists the events of type typ logged after position seq.
func eventsAfter(ctx context.Context, dbURL string, seq int64, typ string) ([]logEvent, error) {
	conn := benchdb.Open(dbURL)
	defer conn.Close()
	rows, err := conn.QueryContext(ctx, `SELECT id, array_to_string(org_ids, ',') FROM events WHERE seq > $1 AND type = $2 ORDER BY seq`, seq, typ)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []logEvent
	for rows.Next() {
		var e logEvent
		var orgs string
		if err := rows.Scan(&e.id, &orgs); err != nil {
			return nil, err
		}
		e.orgs = strings.Split(orgs, ",")
		out = append(out, e)
	}
	return out, rows.Err()
}

// eventIDs lists the events' ids, in order.
func eventIDs(events []logEvent) []string {
	ids := make([]string, len(events))
	for i, ev := range events {
		ids[i] = ev.id
	}
	return ids
}

// byOrg maps each organization to the ids of the events that concern it.
func byOrg(events []logEvent) map[string][]string {
	m := map[string][]string{}
	for _, e := range events {
		for _, o := range e.orgs {
			m[o] = append(m[o], e.id)
		}
	}
	return m
}
