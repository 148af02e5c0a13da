package wiring

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
)

// A frontend on this host is dialled without gzip; a remote one, or an
// explicit choice, keeps what it had.
func TestUncompressedOnLoopback(t *testing.T) {
	for hostPort, none := range map[string]bool{
		"127.0.0.1:7233": true, "localhost:7233": true, "[::1]:7233": true, "127.0.0.1": true,
		"temporal:7233": false, "10.0.0.5:7233": false, "ns.tmprl.cloud:7233": false,
	} {
		opts := client.Options{HostPort: hostPort}
		uncompressedOnLoopback(&opts)
		_, isNone := opts.ConnectionOptions.GrpcCompression.(*client.GrpcCompressionNone)
		require.Equal(t, none, isNone, hostPort)
	}
	chosen := &client.GrpcCompressionGzip{}
	opts := client.Options{HostPort: "127.0.0.1:7233", ConnectionOptions: client.ConnectionOptions{GrpcCompression: chosen}}
	uncompressedOnLoopback(&opts)
	require.Same(t, chosen, opts.ConnectionOptions.GrpcCompression)
}
