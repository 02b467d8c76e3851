package outbound

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
)

// ErrForbiddenAddress means the endpoint resolved to an address the policy
// refuses; its text names the setting that allows such addresses.
var ErrForbiddenAddress = errors.New(forbiddenText)

const forbiddenText = "address not allowed unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true (development only)"

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

// The IPv6 ranges whose addresses carry an IPv4 address, which is where a
// packet to them ends up and so what the check must judge.
var (
	// nat64 (RFC 6052) and siit (RFC 2765, ::ffff:0:a.b.c.d) carry it in
	// their last 32 bits.
	nat64 = netip.MustParsePrefix("64:ff9b::/96")
	siit  = netip.MustParsePrefix("::ffff:0:0:0/96")
	// sixToFour (RFC 3056) carries it in bits 16-47.
	sixToFour = netip.MustParsePrefix("2002::/16")
	// teredo (RFC 4380) carries its server's in bits 32-63 and its
	// client's, each bit inverted, in the last 32.
	teredo = netip.MustParsePrefix("2001::/32")
)

// Forbidden says why ip may not be dialed, or "" when it may. IPv4-mapped
// (::ffff:a.b.c.d), IPv4-compatible, NAT64, SIIT, 6to4 and Teredo forms are
// judged by the IPv4 addresses they carry.
func Forbidden(ip netip.Addr) string {
	ip = ip.WithZone("")
	if ip.Is4In6() {
		ip = ip.Unmap()
	}
	if ip.Is6() {
		if why := embedded(ip); why != "" {
			return why
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

// embedded judges the IPv4 addresses an IPv6 address of a translation or
// tunnel range carries: "" when it carries none, or only public ones.
func embedded(ip netip.Addr) string {
	b := ip.As16()
	v4 := func(at int) netip.Addr { return netip.AddrFrom4([4]byte(b[at : at+4])) }
	switch {
	case nat64.Contains(ip), siit.Contains(ip), isCompat(b):
		return Forbidden(v4(12))
	case sixToFour.Contains(ip):
		if why := Forbidden(v4(2)); why != "" {
			return "a 6to4 address carrying " + why
		}
	case teredo.Contains(ip):
		if why := Forbidden(v4(4)); why != "" {
			return "a Teredo address whose server is " + why
		}
		client := [4]byte(b[12:])
		for i := range client {
			client[i] ^= 0xff
		}
		if why := Forbidden(netip.AddrFrom4(client)); why != "" {
			return "a Teredo address whose client is " + why
		}
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
