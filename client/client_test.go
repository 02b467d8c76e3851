package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/agenttrust/service/client"
)

// TestNew is not parallel: it sets the environment.
func TestNew(t *testing.T) {
	t.Setenv(client.APIKeyEnv, "")
	t.Setenv(client.BaseURLEnv, "")
	if _, err := client.New(client.Options{}); !errors.Is(err, client.ErrNoAPIKey) {
		t.Fatalf("no key: %v", err)
	}
	if _, err := client.New(client.Options{APIKey: "   "}); !errors.Is(err, client.ErrNoAPIKey) {
		t.Fatalf("blank key: %v", err)
	}
	for _, u := range []string{"localhost:8080", "ftp://x", "http://", "::"} {
		if _, err := client.New(client.Options{APIKey: "k", BaseURL: u}); err == nil {
			t.Fatalf("BaseURL %q accepted", u)
		}
	}
	if _, err := client.New(client.Options{APIKey: "k", Timeout: -1}); err == nil {
		t.Fatal("negative timeout accepted")
	}
	s := &script{answers: []func(http.ResponseWriter){dataAnswer("agent", agentJSON)}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	t.Setenv(client.APIKeyEnv, "from-env")
	t.Setenv(client.BaseURLEnv, srv.URL+"/")
	c, err := client.New(client.Options{})
	if err != nil {
		t.Fatalf("key from the environment: %v", err)
	}
	if _, err := c.Agents.Get(context.Background(), "agent_1"); err != nil || s.req(0).Header.Get("Authorization") != "Bearer from-env" {
		t.Fatalf("request with the environment's key and URL: %v", err)
	}
}
