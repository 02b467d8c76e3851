package client_test

import (
	"errors"
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
	t.Setenv(client.APIKeyEnv, "from-env")
	t.Setenv(client.BaseURLEnv, "https://api.example.com/")
	if _, err := client.New(client.Options{}); err != nil {
		t.Fatalf("key from the environment: %v", err)
	}
}
