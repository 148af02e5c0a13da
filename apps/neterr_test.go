package apps

import (
	"errors"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// Network errors are told in a few words, never with the addresses of
// Hub's own side: the resolver's, the socket's.
func TestNetReasonNamesNoResolver(t *testing.T) {
	t.Parallel()
	resolver := "10.255.255.53:53"
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&net.DNSError{Err: "no such host", Name: "0x7f000001", Server: resolver, IsNotFound: true}, "no such host"},
		{&net.DNSError{Err: "i/o timeout", Name: "x.example", Server: resolver, IsTimeout: true}, "the name lookup timed out"},
		{&net.DNSError{Err: "server misbehaving", Name: "x.example", Server: resolver}, "the name could not be looked up"},
		{&net.OpError{Op: "dial", Net: "tcp", Source: &net.TCPAddr{IP: net.IPv4(10, 0, 0, 7), Port: 41234},
			Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}, "the connection was refused"},
		{errors.New("something else at 10.0.0.7:41234"), "a network error"},
	} {
		require.Equal(t, tc.want, NetReason(tc.err))
		for _, e := range []error{
			&UnreachableError{Host: "hooks.example.com", Err: tc.err},
			&UnknownError{Host: "hooks.example.com", Err: tc.err},
			&LookupError{Host: "0x7f000001", Err: tc.err},
		} {
			require.NotContains(t, e.Error(), resolver)
			require.NotContains(t, e.Error(), "10.0.0.7")
			require.Contains(t, e.Error(), tc.want)
		}
	}
}
