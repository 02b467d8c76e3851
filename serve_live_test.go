package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/jackc/pgx/v5"

	"github.com/agenttrust/service/db/dbtest"
	"github.com/agenttrust/service/keyring"
)

// The binary serves subscriptions, and SIGTERM (ctx) completes an open one
// and closes its websocket normally before Serve returns.
func TestServeLiveEventsAndDrain(t *testing.T) {
	t.Parallel()
	d, url := dbtest.NewWithURL(t)
	d.Close() // only the service's own listener is to be counted below
	addr := freeAddr(t)
	key := "live-key-0123456789"
	env := map[string]string{"DATABASE_URL": url, "LISTEN_ADDR": addr, "BOOTSTRAP_API_KEY": key, "LOG_LEVEL": "error",
		"ENCRYPTION_KEY": keyring.Generate()}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- run(ctx, nil, func(k string) string { return env[k] }, io.Discard, io.Discard) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err == nil && resp.StatusCode == http.StatusOK {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server never became ready: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}

	c, _, err := (&websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}}).Dial("ws://"+addr+"/graphql",
		http.Header{"Authorization": {"Bearer " + key}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	read := func() (map[string]any, error) {
		_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
		var m map[string]any
		err := c.ReadJSON(&m)
		return m, err
	}
	_ = c.WriteJSON(map[string]any{"type": "connection_init"})
	if m, err := read(); err != nil || m["type"] != "connection_ack" {
		t.Fatalf("init: %v %v", m, err)
	}
	_ = c.WriteJSON(map[string]any{"type": "subscribe", "id": "1",
		"payload": map[string]any{"query": `subscription { events { id type } }`}})
	time.Sleep(300 * time.Millisecond) // registered before the write below
	if code, body := gql(t, addr, key, `mutation { registerAgent(input: {name: "live", authorizedActions: ["purchase"], spendingLimit: "1", currency: "USD", environment: sandbox}) { id } }`); code != http.StatusOK || strings.Contains(body, "errors") {
		t.Fatalf("register: %d %s", code, body)
	}
	if m, err := read(); err != nil || m["type"] != "next" || !strings.Contains(toJSON(m), "agent.registered") {
		t.Fatalf("event: %v %v", m, err)
	}
	// The hub, the webhook dispatcher and the key cache share the process's
	// one LISTEN connection.
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	var listeners int
	err = conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
		AND application_name = 'att-listener'`).Scan(&listeners)
	conn.Close(ctx)
	if err != nil || listeners != 1 {
		t.Fatalf("the process holds %d LISTEN connections on the event channel (%v), want 1", listeners, err)
	}

	cancel() // what SIGTERM does
	if m, err := read(); err != nil || m["type"] != "complete" {
		t.Fatalf("at shutdown, want complete: %v %v", m, err)
	}
	_, err = read()
	if !websocket.IsCloseError(err, websocket.CloseNormalClosure) {
		t.Fatalf("at shutdown, want a normal close: %v", err)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("serve returned %v", err)
		}
	case <-time.After(35 * time.Second):
		t.Fatal("serve did not shut down")
	}
}

func toJSON(m map[string]any) string {
	b, _ := json.Marshal(m)
	return string(b)
}

func TestWSAllowedOriginsValidation(t *testing.T) {
	t.Parallel()
	for v, ok := range map[string]bool{
		"https://app.example.com":                           true,
		"https://app.example.com, http://localhost:3000, *": true,
		"app.example.com":                                   false,
		"https://app.example.com/path":                      false,
	} {
		cfg := Config{ListenAddr: ":8080", LogFormat: "text", LogLevel: "info", wsAllowedOrigins: v}
		err := cfg.Validate()
		if ok != (err == nil) || (err != nil && !strings.Contains(err.Error(), "WS_ALLOWED_ORIGINS")) {
			t.Errorf("WS_ALLOWED_ORIGINS=%q: %v", v, err)
		}
	}
}
