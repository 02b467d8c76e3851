// Package outbound is the one HTTP client for requests to webhook endpoints.
// It speaks https only, checks every address it dials (after DNS resolution,
// so a name that rebinds to a private address is refused at connect time),
// follows no redirects and bounds connect time, total time and bytes read.
// It speaks HTTP/1.1 over its own connection pool (conn.go).
package outbound

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"syscall"
	"time"
)

// ErrForbiddenAddress means the endpoint resolved to an address the policy
// refuses; its text names the setting that allows such addresses.
var ErrForbiddenAddress = errors.New("address not allowed unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true (development only)")

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
	// MaxResponseBytes is how much of an answer is read (default 64 KiB).
	MaxResponseBytes int64
	// MaxConnsPerHost bounds the connections open to one host (0: no
	// bound). Set to the number of requests the caller makes at once, it
	// keeps the transport from dialing (and handshaking) a connection for
	// a request that another one, about to be free, serves first.
	MaxConnsPerHost int
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

// Client posts to endpoints under the policy.
type Client struct {
	cfg    Config
	dialer *net.Dialer
	tls    *tls.Config // each host's is a copy naming it
	pool   pool
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
	dialer := &net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: 30 * time.Second}
	if !cfg.AllowPrivateNetworks {
		dialer.Control = func(_, address string, _ syscall.RawConn) error {
			return CheckAddress(address)
		}
	}
	// The session cache lets a new connection to an endpoint resume an
	// earlier TLS session instead of a full handshake (certificate
	// signature and verification), which bursts of deliveries cause.
	tc := &tls.Config{RootCAs: cfg.RootCAs, MinVersion: tls.VersionTLS12, ClientSessionCache: tls.NewLRUClientSessionCache(1024),
		NextProtos: []string{"http/1.1"}}
	return &Client{cfg: cfg, dialer: dialer, tls: tc, pool: pool{hosts: map[string]*host{}}}
}

// Response is what an endpoint answered.
type Response struct {
	StatusCode int
	Header     http.Header
	Body       []byte // at most MaxResponseBytes
	Latency    time.Duration
}

// Post sends body with header to url over HTTP/1.1. An error means no HTTP
// answer came (refused address, DNS, connect, TLS, timeout); its message is
// safe to show to the endpoint's owner. A 3xx is returned as the answer, not
// followed. Timeout bounds the whole request, waiting for a connection and
// reading the answer included; ctx ending stops it at once.
func (c *Client) Post(ctx context.Context, url string, header http.Header, body []byte) (*Response, error) {
	start := time.Now()
	t, err := parseTarget(url)
	if err != nil {
		return nil, err
	}
	buf := requests.Get().(*[]byte)
	req, err := request((*buf)[:0], t, header, body)
	if err != nil {
		return nil, err
	}
	// Written to the connection before Post returns (crypto/tls copies
	// it into its records), so the buffer can serve another request.
	defer recycle(&requests, buf, req)
	deadline := start.Add(c.cfg.Timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	h := c.enter(t)
	var kept *conn
	held := false
	defer func() { c.leave(h, kept, held, time.Now()) }()
	if err := acquire(ctx, h, deadline); err != nil {
		return nil, describe(err)
	}
	held = true
	// A connection that sat idle may have been closed by the endpoint in
	// the meantime: when it fails before any answer, the request goes once
	// more on a new one, as net/http does for a request with an
	// idempotency key (webhook-id is one).
	for retried := false; ; retried = true {
		var cn *conn
		if !retried { // the retry dials: other idle connections may be as stale
			cn = c.take(h, start)
		}
		reused := cn != nil
		if !reused {
			if cn, err = c.dial(ctx, h, t, deadline); err != nil {
				return nil, describe(err)
			}
		}
		resp, reusable, err := c.do(ctx, cn, req, deadline)
		switch {
		case err == nil:
			resp.Latency = time.Since(start)
			if reusable {
				kept = cn
			} else {
				_ = cn.Close()
			}
			return resp, nil
		case reused && !retried && ctx.Err() == nil && time.Now().Before(deadline) && stale(err):
			_ = cn.Close()
			continue
		default:
			_ = cn.Close()
			if ctx.Err() != nil {
				err = ctx.Err()
			}
			return nil, describe(err)
		}
	}
}

// do runs exchange on cn before deadline, cut short when ctx ends.
func (c *Client) do(ctx context.Context, cn *conn, req []byte, deadline time.Time) (*Response, bool, error) {
	if err := cn.SetDeadline(deadline); err != nil {
		return nil, false, err
	}
	if ctx.Done() != nil {
		// ctx ending spends the deadline; the connection is then not kept.
		stop := context.AfterFunc(ctx, func() { _ = cn.SetDeadline(time.Unix(1, 0)) })
		defer stop()
	}
	resp, reusable, err := exchange(cn, req, c.cfg.MaxResponseBytes)
	if ctx.Err() != nil {
		reusable = false
	}
	return resp, reusable, err
}

// stale reports an error that a connection closed by the other end while
// idle gives before any answer: the write refused, or the connection closed
// or reset before the answer's first byte.
func stale(err error) bool {
	var na noAnswer
	return errors.As(err, &na) && (errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE))
}

