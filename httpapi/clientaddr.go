package httpapi

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// clientAddress is a request's client address, resolved once as it arrives
// (requestLog) for the budget of failed authentications and the request
// log: the peer's address, or, when the peer is a trusted proxy, the
// rightmost X-Forwarded-For entry that is not one (the hop the last trusted
// proxy saw). Entries left of it are whatever the client chose to send, and
// never count.
func clientAddress(r *http.Request, trusted []netip.Prefix) string {
	return forwardedFor(peerAddr(r), r.Header.Values("X-Forwarded-For"), trusted)
}

// clientAddr is the request's client address (clientAddress), or the peer's
// outside the edge's chain.
func clientAddr(r *http.Request) string {
	if ri, ok := r.Context().Value(requestInfoKey{}).(*requestInfo); ok && ri.client != "" {
		return ri.client
	}
	return peerAddr(r)
}

// peerAddr is the IP address of the connection's peer.
func peerAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// forwardedFor walks the X-Forwarded-For hops right to left from peer while
// each hop is a trusted proxy, and returns the first that is not (or the
// last one it could read).
func forwardedFor(peer string, headers []string, trusted []netip.Prefix) string {
	client := peer
	if !isTrusted(client, trusted) {
		return client
	}
	for i := len(headers) - 1; i >= 0; i-- {
		hops := strings.Split(headers[i], ",")
		for j := len(hops) - 1; j >= 0; j-- {
			a, ok := parseHop(hops[j])
			if !ok {
				return client
			}
			client = a.String()
			if !isTrusted(client, trusted) {
				return client
			}
		}
	}
	return client
}

// parseHop reads one X-Forwarded-For entry: an IP address, possibly with a
// port (proxies differ).
func parseHop(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap().WithZone(""), true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap().WithZone(""), true
	}
	return netip.Addr{}, false
}

func isTrusted(addr string, trusted []netip.Prefix) bool {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return false
	}
	a = a.Unmap().WithZone("")
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// addrBucket is the key of a client address's budget of failed
// authentications: an IPv4 address itself, an IPv6 address its /64, which
// one subscriber usually holds whole (rotating through it must not reset the
// budget).
func addrBucket(addr string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return a.String()
	}
	p, err := a.Prefix(64)
	if err != nil {
		return addr
	}
	return p.String()
}
