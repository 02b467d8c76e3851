package delivery_test

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/internal/webhooktest"
	"github.com/agenttrust/service/webhook/delivery"
)

// TestNodeVerifiesDeliveries records real deliveries (before and after a
// secret rotation) and has tools/webhookcheck verify every signature with the
// standardwebhooks npm package. It skips when node or npm is missing.
func TestNodeVerifiesDeliveries(t *testing.T) {
	t.Parallel()
	node, errNode := exec.LookPath("node")
	npm, errNpm := exec.LookPath("npm")
	if errNode != nil || errNpm != nil {
		t.Skip("node and npm are not on PATH: skipping the standardwebhooks (npm) check of real deliveries")
	}
	dir, err := filepath.Abs("../../tools/webhookcheck")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "standardwebhooks")); err != nil {
		cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund", "--silent")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in tools/webhookcheck: %v\n%s", err, out)
		}
	}

	e := webhooktest.NewEnv(t, webhooktest.Options{})
	rcv := webhooktest.New(t)
	whID, first := e.Register(rcv.URL(), "*")
	e.Start(delivery.Config{})
	e.RegisterAgent("n1")
	e.RegisterAgent("n2")
	before := rcv.Wait(t, 2, wait, event.AgentRegistered)
	var rot struct{ Secret string }
	e.Do(e.Key, http.MethodPost, "/webhooks/"+whID+"/secret/rotate", nil).JSON(t, &rot)
	e.RegisterAgent("n3")
	all := rcv.Wait(t, 3, wait, event.AgentRegistered)

	type record struct {
		Secrets []string          `json:"secrets"`
		Headers map[string]string `json:"headers"`
		Body    string            `json:"body"`
	}
	var recs []record
	for i, q := range all {
		secrets := []string{first}
		if i >= len(before) {
			secrets = []string{rot.Secret, first} // both during the rotation overlap
		}
		h := map[string]string{}
		for k := range q.Header {
			h[strings.ToLower(k)] = q.Header.Get(k)
		}
		recs = append(recs, record{Secrets: secrets, Headers: h, Body: string(q.Body)})
	}
	raw, _ := json.Marshal(recs)
	file := filepath.Join(t.TempDir(), "deliveries.json")
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, filepath.Join(dir, "verify.mjs"), file)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("standardwebhooks (npm) refused a delivery: %v\n%s", err, out)
	}
	t.Logf("%s", strings.TrimSpace(string(out)))
}
