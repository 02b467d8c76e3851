package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/httpapi"
)

// smallBuffers makes every accepted connection's send buffer small, so that
// a peer that does not read blocks the server's writes after a few KiB
// instead of after the kernel's autotuned megabytes.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4 << 10)
	}
	return c, err
}

// An SSE subscriber that never reads is disconnected once a write cannot
// finish within the live write deadline, as a websocket is: its subscription,
// goroutine and unsent events do not outlive the deadline.
func TestLiveEventsSSEWriteDeadline(t *testing.T) {
	t.Parallel()
	b := setupLiveConfig(t, func(c *httpapi.Config) { c.LiveWriteTimeout = time.Second })
	ts := httptest.NewUnstartedServer(b.srv)
	ts.Listener = smallBuffers{ts.Listener}
	ts.Start()
	t.Cleanup(ts.Close)

	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	must(t, err)
	t.Cleanup(func() { conn.Close() })
	must(t, conn.(*net.TCPConn).SetReadBuffer(4<<10))
	body, _ := json.Marshal(map[string]any{"query": eventsSubscription})
	_, err = fmt.Fprintf(conn, "POST /graphql HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"+
		"Accept: text/event-stream\r\nAuthorization: Bearer %s\r\nContent-Length: %d\r\n\r\n%s", b.key, len(body), body)
	must(t, err)
	waitSubscribers(t, b, 1)

	// Events of 8 KiB each, far more than the sockets hold; the client
	// never reads another byte.
	const burst = 200
	pad, _ := json.Marshal(map[string]string{"pad": strings.Repeat("x", 8<<10)})
	sql := openSQL(t, b.dbURL)
	_, err = sql.ExecContext(t.Context(), `WITH e AS (
		INSERT INTO events (id, type, org_ids, data) SELECT 'evt_big' || lpad(g::text, 5, '0'), 'agent.updated', ARRAY[$1], $3::jsonb
		FROM generate_series(1, $2) g RETURNING seq)
		INSERT INTO event_orgs (org_id, event_seq) SELECT $1, seq FROM e`, b.orgID, burst, string(pad))
	must(t, err)
	_, err = sql.ExecContext(t.Context(), `SELECT pg_notify('att_events', '0')`)
	must(t, err)

	deadline := time.Now().Add(eventWait)
	for {
		conns, subs := metric(t, b, "att_live_connections"), metric(t, b, "att_live_subscriptions")
		if conns == 0 && subs == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a subscriber that does not read still holds %v connections, %v subscriptions", conns, subs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
