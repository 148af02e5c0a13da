package identity_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"hub/identity"
)

// A Hub token never goes to the provider; a JWT does.
func TestLooksLikeJWT(t *testing.T) {
	t.Parallel()
	for token, want := range map[string]bool{
		"eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln": true,
		"eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.":      true, // alg none: the verifier refuses it
		"hub_abcdefghijklmnopqrstuvwxyz234567":      false,
		"hub_a.b.c":                                 false,
		"not-a-token":                               false,
		"a.b":                                       false,
		"a.b.c.d":                                   false,
	} {
		require.Equal(t, want, identity.LooksLikeJWT(token), token)
	}
}
