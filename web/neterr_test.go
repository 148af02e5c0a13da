package web_test

import (
	"errors"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/web"
)

// A page whose host does not resolve is a plain "could not be reached",
// never the resolver's own words: Go's error reads "lookup x on
// 10.255.255.53:53: no such host", naming the DNS server Hub uses, which
// the model and the person have no business reading.
func TestAnUnknownHostNamesNoResolver(t *testing.T) {
	t.Parallel()
	r := newReader(t, web.ReaderOptions{})
	_, err := r.Read(t.Context(), "https://hub-test-page.invalid/about", "")
	var pe *web.PageError
	require.True(t, errors.As(err, &pe), "%v", err)
	require.Equal(t, web.KindUnreachable, pe.Kind)
	msg := err.Error()
	require.NotContains(t, msg, "lookup")
	require.NotRegexp(t, regexp.MustCompile(`\d+\.\d+\.\d+\.\d+|:53\b|\[[0-9a-f:]+\]`), msg)
	require.Regexp(t, `^the page at hub-test-page\.invalid was not read: it could not be reached \((no such host|the name lookup timed out|the name could not be looked up)\)$`, msg)
}
