package outbound_test

import (
	"context"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenttrust/service/webhook/outbound"
	"github.com/agenttrust/service/webhook/webhooktest"
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
