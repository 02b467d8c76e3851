package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/agenttrust/service/client"
)

// registerRetry is how often webhook receive asks again to be registered
// while the service refuses or cannot be reached (it may be restarting with
// the settings the receiver needs).
const registerRetry = 2 * time.Second

// webhookCommand is `webhook receive`, a receiver on this machine for trying
// webhooks out; group is the action of a command that only holds others.
func webhookCommand(name string, getenv func(string) string, stdout, stderr io.Writer, group cli.ActionFunc) *cli.Command {
	env := func(key string) cli.ValueSourceChain { return cli.NewValueSourceChain(envSource{getenv, key}) }
	return &cli.Command{
		Name:   "webhook",
		Usage:  "try webhooks out on this machine",
		Action: group,
		Commands: []*cli.Command{{
			Name:  "receive",
			Usage: "run an HTTPS receiver on this machine that registers itself and prints each delivery it verified",
			Description: "Listens on a loopback address with a certificate of its own (made on first use, kept in --ca-file),\n" +
				"registers itself as a webhook endpoint of the API key's organization, and prints one line per\n" +
				"delivery whose Standard Webhooks signature it verified: `verified <type> <event id> <data>`.\n" +
				"Deliveries reach it only when the service runs with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true and\n" +
				"WEBHOOK_CA_FILE set to --ca-file: until then it says what the service answered and asks again\n" +
				"every 2 s. Ctrl-C deletes its endpoint and stops it. Development only.\n\n" +
				"Example:\n" +
				"  " + name + " webhook receive --api-key \"$KEY\" --service http://localhost:8080",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "api-key", Usage: "the organization's API `KEY`", Sources: env("AGENTTRUST_API_KEY")},
				&cli.StringFlag{Name: "service", Usage: "the service's base `URL`", Value: "http://localhost:8080", Sources: env("AGENTTRUST_BASE_URL")},
				&cli.StringFlag{Name: "listen", Usage: "loopback `ADDRESS` to receive on (port 0: any free port)", Value: "127.0.0.1:0"},
				&cli.StringFlag{Name: "ca-file", Usage: "`FILE` holding the receiver's certificate, for WEBHOOK_CA_FILE (its key goes beside it, .key)", Value: defaultCAFile()},
				&cli.StringFlag{Name: "events", Usage: "event `TYPES` to receive, comma-separated, * for all", Value: "*"},
			},
			Action: func(ctx context.Context, cmd *cli.Command) error {
				if cmd.String("api-key") == "" {
					return usagef("webhook receive: --api-key is required (or AGENTTRUST_API_KEY): the key `org create` printed")
				}
				if cmd.Args().Present() {
					return usagef("webhook receive: unexpected argument %q; see `%s --help`", cmd.Args().First(), cmd.FullName())
				}
				api, err := client.New(client.Options{APIKey: cmd.String("api-key"), BaseURL: cmd.String("service"), NoRetries: true})
				if err != nil {
					return usageError{fmt.Errorf("webhook receive: %w", err)}
				}
				r := &receiver{api: api, events: splitOrigins(cmd.String("events")), caFile: cmd.String("ca-file"), out: stdout, log: stderr}
				return r.run(ctx, cmd.String("listen"))
			},
		}},
	}
}

// receiver is a webhook endpoint on this machine that prints what it verified.
type receiver struct {
	api     *client.Client
	events  []string
	caFile  string
	out     io.Writer // verified deliveries, one line each
	log     io.Writer // what went wrong, and the hints
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
	ln, url, err := listenTLS(listen, r.caFile)
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
	r.printf(r.out, "listening on %s (certificate: %s)\n", url, r.caFile)

	wh, err := r.register(ctx, url)
	if err != nil {
		return err
	}
	r.printf(r.out, "registered %s for %s\n", wh.ID, url)
	r.unlock(wh.Secret)

	select {
	case <-ctx.Done():
	case err := <-served:
		return fmt.Errorf("webhook receive: serve: %w", err)
	}
	dctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.api.Webhooks.Delete(dctx, wh.ID); err != nil {
		return fmt.Errorf("webhook receive: delete endpoint %s: %w", wh.ID, err)
	}
	r.printf(r.out, "deleted %s\n", wh.ID)
	return nil
}

// register asks the service to register url until it accepts, saying once
// per distinct answer why it did not. A refused key or another client error
// ends it; a refused endpoint or an unreachable service is asked again.
func (r *receiver) register(ctx context.Context, url string) (*client.Webhook, error) {
	said := ""
	for {
		wh, err := r.api.Webhooks.Register(ctx, client.RegisterWebhookInput{URL: url, Events: r.events})
		if err == nil {
			return wh, nil
		}
		var invalid *client.ValidationError
		var apiErr *client.APIError
		switch {
		case errors.As(err, &invalid):
			if msg := invalid.Message; msg != said {
				said = msg
				r.printf(r.log, "the service refused the endpoint: %s\n"+
					"  to accept it, the service must run with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true WEBHOOK_CA_FILE=%s (development only); asking again every %s\n",
					msg, r.caFile, registerRetry)
			}
		case errors.As(err, &apiErr) && apiErr.StatusCode < 500:
			return nil, fmt.Errorf("webhook receive: register %s: %w", url, err)
		default:
			if msg := err.Error(); msg != said {
				said = msg
				r.printf(r.log, "the service cannot be reached yet: %v; asking again every %s\n", err, registerRetry)
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("webhook receive: stopped before the service accepted %s", url)
		case <-time.After(registerRetry):
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
		r.printf(r.log, "refused a delivery (webhook-id %q): %v\n", d.header.Get("webhook-id"), err)
		return false
	}
	data := ev.Data
	if compact, err := json.Marshal(ev.Data); err == nil {
		data = compact
	}
	r.printf(r.out, "verified %s %s %s\n", ev.Type, ev.ID, data)
	return true
}

// printf writes one whole line at a time, whichever goroutine prints.
func (r *receiver) printf(w io.Writer, format string, args ...any) {
	r.outMu.Lock()
	defer r.outMu.Unlock()
	fmt.Fprintf(w, format, args...)
}

// loopbackURL is the https URL of a listener on addr, which must be a
// loopback address: the receiver's certificate names only those.
func loopbackURL(addr net.Addr) (string, error) {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "", err
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return "", usagef("webhook receive: --listen must be a loopback address such as 127.0.0.1:0 (got %s)", strings.TrimSpace(addr.String()))
	}
	return "https://" + net.JoinHostPort(host, port) + "/", nil
}
