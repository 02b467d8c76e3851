package client_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"time"

	"github.com/agenttrust/service/client"
)

// Verify a webhook delivery in the endpoint's handler: pass the raw body, the
// headers and the secret returned when the endpoint was registered.
func ExampleVerifyWebhook() {
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "unreadable", http.StatusBadRequest)
			return
		}
		ev, err := client.VerifyWebhook(secret, r.Header, body)
		switch {
		case errors.Is(err, client.ErrInvalidSignature), errors.Is(err, client.ErrStaleTimestamp):
			fmt.Println("refused:", err)
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		case err != nil:
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		fmt.Println(ev.ID, ev.Type, string(ev.Data))
		w.WriteHeader(http.StatusNoContent)
	})

	// What the service sends:
	body := `{"id":"evt_8f2k","type":"agent.suspended","timestamp":"2026-11-21T19:51:27.123Z","data":{"agent_id":"agent_x1"}}`
	deliver := func(body string) {
		ts := strconv.FormatInt(time.Now().Unix(), 10)
		key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte("evt_8f2k." + ts + "." + `{"id":"evt_8f2k","type":"agent.suspended","timestamp":"2026-11-21T19:51:27.123Z","data":{"agent_id":"agent_x1"}}`))
		req := httptest.NewRequest(http.MethodPost, "/hooks", strings.NewReader(body))
		req.Header.Set("webhook-id", "evt_8f2k")
		req.Header.Set("webhook-timestamp", ts)
		req.Header.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
		handler.ServeHTTP(httptest.NewRecorder(), req)
	}
	deliver(body)
	deliver(strings.Replace(body, "agent_x1", "agent_x2", 1)) // tampered on the way
	// Output:
	// evt_8f2k agent.suspended {"agent_id":"agent_x1"}
	// refused: agenttrust: invalid webhook signature: no v1 signature matches the secret
}
