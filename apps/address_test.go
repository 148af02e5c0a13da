package apps

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBlockedReason(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ip   string
		what string // "" for a public address
	}{
		{"0.0.0.0", "an unspecified (this-network) address"},
		{"0.1.2.3", "an unspecified (this-network) address"},
		{"10.0.0.1", "a private address"},
		{"10.255.255.255", "a private address"},
		{"172.16.0.1", "a private address"},
		{"172.31.255.254", "a private address"},
		{"192.168.1.1", "a private address"},
		{"127.0.0.1", "a loopback address"},
		{"127.1.2.3", "a loopback address"},
		{"169.254.169.254", "a link-local address"}, // cloud metadata
		{"100.64.0.1", "a carrier-grade NAT (shared) address"},
		{"100.127.255.254", "a carrier-grade NAT (shared) address"},
		{"224.0.0.1", "a multicast address"},
		{"239.255.255.250", "a multicast address"},
		{"240.0.0.1", "a reserved address"},
		{"255.255.255.255", "a reserved address"},
		{"192.0.0.8", "an IETF protocol address"},
		{"198.18.0.1", "a benchmarking address"},
		{"::", "an unspecified address"},
		{"::1", "a loopback address"},
		{"fc00::1", "a unique local (private) address"},
		{"fd12:3456:789a::1", "a unique local (private) address"},
		{"fe80::1", "a link-local address"},
		{"fe80::1%eth0", "a link-local address"},
		{"fec0::1", "a site-local address"},
		{"ff02::1", "a multicast address"},
		{"ff05::2", "a multicast address"},
		{"::ffff:127.0.0.1", "a loopback address"}, // IPv4-mapped
		{"::ffff:10.0.0.1", "a private address"},
		{"::ffff:169.254.169.254", "a link-local address"},
		{"::127.0.0.1", "an IPv4-compatible address"},
		{"64:ff9b::10.0.0.1", "a private address"}, // NAT64 carrying a private address
		{"64:ff9b::127.0.0.1", "a loopback address"},
		{"64:ff9b:1::1", "a local-use NAT64 address"},

		{"8.8.8.8", ""},
		{"1.1.1.1", ""},
		{"93.184.215.14", ""},
		{"11.0.0.1", ""},
		{"100.63.255.255", ""}, // just below CGNAT
		{"100.128.0.0", ""},    // just above it
		{"172.15.255.255", ""},
		{"172.32.0.0", ""},
		{"192.169.0.1", ""},
		{"223.255.255.255", ""},
		{"2606:4700:4700::1111", ""},
		{"2001:4860:4860::8888", ""},
		{"::ffff:8.8.8.8", ""},
		{"64:ff9b::8.8.8.8", ""}, // NAT64 carrying a public address
	} {
		t.Run(tc.ip, func(t *testing.T) {
			require.Equal(t, tc.what, blockedReason(netip.MustParseAddr(tc.ip)))
		})
	}
}

func TestParseAllowList(t *testing.T) {
	t.Parallel()
	a, err := parseAllowList([]string{" 10.20.0.0/16 ", "192.168.1.5", "127.0.0.1:8080", "[::1]:9090", "Hooks.Internal.", "relay.internal:8443", "fd00::/8", ""})
	require.NoError(t, err)
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"10.20.3.4:80", true},
		{"10.21.0.1:80", false},
		{"192.168.1.5:443", true},
		{"192.168.1.6:443", false},
		{"127.0.0.1:8080", true},
		{"127.0.0.1:8081", false},
		{"[::1]:9090", true},
		{"[::1]:9091", false},
		{"[fd00::5]:80", true},
		{"[::ffff:10.20.0.9]:80", true}, // mapped addresses are matched as IPv4
	} {
		err := a.checkDial("tcp", tc.addr, false)
		if tc.ok {
			require.NoError(t, err, tc.addr)
		} else {
			require.Error(t, err, tc.addr)
			require.IsType(t, &blockedError{}, err)
		}
	}
	require.True(t, a.allowsHost("hooks.internal:80"), "a name without a port allows every port")
	require.True(t, a.allowsHost("HOOKS.internal.:443"))
	require.True(t, a.allowsHost("relay.internal:8443"))
	require.False(t, a.allowsHost("relay.internal:8444"))
	require.False(t, a.allowsHost("evil.internal:80"))
	require.NoError(t, a.checkDial("tcp", "127.0.0.1:1", true), "a host allowed by name may resolve anywhere")
	require.NoError(t, a.checkDial("tcp", "8.8.8.8:443", false), "public addresses need no allowing")
	require.Error(t, a.checkDial("udp", "8.8.8.8:53", false), "only TCP")

	for _, bad := range []string{"http://hooks.internal", "10.0.0.0/33", "hooks internal", "hooks.internal:", "a/b", "*.internal"} {
		_, err := parseAllowList([]string{bad})
		require.Error(t, err, bad)
		require.Contains(t, err.Error(), bad)
	}
}
