package api

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// clock is a limiter's clock that a test moves.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestFailureLimiterWindow(t *testing.T) {
	clk := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	l := newFailureLimiter(FailureLimits{})
	l.now = clk.now
	for i := range DefaultFailuresPerToken {
		require.Zero(t, l.fail("token:hub_abcdefgh", DefaultFailuresPerToken), "failure %d is within the limit", i+1)
		clk.t = clk.t.Add(time.Second)
	}
	// The window started at the first failure, 5 seconds ago.
	ra := l.fail("token:hub_abcdefgh", DefaultFailuresPerToken)
	require.Equal(t, 55*time.Second, ra)
	require.Equal(t, 55, (&tooManyFailures{retryAfter: ra}).retryAfterSeconds())
	// Another key has its own count.
	require.Zero(t, l.fail("addr:192.0.2.1", DefaultFailuresPerAddress))
	// Still over until the window ends, then counted afresh.
	clk.t = clk.t.Add(54 * time.Second)
	require.Equal(t, time.Second, l.fail("token:hub_abcdefgh", DefaultFailuresPerToken))
	clk.t = clk.t.Add(time.Second)
	require.Zero(t, l.fail("token:hub_abcdefgh", DefaultFailuresPerToken), "a new minute forgets the last one's failures")
}

func TestRetryAfterSecondsRoundsUp(t *testing.T) {
	for ra, want := range map[time.Duration]int{0: 1, time.Millisecond: 1, 1500 * time.Millisecond: 2, 59 * time.Second: 59, time.Minute: 60} {
		require.Equal(t, want, (&tooManyFailures{retryAfter: ra}).retryAfterSeconds(), "%s", ra)
	}
}

// Many addresses failing once each never grow the table past its cap;
// the least recently failed are forgotten first, and a key that keeps
// failing stays counted.
func TestFailureLimiterHoldsItsCap(t *testing.T) {
	l := newFailureLimiter(FailureLimits{Keys: 100})
	held := func() int {
		l.mu.Lock()
		defer l.mu.Unlock()
		return len(l.entries)
	}
	for i := range 100_000 {
		l.fail(fmt.Sprintf("addr:10.%d.%d.%d", i>>16&0xff, i>>8&0xff, i&0xff), 10)
		if i%10 == 0 {
			l.fail("addr:192.0.2.7", 1_000_000)
		}
		require.LessOrEqual(t, held(), 100)
	}
	require.Equal(t, 100, held())
	l.mu.Lock()
	e, kept := l.entries["addr:192.0.2.7"]
	_, forgotten := l.entries["addr:10.0.0.0"]
	l.mu.Unlock()
	require.True(t, kept)
	require.Equal(t, 10_000, e.Value.(*failureEntry).count)
	require.False(t, forgotten)
}

func TestTokenPrefix(t *testing.T) {
	require.Equal(t, "hub_abcdefgh", tokenPrefix("hub_abcdefghijklmnopqrstuvwxyz234567"))
	for _, cred := range []string{"", "hub_nope", "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln", "\xff\xfe"} {
		require.Empty(t, tokenPrefix(cred), "%q", cred)
	}
}
