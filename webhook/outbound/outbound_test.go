package outbound_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenttrust/service/internal/webhooktest"
	"github.com/agenttrust/service/webhook/outbound"
)

func TestForbidden(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ip      string
		refused bool
	}{
		{"127.0.0.1", true}, {"127.255.0.9", true}, {"::1", true},
		{"10.0.0.1", true}, {"172.16.5.4", true}, {"172.31.255.255", true}, {"192.168.0.1", true},
		{"169.254.169.254", true}, {"fe80::1", true}, {"fd00:ec2::254", true},
		{"100.64.0.1", true}, {"100.127.255.254", true},
		{"fc00::1", true}, {"fd12:3456::1", true},
		{"224.0.0.1", true}, {"ff02::1", true}, {"239.255.255.250", true},
		{"0.0.0.0", true}, {"::", true}, {"255.255.255.255", true},
		{"192.0.2.10", true}, {"198.51.100.7", true}, {"203.0.113.1", true}, {"2001:db8::1", true},
		{"::ffff:127.0.0.1", true}, {"::ffff:10.0.0.1", true}, {"::ffff:169.254.169.254", true},
		{"64:ff9b::7f00:1", true}, {"64:ff9b::a9fe:a9fe", true}, {"::127.0.0.1", true},
		{"93.184.216.34", false}, {"8.8.8.8", false}, {"172.32.0.1", false}, {"100.128.0.1", false},
		{"2606:4700:4700::1111", false}, {"::ffff:8.8.8.8", false}, {"64:ff9b::808:808", false},
		// SIIT (::ffff:0:a.b.c.d) by its last 32 bits.
		{"::ffff:0:7f00:1", true}, {"::ffff:0:a00:1", true}, {"::ffff:0:a9fe:a9fe", true}, {"::ffff:0:808:808", false},
		// 6to4 (2002:AABB:CCDD::) by bits 16-47.
		{"2002:7f00:1::1", true}, {"2002:a00:1:5::9", true}, {"2002:a9fe:a9fe::", true}, {"2002:c0a8:101::1", true},
		{"2002:c058:6301::1", true}, {"2002::1", true}, {"2002:808:808::1", false}, {"2002:5db8:d822:1::1", false},
		// Teredo (2001:0:SERVER:flags:port:~CLIENT) by both embedded addresses.
		{"2001:0:808:808:0:0:80ff:fffe", true},       // client 127.0.0.1
		{"2001:0:808:808:8000:f227:f5ff:fffe", true}, // client 10.0.0.1
		{"2001:0:808:808::5601:5601", true},          // client 169.254.169.254
		{"2001:0:a00:1::f7f7:fbfb", true},            // server 10.0.0.1
		{"2001:0:7f00:1::f7f7:fbfb", true},           // server 127.0.0.1
		{"2001:0:808:808::f7f7:fbfb", false},         // server 8.8.8.8, client 8.8.4.4
		{"2001:db8::7f00:1", true},                   // documentation, not Teredo
	} {
		why := outbound.Forbidden(netip.MustParseAddr(tc.ip))
		if (why != "") != tc.refused {
			t.Errorf("Forbidden(%s) = %q, want refused=%v", tc.ip, why, tc.refused)
		}
	}
}

func TestClientChecksAddressesAtDialTime(t *testing.T) {
	t.Parallel()
	rcv := webhooktest.New(t)
	port := rcv.Server.URL[strings.LastIndex(rcv.Server.URL, ":"):]
	strict := outbound.New(outbound.Config{RootCAs: rcv.Roots(), Timeout: 2 * time.Second})
	for _, url := range []string{rcv.URL(), "https://localhost" + port + "/hook"} {
		_, err := strict.Post(context.Background(), url, http.Header{}, []byte("{}"))
		if err == nil || !strings.Contains(err.Error(), "not allowed") {
			t.Fatalf("strict client posting to %s: %v, want a refusal", url, err)
		}
	}
	if _, err := strict.Post(context.Background(), "http://93.184.216.34/", http.Header{}, nil); err == nil {
		t.Fatal("plain http accepted")
	}
	if n := len(rcv.Requests()); n != 0 {
		t.Fatalf("the loopback receiver got %d requests", n)
	}

	relaxed := outbound.New(outbound.Config{AllowPrivateNetworks: true, RootCAs: rcv.Roots(), Timeout: 2 * time.Second, MaxResponseBytes: 10})
	rcv.Answer(func(webhooktest.Request) webhooktest.Answer {
		return webhooktest.Answer{Status: 307, Header: map[string]string{"Location": "https://127.0.0.1" + port + "/elsewhere"}, Body: strings.Repeat("x", 100)}
	})
	resp, err := relaxed.Post(context.Background(), rcv.URL(), http.Header{}, []byte("{}"))
	if err != nil || resp.StatusCode != 307 || len(resp.Body) != 10 || len(rcv.Requests()) != 1 {
		t.Fatalf("redirect: %v %+v, %d requests: want the 307 answered, body cut to 10 bytes, not followed", err, resp, len(rcv.Requests()))
	}

	untrusted := outbound.New(outbound.Config{AllowPrivateNetworks: true, Timeout: 2 * time.Second})
	if _, err := untrusted.Post(context.Background(), rcv.URL(), http.Header{}, nil); err == nil {
		t.Fatal("a self-signed receiver was trusted without WEBHOOK_CA_FILE")
	}

	rcv.Answer(func(webhooktest.Request) webhooktest.Answer {
		return webhooktest.Answer{Status: 200, Delay: 5 * time.Second}
	})
	slow := outbound.New(outbound.Config{AllowPrivateNetworks: true, RootCAs: rcv.Roots(), Timeout: 300 * time.Millisecond})
	start := time.Now()
	if _, err := slow.Post(context.Background(), rcv.URL(), http.Header{}, nil); err == nil || err.Error() != "timed out waiting for the endpoint" || time.Since(start) > 2*time.Second {
		t.Fatalf("hung endpoint: %v after %s, want a timeout near 300ms", err, time.Since(start))
	}
}

