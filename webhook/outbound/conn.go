package outbound

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"
)

// The client speaks HTTP/1.1 over its own pool of TLS connections, each
// request written and its answer read in the caller's goroutine: net/http's
// transport hands every request to a connection's writer goroutine and its
// answer back from a reader goroutine, which cost a delivery more CPU than
// the request itself (docs/webhooks.md, "The sender").

// idleTimeout is how long an unused connection is kept.
const idleTimeout = 90 * time.Second

// maxIdlePerHost bounds the idle connections kept to one host when
// MaxConnsPerHost does not.
const maxIdlePerHost = 128

// pool holds the open connections, by host:port.
type pool struct {
	mu    sync.Mutex
	hosts map[string]*host
	swept time.Time
}

// host is one host:port's connections.
type host struct {
	idle  []*conn       // the most recently used last
	slots chan struct{} // a slot per request in flight; nil: unbounded
	tls   *tls.Config
	users int // requests holding or waiting for a slot, so a sweep keeps the host
}

// conn is one connection.
type conn struct {
	net.Conn
	budget budget // what r may still read for the current answer
	r      *bufio.Reader
	used   time.Time
}

// budget reads from a connection until n bytes are spent, then fails.
type budget struct {
	conn net.Conn
	n    int64
}

// errTooLarge ends an answer over the bytes a request may read.
var errTooLarge = errors.New("the answer is too large")

func (b *budget) Read(p []byte) (int, error) {
	if b.n <= 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > b.n {
		p = p[:b.n]
	}
	n, err := b.conn.Read(p)
	b.n -= int64(n)
	return n, err
}

// maxHeaderBytes bounds what an answer's status line and headers may take
// (net/http's server allows 1 MB of request headers).
const maxHeaderBytes = 1 << 20

// target is what a request needs of its URL.
type target struct {
	addr, serverName, hostHeader, path string
}

func parseTarget(raw string) (target, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return target{}, fmt.Errorf("bad endpoint URL: %w", err)
	}
	if u.Scheme != "https" || u.Host == "" {
		return target{}, errors.New("only https:// endpoints are allowed")
	}
	port := u.Port()
	if port == "" {
		port = "443"
	}
	return target{addr: net.JoinHostPort(u.Hostname(), port), serverName: u.Hostname(), hostHeader: u.Host, path: u.RequestURI()}, nil
}

// enter returns t's host, counted as in use until leave.
func (c *Client) enter(t target) *host {
	c.pool.mu.Lock()
	defer c.pool.mu.Unlock()
	h := c.pool.hosts[t.addr]
	if h == nil {
		cfg := c.tls.Clone()
		cfg.ServerName = t.serverName
		h = &host{tls: cfg}
		if c.cfg.MaxConnsPerHost > 0 {
			h.slots = make(chan struct{}, c.cfg.MaxConnsPerHost)
		}
		c.pool.hosts[t.addr] = h
	}
	h.users++
	return h
}

// take returns an idle connection to h that has not outlived idleTimeout, or nil.
func (c *Client) take(h *host, now time.Time) *conn {
	c.pool.mu.Lock()
	defer c.pool.mu.Unlock()
	for len(h.idle) > 0 {
		cn := h.idle[len(h.idle)-1]
		h.idle = h.idle[:len(h.idle)-1]
		// Bytes that arrived unasked while it was idle make it unusable.
		if now.Sub(cn.used) < idleTimeout && cn.r.Buffered() == 0 {
			return cn
		}
		_ = cn.Close()
	}
	return nil
}

// leave gives h back, with cn (nil: none) kept for the next request, and
// then the request's slot when it held one (slot): a request that takes the
// slot finds cn idle instead of dialing another connection.
func (c *Client) leave(h *host, cn *conn, slot bool, now time.Time) {
	c.pool.mu.Lock()
	defer c.pool.mu.Unlock()
	h.users--
	if cn != nil {
		if len(h.idle) < max(c.cfg.MaxConnsPerHost, maxIdlePerHost) {
			cn.used = now
			h.idle = append(h.idle, cn)
		} else {
			_ = cn.Close()
		}
	}
	if slot && h.slots != nil {
		<-h.slots
	}
	if now.Sub(c.pool.swept) > idleTimeout/2 {
		c.pool.swept = now
		c.sweepLocked(now, idleTimeout)
	}
}

// sweepLocked closes the connections unused for longer than age, and
// forgets the hosts left with none and no request.
func (c *Client) sweepLocked(now time.Time, age time.Duration) {
	for addr, h := range c.pool.hosts {
		h.idle = slices.DeleteFunc(h.idle, func(cn *conn) bool {
			if now.Sub(cn.used) >= age {
				_ = cn.Close()
				return true
			}
			return false
		})
		if len(h.idle) == 0 && h.users == 0 {
			delete(c.pool.hosts, addr)
		}
	}
}

// CloseIdleConnections closes the connections no request is using.
func (c *Client) CloseIdleConnections() {
	c.pool.mu.Lock()
	defer c.pool.mu.Unlock()
	c.sweepLocked(time.Now(), -1)
}

