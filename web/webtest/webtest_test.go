package webtest

import (
	"bytes"
	"compress/zlib"
	"hash/adler32"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

// ZlibSpaces inflates, checksum and all, to exactly n spaces, whether n is
// a whole number of its blocks or not, small or large.
func TestZlibSpacesInflatesToNSpaces(t *testing.T) {
	for _, n := range []int{0, 1, 1000, 512 << 10, 512<<10 + 1, 3<<20 + 12345} {
		z := ZlibSpaces(n)
		r, err := zlib.NewReader(bytes.NewReader(z))
		require.NoError(t, err, n)
		got, err := io.ReadAll(r) // zlib checks the Adler-32 at the end
		require.NoError(t, err, n)
		require.Equal(t, n, len(got), n)
		require.Equal(t, -1, bytes.IndexFunc(got, func(c rune) bool { return c != ' ' }), n)
		require.Equal(t, adler32.Checksum(got), adler32Spaces(n), n)
		if n >= 3<<20 {
			require.Less(t, len(z), n/200, "a bomb: %d bytes for %d", len(z), n)
		}
	}
}
