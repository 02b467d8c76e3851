package outbound

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
)

// ErrForbiddenAddress means the endpoint resolved to an address the policy
// refuses; its text names the setting that allows such addresses.
var ErrForbiddenAddress = errors.New("address not allowed unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true (development only)")

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
