// Package outbound is the one HTTP client for requests to webhook endpoints.
// It speaks https only, checks every address it dials (after DNS resolution,
// so a name that rebinds to a private address is refused at connect time),
// follows no redirects and bounds connect time, total time and bytes read.
// It is net/http's transport, HTTP/2 included where an endpoint offers it.
package outbound

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"syscall"
	"time"
)

// Config tunes the client; zero fields take the defaults.
type Config struct {
	// AllowPrivateNetworks lets requests reach loopback and private
	// addresses (WEBHOOK_ALLOW_PRIVATE_NETWORKS; development and tests only).
	AllowPrivateNetworks bool
	// RootCAs are extra trusted roots (WEBHOOK_CA_FILE), added to the system's.
	RootCAs *x509.CertPool
	// ConnectTimeout bounds dialing and the TLS handshake (default 5s).
	ConnectTimeout time.Duration
	// Timeout bounds a whole request, body included (default 15s).
	Timeout time.Duration
	// MaxResponseBytes is how much of an answer's body is read (default 64 KiB).
	MaxResponseBytes int64
	// MaxConnsPerHost bounds the connections open to one host (0: no
	// bound). Set to the number of requests the caller makes at once, it
	// keeps the transport from dialing (and handshaking) a connection for
	// a request that another one, about to be free, serves first.
	MaxConnsPerHost int
	// Logger receives why a request got no answer, in full (default
	// slog.Default()); callers are told only how far it got (Error).
	Logger *slog.Logger
}

// LoadCAFile reads PEM certificates from path into a pool with the system roots.
func LoadCAFile(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("WEBHOOK_CA_FILE: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("WEBHOOK_CA_FILE: %s holds no PEM certificate", path)
	}
	return pool, nil
}

const (
	// maxHeaderBytes bounds an answer's status line and headers, as
	// net/http's server bounds a request's.
	maxHeaderBytes = 1 << 20
	// drainBytes is how much of an answer past MaxResponseBytes is read so
	// that its connection can serve the next request; a longer answer
	// costs its connection instead.
	drainBytes = 4 << 10
	// idlePerHost is how many idle connections are kept to one host when
	// MaxConnsPerHost is lower: net/http keeps two by default, and a burst
	// of deliveries to one endpoint would then dial again after each one.
	idlePerHost = 128
)

// Client posts to endpoints under the policy.
type Client struct {
	cfg Config
	// transport is used without an http.Client: a redirect is the answer,
	// never followed, and the request's context bounds the whole request,
	// so the client's redirect bookkeeping (a copy of every request's
	// headers) would serve nothing.
	transport *http.Transport
}

// New returns a client for cfg.
func New(cfg Config) *Client {
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = 5 * time.Second
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 15 * time.Second
	}
	if cfg.MaxResponseBytes <= 0 {
		cfg.MaxResponseBytes = 64 << 10
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	dialer := &net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: 30 * time.Second}
	if !cfg.AllowPrivateNetworks {
		// Control runs for every address a name resolves to, just before
		// connecting to it: what is checked is what is dialed.
		dialer.Control = func(_, address string, _ syscall.RawConn) error {
			return CheckAddress(address)
		}
	}
	tr := &http.Transport{
		Proxy:       nil, // a proxy would dial for us and bypass the address check
		DialContext: dialer.DialContext,
		// The session cache lets a new connection to an endpoint resume an
		// earlier TLS session instead of a full handshake, which bursts of
		// deliveries would otherwise pay on every new connection.
		TLSClientConfig:        &tls.Config{RootCAs: cfg.RootCAs, MinVersion: tls.VersionTLS12, ClientSessionCache: tls.NewLRUClientSessionCache(1024)},
		TLSHandshakeTimeout:    cfg.ConnectTimeout,
		ForceAttemptHTTP2:      true, // a custom DialContext turns HTTP/2 off unless asked for
		MaxConnsPerHost:        cfg.MaxConnsPerHost,
		MaxIdleConnsPerHost:    max(cfg.MaxConnsPerHost, idlePerHost),
		IdleConnTimeout:        90 * time.Second,
		MaxResponseHeaderBytes: maxHeaderBytes,
		DisableCompression:     true, // the answer is stored as sent, and its bound counts the bytes sent
	}
	return &Client{cfg: cfg, transport: tr}
}

// Response is what an endpoint answered.
type Response struct {
	StatusCode int
	Header     http.Header
	Body       []byte // at most MaxResponseBytes
	Latency    time.Duration
}

// Post sends body to url with header, which becomes the request's. An error
// means no HTTP answer came (refused address, DNS, connect, TLS, timeout,
// a header that may not be sent); its message is safe to show to the
// endpoint's owner: an *Error's says only how far the request got, and
// its cause goes to the log. A 3xx is returned as the answer, not followed. Timeout
// bounds the whole request, reading the answer included; ctx ending stops
// it at once.
func (c *Client) Post(ctx context.Context, url string, header http.Header, body []byte) (*Response, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	var p progress
	req, err := newRequest(p.trace(ctx), url, header, body)
	if err != nil {
		return nil, err
	}
	resp, err := c.transport.RoundTrip(req)
	if err != nil {
		fail := p.describe(err)
		c.cfg.Logger.InfoContext(ctx, "webhook endpoint did not answer", "host", req.URL.Host, "reason", fail.Reason, "err", fail.Err.Error())
		return nil, fail
	}
	defer resp.Body.Close()
	out := &Response{StatusCode: resp.StatusCode, Header: resp.Header}
	if resp.ContentLength != 0 {
		out.Body, err = io.ReadAll(io.LimitReader(resp.Body, c.cfg.MaxResponseBytes))
		if err == nil {
			_, _ = io.CopyN(io.Discard, resp.Body, drainBytes)
		}
		// A body cut short does not change the status that arrived.
	}
	out.Latency = time.Since(start)
	return out, nil
}

// newRequest builds the POST of body to raw, an https URL, its query escaped.
func newRequest(ctx context.Context, raw string, header http.Header, body []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, raw, bytes.NewReader(body))
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("bad endpoint URL: %w", err)
	}
	if req.URL.Scheme != "https" || req.URL.Host == "" {
		return nil, errors.New("only https:// endpoints are allowed")
	}
	req.URL.RawQuery = escapeQuery(req.URL.RawQuery)
	req.Header = header
	if req.Header == nil {
		req.Header = http.Header{}
	}
	// A delivery carries its idempotency key (webhook-id), so the transport
	// may send it again when a kept-alive connection turns out closed by
	// the endpoint. A nil entry marks the request so without sending it.
	if _, ok := req.Header["Idempotency-Key"]; !ok {
		req.Header["Idempotency-Key"] = nil
	}
	return req, nil
}

// CloseIdleConnections closes the connections no request is using.
func (c *Client) CloseIdleConnections() { c.transport.CloseIdleConnections() }