// acquire waits for one of h's slots until deadline or ctx ends.
func acquire(ctx context.Context, h *host, deadline time.Time) error {
	if h.slots == nil {
		return nil
	}
	select {
	case h.slots <- struct{}{}:
		return nil
	default:
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case h.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return os.ErrDeadlineExceeded
	}
}

// dial opens a TLS connection to t, checked by the dialer's policy.
func (c *Client) dial(ctx context.Context, h *host, t target, deadline time.Time) (*conn, error) {
	if d := time.Now().Add(c.cfg.ConnectTimeout); d.Before(deadline) {
		deadline = d
	}
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	raw, err := c.dialer.DialContext(ctx, "tcp", t.addr)
	if err != nil {
		return nil, err
	}
	tc := tls.Client(raw, h.tls)
	if err := tc.HandshakeContext(ctx); err != nil {
		_ = raw.Close()
		return nil, err
	}
	cn := &conn{Conn: tc, budget: budget{conn: tc}}
	cn.r = bufio.NewReaderSize(&cn.budget, 4<<10)
	return cn, nil
}

// request appends the request line, headers and body to b, as one buffer.
func request(b []byte, t target, header http.Header, body []byte) ([]byte, error) {
	n := len(t.path) + len(t.hostHeader) + len(body) + 64
	for k, vs := range header {
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}
	b = slices.Grow(b, n)
	b = append(b, "POST "...)
	b = append(b, t.path...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, t.hostHeader...)
	b = append(b, "\r\nContent-Length: "...)
	b = strconv.AppendInt(b, int64(len(body)), 10)
	b = append(b, "\r\n"...)
	for k, vs := range header {
		if !validHeader(k, true) {
			return nil, fmt.Errorf("invalid header name %q", k)
		}
		for _, v := range vs {
			if !validHeader(v, false) {
				return nil, fmt.Errorf("invalid value for header %s", k)
			}
			b = append(b, k...)
			b = append(b, ": "...)
			b = append(b, v...)
			b = append(b, "\r\n"...)
		}
	}
	b = append(b, "\r\n"...)
	return append(b, body...), nil
}

// requests and bodies pool the buffers requests and delivery bodies are
// written in: each lives only until its request is written, and a delivery
// would otherwise leave two behind for the collector.
var requests, bodies = sync.Pool{New: func() any { return new([]byte) }}, sync.Pool{New: func() any { return new([]byte) }}

// maxPooled is the largest buffer kept for reuse: one that grew past it
// for an unusual request is left to the collector.
const maxPooled = 64 << 10

// recycle puts buf back in pool holding b, the buffer it last grew to.
func recycle(pool *sync.Pool, buf *[]byte, b []byte) {
	if cap(b) <= maxPooled {
		*buf = b[:0]
		pool.Put(buf)
	}
}

// validHeader reports whether s may be sent as a header name (name) or
// value: no control characters (a value may hold tabs), and a name neither
// empty nor holding a colon or a space.
func validHeader(s string, name bool) bool {
	if name && s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\t' && !name:
		case c < 0x20 || c == 0x7f:
			return false
		case name && (c == ':' || c == ' '):
			return false
		}
	}
	return true
}

// noAnswer is an error that came before any byte of the answer.
type noAnswer struct{ err error }

func (e noAnswer) Error() string { return e.err.Error() }
func (e noAnswer) Unwrap() error { return e.err }

// exchange sends req on cn and reads the answer, at most max bytes of its
// body. reusable says the answer was read to its end and cn may serve
// another request.
func exchange(cn *conn, req []byte, max int64) (resp *Response, reusable bool, err error) {
	// First the status line and headers (interim answers included); the
	// reader has buffered none of it yet (take keeps no connection with
	// bytes left over).
	cn.budget.n = maxHeaderBytes
	if _, err := cn.Write(req); err != nil {
		return nil, false, noAnswer{err}
	}
	// The first byte of the answer apart: an error before it (io.EOF: the
	// connection was closed) means no answer at all, which ReadResponse
	// would report as io.ErrUnexpectedEOF.
	if _, err := cn.r.Peek(1); err != nil {
		return nil, false, noAnswer{err}
	}
	var r *http.Response
	for {
		r, err = http.ReadResponse(cn.r, nil)
		if err != nil {
			return nil, false, err
		}
		// An interim answer (100 Continue, 103 Early Hints) precedes the real one.
		if r.StatusCode < 100 || r.StatusCode >= 200 || r.StatusCode == http.StatusSwitchingProtocols {
			break
		}
	}
	// Then the body's first max bytes and a remainder to drain, with room
	// for a chunked body's framing.
	cn.budget.n += 2*max + 8<<10
	resp = &Response{StatusCode: r.StatusCode, Header: r.Header}
	if r.ContentLength != 0 {
		resp.Body, err = io.ReadAll(io.LimitReader(r.Body, max))
		if err != nil {
			// The status arrived; a body cut short does not change it.
			return resp, false, nil
		}
	}
	// A small remainder is read so the connection can serve again.
	_, err = io.CopyN(io.Discard, r.Body, 4<<10)
	reusable = errors.Is(err, io.EOF) && !r.Close && r.StatusCode != http.StatusSwitchingProtocols
	_ = r.Body.Close()
	return resp, reusable, nil
}
