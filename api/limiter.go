package api

import (
	"container/list"
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"hub/workspace"
)

// Failed sign-ins are slowed down (docs/api.md, "Failed sign-ins"): a
// refused credential counts one failure against the client address and one
// against the credential's prefix; past the limit in a minute the refusal
// is 429 with Retry-After instead of 401. Only failures are limited: a good
// credential is let through even from an address over its limit, so a
// person behind the same NAT as a guesser keeps working.
const (
	// DefaultFailuresPerAddress is how many failed sign-ins an address has a minute before 429.
	DefaultFailuresPerAddress = 10
	// DefaultFailuresPerToken is the same for one token prefix.
	DefaultFailuresPerToken = 5
	// DefaultFailureKeys is how many addresses and prefixes it keeps; the least recent goes first.
	DefaultFailureKeys = 10000
	failureWindow      = time.Minute
	// tokenPrefixLen: "hub_" and 8 of a Hub token's 32 random characters key it, never the token.
	tokenPrefixLen = 12
	hubTokenLen    = 36
)

// FailureLimits are the limiter's bounds, zero fields the defaults; only tests set them (no env var turns it off).
type FailureLimits struct {
	PerAddress int
	PerToken   int
	Keys       int
}

func (l FailureLimits) withDefaults() FailureLimits {
	return FailureLimits{PerAddress: orDefault(l.PerAddress, DefaultFailuresPerAddress),
		PerToken: orDefault(l.PerToken, DefaultFailuresPerToken), Keys: orDefault(l.Keys, DefaultFailureKeys)}
}

// failureLimiter counts failures per key in a window from its first, keeping limits.Keys keys.
type failureLimiter struct {
	limits FailureLimits
	now    func() time.Time

	mu      sync.Mutex
	entries map[string]*list.Element // of *failureEntry
	order   *list.List               // front: the most recently failed
}

type failureEntry struct {
	key   string
	start time.Time
	count int
}

func newFailureLimiter(l FailureLimits) *failureLimiter {
	return &failureLimiter{limits: l.withDefaults(), now: time.Now, entries: map[string]*list.Element{}, order: list.New()}
}

// fail counts a failure of key and answers how long until its window ends (0: within limit).
func (l *failureLimiter) fail(key string, limit int) (retryAfter time.Duration) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	var e *failureEntry
	if el, ok := l.entries[key]; ok {
		e = el.Value.(*failureEntry)
		l.order.MoveToFront(el)
		if !now.Before(e.start.Add(failureWindow)) {
			e.start, e.count = now, 0
		}
	} else {
		for len(l.entries) >= l.limits.Keys {
			oldest := l.order.Back()
			l.order.Remove(oldest)
			delete(l.entries, oldest.Value.(*failureEntry).key)
		}
		e = &failureEntry{key: key, start: now}
		l.entries[key] = l.order.PushFront(e)
	}
	e.count++
	if e.count <= limit {
		return 0
	}
	return e.start.Add(failureWindow).Sub(now)
}

// tooManyFailures is the 429 of a client or token over its limit.
type tooManyFailures struct{ retryAfter time.Duration }

func (e *tooManyFailures) Error() string { return "too many failed sign-ins" }

// retryAfterSeconds is Retry-After's value: whole seconds, rounded up, at least 1.
func (e *tooManyFailures) retryAfterSeconds() int {
	return max(1, int(math.Ceil(e.retryAfter.Seconds())))
}

// signInFailed counts a refusal of a request that presented any of credentials, and makes it
// a 429 past a limit. Anything else passes, as does a refusal of a request that presented
// nothing (a console asking whether it is signed in).
func (s *Server) signInFailed(c *gin.Context, err error, credentials ...string) error {
	if err == nil || !errors.Is(err, workspace.ErrUnauthenticated) && !isUnauthenticated(err) {
		return err
	}
	if !slices.ContainsFunc(credentials, func(cred string) bool { return cred != "" }) {
		return err // nothing was presented
	}
	worst := s.failures.fail("addr:"+c.ClientIP(), s.failures.limits.PerAddress)
	for _, cred := range credentials {
		if p := tokenPrefix(cred); p != "" {
			worst = max(worst, s.failures.fail("token:"+p, s.failures.limits.PerToken))
		}
	}
	if worst == 0 {
		return err
	}
	return &tooManyFailures{retryAfter: worst}
}

// isUnauthenticated: an apiError of code unauthenticated (a stream's 401).
func isUnauthenticated(err error) bool {
	var ae *apiError
	return errors.As(err, &ae) && ae.detail.Code == codeUnauthenticated
}

// tokenPrefix is the part of a Hub token (bearer, session or stream) that keys the limiter;
// anything else counts by address only (a JWT's first characters are the same for all).
func tokenPrefix(cred string) string {
	if len(cred) != hubTokenLen || !strings.HasPrefix(cred, "hub_") {
		return ""
	}
	return cred[:tokenPrefixLen]
}