// describe turns a transport error into a short message without Go's
// request dump (which would repeat the URL).
func describe(err error) error {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) {
		if inner := ue.Unwrap(); inner != nil && strings.HasPrefix(err.Error(), "Post ") {
			err = inner
		}
	}
	switch {
	case errors.Is(err, ErrForbiddenAddress):
		return fmt.Errorf("endpoint refused: %w", err)
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		return errors.New("timed out waiting for the endpoint")
	}
	return err
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// CheckAddress refuses a dialed "host:port" whose host is not a public address.
func CheckAddress(address string) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("%w: %q", ErrForbiddenAddress, address)
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("%w: %q is not an IP address", ErrForbiddenAddress, host)
	}
	if why := Forbidden(ip); why != "" {
		return fmt.Errorf("%w: %s is %s", ErrForbiddenAddress, ip, why)
	}
	return nil
}

// blocked are the ranges no delivery may reach, with why.
var blocked = []struct {
	prefix netip.Prefix
	why    string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "an unspecified (this-network) address"},
	{netip.MustParsePrefix("10.0.0.0/8"), "a private (RFC 1918) address"},
	{netip.MustParsePrefix("100.64.0.0/10"), "a carrier-grade NAT address"},
	{netip.MustParsePrefix("127.0.0.0/8"), "a loopback address"},
	{netip.MustParsePrefix("169.254.0.0/16"), "a link-local or cloud metadata address"},
	{netip.MustParsePrefix("172.16.0.0/12"), "a private (RFC 1918) address"},
	{netip.MustParsePrefix("192.0.0.0/24"), "an IETF protocol assignment address"},
	{netip.MustParsePrefix("192.0.2.0/24"), "a documentation address"},
	{netip.MustParsePrefix("192.88.99.0/24"), "a 6to4 relay address"},
	{netip.MustParsePrefix("192.168.0.0/16"), "a private (RFC 1918) address"},
	{netip.MustParsePrefix("198.18.0.0/15"), "a benchmarking address"},
	{netip.MustParsePrefix("198.51.100.0/24"), "a documentation address"},
	{netip.MustParsePrefix("203.0.113.0/24"), "a documentation address"},
	{netip.MustParsePrefix("224.0.0.0/4"), "a multicast address"},
	{netip.MustParsePrefix("240.0.0.0/4"), "a reserved address"},
	{netip.MustParsePrefix("::/128"), "an unspecified address"},
	{netip.MustParsePrefix("::1/128"), "a loopback address"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "a local-use NAT64 address"},
	{netip.MustParsePrefix("100::/64"), "a discard-only address"},
	{netip.MustParsePrefix("2001:db8::/32"), "a documentation address"},
	{netip.MustParsePrefix("3fff::/20"), "a documentation address"},
	{netip.MustParsePrefix("fc00::/7"), "a unique-local address"},
	{netip.MustParsePrefix("fe80::/10"), "a link-local address"},
	{netip.MustParsePrefix("fec0::/10"), "a site-local address"},
	{netip.MustParsePrefix("ff00::/8"), "a multicast address"},
	{netip.MustParsePrefix("fd00:ec2::254/128"), "a cloud metadata address"},
}

// nat64 is the well-known NAT64 prefix: its last 32 bits are an IPv4
// address, which is what the check must judge.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// Forbidden says why ip may not be dialed, or "" when it may. IPv4-mapped
// (::ffff:a.b.c.d), IPv4-compatible and NAT64 forms are judged by the IPv4
// address they carry.
func Forbidden(ip netip.Addr) string {
	ip = ip.WithZone("")
	if ip.Is4In6() {
		ip = ip.Unmap()
	}
	if ip.Is6() {
		b := ip.As16()
		if nat64.Contains(ip) || isCompat(b) {
			return Forbidden(netip.AddrFrom4([4]byte(b[12:])))
		}
	}
	for _, r := range blocked {
		if r.prefix.Contains(ip) {
			return r.why
		}
	}
	if ip.Is4() && ip == netip.AddrFrom4([4]byte{255, 255, 255, 255}) {
		return "a broadcast address"
	}
	return ""
}

// isCompat reports a deprecated IPv4-compatible address (::a.b.c.d).
func isCompat(b [16]byte) bool {
	for _, x := range b[:12] {
		if x != 0 {
			return false
		}
	}
	return true
}
