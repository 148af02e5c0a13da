package apps

import (
	"fmt"
	"net"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// blockedRange is a range of addresses Hub does not reach unless the
// operator allows it, with what it is, for the error message.
type blockedRange struct {
	prefix netip.Prefix
	what   string
}

// blockedRanges are the addresses that lead into the operator's own network
// or nowhere useful: Hub must not become a way to reach them. IPv4-mapped
// IPv6 addresses are checked as the IPv4 address they carry.
var blockedRanges = func() []blockedRange {
	p := netip.MustParsePrefix
	return []blockedRange{
		{p("0.0.0.0/8"), "an unspecified (this-network) address"},
		{p("10.0.0.0/8"), "a private address"},
		{p("100.64.0.0/10"), "a carrier-grade NAT (shared) address"},
		{p("127.0.0.0/8"), "a loopback address"},
		{p("169.254.0.0/16"), "a link-local address"},
		{p("172.16.0.0/12"), "a private address"},
		{p("192.0.0.0/24"), "an IETF protocol address"},
		{p("192.168.0.0/16"), "a private address"},
		{p("198.18.0.0/15"), "a benchmarking address"},
		{p("224.0.0.0/4"), "a multicast address"},
		{p("240.0.0.0/4"), "a reserved address"}, // includes 255.255.255.255, broadcast
		{p("::/128"), "an unspecified address"},
		{p("::1/128"), "a loopback address"},
		{p("::/96"), "an IPv4-compatible address"}, // deprecated; reaches IPv4 by another name
		{p("64:ff9b:1::/48"), "a local-use NAT64 address"},
		{p("fc00::/7"), "a unique local (private) address"},
		{p("fe80::/10"), "a link-local address"},
		{p("fec0::/10"), "a site-local address"},
		{p("ff00::/8"), "a multicast address"},
	}
}()

// nat64 is the well-known NAT64 prefix: its addresses reach the IPv4
// address in their last four bytes, so they are checked as that address.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// blockedReason says why ip may not be reached ("a private address"), or ""
// when it is a public address.
func blockedReason(ip netip.Addr) string {
	ip = ip.WithZone("").Unmap()
	if !ip.IsValid() {
		return "not an address"
	}
	if nat64.Contains(ip) {
		b := ip.As16()
		return blockedReason(netip.AddrFrom4([4]byte(b[12:])))
	}
	for _, r := range blockedRanges {
		if r.prefix.Contains(ip) {
			return r.what
		}
	}
	return ""
}

// allowList is what the operator lets Hub reach although it is blocked.
type allowList struct {
	prefixes  []netip.Prefix
	addrPorts map[netip.AddrPort]bool
	names     map[string]bool // lower-case "name" (any port) or "name:port"
}

// parseAllowList reads entries like "10.1.0.0/16", "192.168.1.5",
// "127.0.0.1:8080", "[::1]:8080", "hooks.internal" or "hooks.internal:8443".
func parseAllowList(entries []string) (allowList, error) {
	a := allowList{addrPorts: map[netip.AddrPort]bool{}, names: map[string]bool{}}
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		if p, err := netip.ParsePrefix(e); err == nil {
			a.prefixes = append(a.prefixes, p.Masked())
			continue
		}
		if ip, err := netip.ParseAddr(e); err == nil {
			a.prefixes = append(a.prefixes, netip.PrefixFrom(ip.Unmap(), ip.Unmap().BitLen()))
			continue
		}
		if ap, err := netip.ParseAddrPort(e); err == nil {
			a.addrPorts[netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())] = true
			continue
		}
		bad := fmt.Errorf("allowlist entry %q: want a CIDR, an address or a host name, each with an optional :port", e)
		host, port := e, ""
		if strings.Contains(e, ":") {
			h, p, err := net.SplitHostPort(e)
			if n, perr := strconv.ParseUint(p, 10, 16); err != nil || perr != nil || n == 0 {
				return allowList{}, bad
			}
			host, port = h, p
		}
		host = strings.TrimSuffix(strings.ToLower(host), ".")
		if !hostName.MatchString(host) {
			return allowList{}, bad
		}
		if port != "" {
			host = net.JoinHostPort(host, port)
		}
		a.names[host] = true
	}
	return a, nil
}

// hostName matches a lower-cased host name of an allowlist entry.
var hostName = regexp.MustCompile(`^[a-z0-9._-]{1,253}$`)

// allowsHost tells whether the host and port a URL names are allowed by
// name, whatever they resolve to.
func (a allowList) allowsHost(hostPort string) bool {
	host, port, err := net.SplitHostPort(hostPort)
	if err != nil {
		return false
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	return a.names[host] || a.names[net.JoinHostPort(host, port)]
}

// allowsAddr tells whether a resolved address is allowed.
func (a allowList) allowsAddr(ap netip.AddrPort) bool {
	ip := ap.Addr().WithZone("").Unmap()
	return a.addrPorts[netip.AddrPortFrom(ip, ap.Port())] ||
		slices.ContainsFunc(a.prefixes, func(p netip.Prefix) bool { return p.Contains(ip) })
}

// blockedError is the dialer's refusal of an address; nothing was sent.
type blockedError struct {
	addr netip.Addr
	what string
}

func (e *blockedError) Error() string {
	return fmt.Sprintf("%s is %s, which Hub does not connect to", e.addr, e.what)
}

// checkDial checks the "ip:port" the dialer is about to connect to;
// hostAllowed says the URL's host was allowed by name.
func (a allowList) checkDial(network, address string, hostAllowed bool) error {
	if network != "tcp" && network != "tcp4" && network != "tcp6" {
		return fmt.Errorf("network %s is not used for connected apps", network)
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &blockedError{what: "not an address"}
	}
	if hostAllowed || a.allowsAddr(ap) {
		return nil
	}
	if why := blockedReason(ap.Addr()); why != "" {
		return &blockedError{addr: ap.Addr().WithZone("").Unmap(), what: why}
	}
	return nil
}