// Answers with a body leave the connection reusable: the request's deadline,
// cancelled once the answer is read, does not close it.
func TestClientReusesConnections(t *testing.T) {
	t.Parallel()
	rcv := webhooktest.New(t)
	rcv.Answer(func(webhooktest.Request) webhooktest.Answer {
		return webhooktest.Answer{Status: 200, Body: strings.Repeat("ok", 100)}
	})
	c := outbound.New(outbound.Config{AllowPrivateNetworks: true, RootCAs: rcv.Roots(), Timeout: 5 * time.Second})
	for i := range 20 {
		resp, err := c.Post(context.Background(), rcv.URL(), http.Header{}, []byte("{}"))
		if err != nil || resp.StatusCode != 200 || len(resp.Body) != 200 {
			t.Fatalf("post %d: %v %+v", i, err, resp)
		}
	}
	if n := rcv.Conns(); n != 1 {
		t.Fatalf("20 posts one after the other opened %d connections, want 1", n)
	}
}

// TestClientBoundsConnections: with MaxConnsPerHost, concurrent posts to one
// host share that many connections and wait for one to be free instead of
// dialing (and handshaking) more; without it, each concurrent post dials.
func TestClientBoundsConnections(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ max, atLeast, atMost int }{{0, 4, 8}, {3, 1, 3}} {
		rcv := webhooktest.New(t)
		rcv.Answer(func(webhooktest.Request) webhooktest.Answer {
			return webhooktest.Answer{Status: 204, Delay: 50 * time.Millisecond}
		})
		c := outbound.New(outbound.Config{AllowPrivateNetworks: true, RootCAs: rcv.Roots(), Timeout: 5 * time.Second, MaxConnsPerHost: tc.max})
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				if resp, err := c.Post(context.Background(), rcv.URL(), http.Header{}, []byte("{}")); err != nil || resp.StatusCode != 204 {
					t.Errorf("post: %v %+v", err, resp)
				}
			})
		}
		wg.Wait()
		if n := rcv.Conns(); n < tc.atLeast || n > tc.atMost {
			t.Errorf("MaxConnsPerHost %d: 8 concurrent posts opened %d connections, want %d to %d", tc.max, n, tc.atLeast, tc.atMost)
		}
		if got := len(rcv.Requests()); got != 8 {
			t.Errorf("MaxConnsPerHost %d: the receiver got %d requests, want 8", tc.max, got)
		}
	}
}

// A request that got no answer says how far it got; what went wrong goes
// to the log only.
func TestClientErrorsSayHowFarTheyGot(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "https://" + ln.Addr().String() + "/"
	ln.Close()
	var logged bytes.Buffer
	c := outbound.New(outbound.Config{AllowPrivateNetworks: true, Timeout: 2 * time.Second,
		Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	_, err = c.Post(context.Background(), closed, http.Header{}, nil)
	var oe *outbound.Error
	if !errors.As(err, &oe) || err.Error() != outbound.ReasonUnreachable {
		t.Fatalf("closed port: %v", err)
	}
	if !strings.Contains(logged.String(), "connection refused") || !strings.Contains(logged.String(), "reason=\"not reachable\"") {
		t.Fatalf("the log holds %q, want the dial error", logged.String())
	}
	rcv := webhooktest.New(t)
	strict := outbound.New(outbound.Config{RootCAs: rcv.Roots(), Timeout: 2 * time.Second, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if _, err := strict.Post(context.Background(), rcv.URL(), http.Header{}, nil); err == nil || err.Error() != outbound.ReasonForbidden ||
		!errors.Is(err, outbound.ErrForbiddenAddress) {
		t.Fatalf("loopback under the strict policy: %v", err)
	}
}
