// Package receiver is `webhook receive`: an HTTPS webhook endpoint on this
// machine, for trying webhooks out, that registers itself through the Go
// client and prints each delivery whose Standard Webhooks signature it
// verified. Development only.
package receiver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/agenttrust/service/client"
)

// Retry is how often Run asks again to be registered while the service
// refuses or cannot be reached (it may be restarting with the settings the
// receiver needs).
const Retry = 2 * time.Second

// Options are what Run needs: the client of the API key's organization, the
// event types to receive, where the certificate is kept, and where to print.
type Options struct {
	API    *client.Client
	Events []string  // event types, or ["*"] for all
	CAFile string    // the certificate's file, for WEBHOOK_CA_FILE; its key goes beside it (.key)
	Out    io.Writer // one line per verified delivery, and what the receiver did
	Log    io.Writer // what went wrong, and the hints
}

// Run receives on listen, a loopback address, with the certificate in
// o.CAFile (made there on first use), registers itself as a webhook endpoint
// and prints each delivery it verified until ctx ends; then it deletes its
// endpoint. A listen address that is not loopback is a *NotLoopbackError.
func Run(ctx context.Context, listen string, o Options) error {
	r := &receiver{Options: o}
	return r.run(ctx, listen)
}

// receiver is a webhook endpoint on this machine that prints what it verified.
type receiver struct {
	Options
	outMu   sync.Mutex
	mu      sync.Mutex
	secret  string     // "" until the registration's answer carried it
	pending []received // arrived before the secret: the registration's own verification request
}

// received is a delivery as it came in, kept to be verified.
type received struct {
	header http.Header
	body   []byte
}

// run receives on listen until ctx ends, then deletes its endpoint.
func (r *receiver) run(ctx context.Context, listen string) error {
	ln, url, err := listenTLS(listen, r.CAFile)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	r.printf(r.Out, "listening on %s (certificate: %s)\n", url, r.CAFile)

	wh, err := r.register(ctx, url)
	if err != nil {
		return err
	}
	r.printf(r.Out, "registered %s for %s\n", wh.ID, url)
	r.unlock(wh.Secret)

	select {
	case <-ctx.Done():
	case err := <-served:
		return fmt.Errorf("webhook receive: serve: %w", err)
	}
	dctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.API.Webhooks.Delete(dctx, wh.ID); err != nil {
		return fmt.Errorf("webhook receive: delete endpoint %s: %w", wh.ID, err)
	}
	r.printf(r.Out, "deleted %s\n", wh.ID)
	return nil
}

// register asks the service to register url until it accepts, saying once
// per distinct answer why it did not. A refused key or another client error
// ends it; a refused endpoint or an unreachable service is asked again.
func (r *receiver) register(ctx context.Context, url string) (*client.Webhook, error) {
	said := ""
	for {
		wh, err := r.API.Webhooks.Register(ctx, client.RegisterWebhookInput{URL: url, Events: r.Events})
		if err == nil {
			return wh, nil
		}
		var invalid *client.ValidationError
		var apiErr *client.APIError
		switch {
		case errors.As(err, &invalid):
			if msg := invalid.Message; msg != said {
				said = msg
				r.printf(r.Log, "the service refused the endpoint: %s\n"+
					"  to accept it, the service must run with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true WEBHOOK_CA_FILE=%s (development only); asking again every %s\n",
					msg, r.CAFile, Retry)
			}
		case errors.As(err, &apiErr) && apiErr.StatusCode < 500:
			return nil, fmt.Errorf("webhook receive: register %s: %w", url, err)
		default:
			if msg := err.Error(); msg != said {
				said = msg
				r.printf(r.Log, "the service cannot be reached yet: %v; asking again every %s\n", err, Retry)
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("webhook receive: stopped before the service accepted %s", url)
		case <-time.After(Retry):
		}
	}
}

// unlock sets the secret and verifies what arrived before it.
func (r *receiver) unlock(secret string) {
	r.mu.Lock()
	r.secret = secret
	pending := r.pending
	r.pending = nil
	r.mu.Unlock()
	for _, p := range pending {
		r.verify(secret, p)
	}
}

// ServeHTTP verifies a delivery and prints it. Until the registration is
// answered the secret is unknown: a request is then answered 2xx (the
// service's verification request must succeed for the registration to) and
// verified once the secret arrives.
func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, 1<<20))
	if err != nil {
		http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
		return
	}
	got := received{header: req.Header.Clone(), body: body}
	r.mu.Lock()
	secret := r.secret
	if secret == "" {
		r.pending = append(r.pending, got)
	}
	r.mu.Unlock()
	if secret != "" && !r.verify(secret, got) {
		http.Error(w, "signature not verified", http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// verify prints a delivery whose signature holds, or says why it does not.
func (r *receiver) verify(secret string, d received) bool {
	ev, err := client.VerifyWebhook(secret, d.header, d.body)
	if err != nil {
		r.printf(r.Log, "refused a delivery (webhook-id %q): %v\n", d.header.Get("webhook-id"), err)
		return false
	}
	data := ev.Data
	if compact, err := json.Marshal(ev.Data); err == nil {
		data = compact
	}
	r.printf(r.Out, "verified %s %s %s\n", ev.Type, ev.ID, data)
	return true
}

// printf writes one whole line at a time, whichever goroutine prints.
func (r *receiver) printf(w io.Writer, format string, args ...any) {
	r.outMu.Lock()
	defer r.outMu.Unlock()
	fmt.Fprintf(w, format, args...)
}
