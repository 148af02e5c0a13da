//go:build e2e

package e2e

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/api"
	"hub/fakemodel"
	"hub/hubtest"
)

// Failed sign-ins are slowed down (docs/api.md, "Failed sign-ins"): past
// 10 refused credentials a minute from one client address, or 5 with one
// token prefix, a refusal is 429 too_many_failures with Retry-After; a good
// credential is let through all the same, from that address too; a request
// without any credential is never counted. Every way in is counted: the
// bearer token, the session cookie, the session exchange and both stream
// routes' ?streamToken=. The stack trusts 127.0.0.1 as a proxy
// (HUB_TRUSTED_PROXIES), so X-Forwarded-For gives each case an address of
// its own.
func TestFailedSignInsAreSlowedDown(t *testing.T) {
	t.Parallel()
	for _, engine := range []struct {
		name   string
		sqlite bool
	}{{"postgres", false}, {"sqlite", true}} {
		t.Run(engine.name, func(t *testing.T) {
			t.Parallel()
			s := hubtest.Start(t, hubtest.Options{SQLite: engine.sqlite, Env: map[string]string{"HUB_TRUSTED_PROXIES": "127.0.0.1"},
				Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`)})
			bearer := func(token string) []string { return []string{"Authorization", "Bearer " + token} }

			t.Run("bearer token, per address", func(t *testing.T) {
				const from = "203.0.113.1"
				for range api.DefaultFailuresPerAddress {
					unauthenticated(t, signIn(t, s, from, "GET", "/api/spaces", "", bearer(wrongToken(t))...))
				}
				tooMany(t, signIn(t, s, from, "GET", "/api/spaces", "", bearer(wrongToken(t))...))
				// A good token is let through from the address over its limit …
				require.Equal(t, http.StatusOK, signIn(t, s, from, "GET", "/api/spaces", "", bearer(s.Token)...).Status)
				// … and its next wrong one is still refused so.
				tooMany(t, signIn(t, s, from, "GET", "/api/spaces", "", bearer(wrongToken(t))...))
				// Another address has its own count.
				require.Equal(t, http.StatusOK, signIn(t, s, "203.0.113.2", "GET", "/api/spaces", "", bearer(s.Token)...).Status)
				unauthenticated(t, signIn(t, s, "203.0.113.2", "GET", "/api/spaces", "", bearer(wrongToken(t))...))
			})

			t.Run("token prefix, from many addresses", func(t *testing.T) {
				// Guesses at the owner's token (its prefix and a wrong rest)
				// from a new address each.
				guess := func() string { return s.Token[:12] + wrongToken(t)[12:] }
				for i := range api.DefaultFailuresPerToken {
					unauthenticated(t, signIn(t, s, "198.51.100."+strconv.Itoa(i+1), "GET", "/api/spaces", "", bearer(guess())...))
				}
				tooMany(t, signIn(t, s, "198.51.100.99", "GET", "/api/spaces", "", bearer(guess())...))
				require.Equal(t, http.StatusOK, signIn(t, s, "198.51.100.99", "GET", "/api/spaces", "", bearer(s.Token)...).Status)
			})

			t.Run("session exchange", func(t *testing.T) {
				const from = "203.0.113.3"
				csrf := []string{"X-Hub-CSRF", "1"}
				for range api.DefaultFailuresPerAddress {
					unauthenticated(t, signIn(t, s, from, "POST", "/api/session", `{"token": "`+wrongToken(t)+`"}`, csrf...))
				}
				tooMany(t, signIn(t, s, from, "POST", "/api/session", `{"token": "`+wrongToken(t)+`"}`, csrf...))
				r := signIn(t, s, from, "POST", "/api/session", `{"token": "`+s.Token+`"}`, csrf...)
				require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
			})

			t.Run("session cookie", func(t *testing.T) {
				const from = "203.0.113.4"
				cookie := func(v string) []string { return []string{"Cookie", "hub_session=" + v} }
				for range api.DefaultFailuresPerAddress {
					unauthenticated(t, signIn(t, s, from, "GET", "/api/session", "", cookie(wrongToken(t))...))
				}
				tooMany(t, signIn(t, s, from, "GET", "/api/session", "", cookie(wrongToken(t))...))
				require.Equal(t, http.StatusOK, signIn(t, s, from, "GET", "/api/session", "", bearer(s.Token)...).Status)
			})

			t.Run("stream tokens", func(t *testing.T) {
				conv := s.Conversation(t)
				st := s.Ask(t, conv, "hello")
				s.Stream(t, st.StreamURL, 0, 0)
				for i, path := range []string{"/api/assistant/turns/" + st.TurnID + "/stream", "/api/agent/stream"} {
					from := "203.0.113." + strconv.Itoa(10+i)
					for range api.DefaultFailuresPerAddress {
						unauthenticated(t, signIn(t, s, from, "GET", path+"?streamToken="+url.QueryEscape(wrongToken(t)), ""))
					}
					tooMany(t, signIn(t, s, from, "GET", path+"?streamToken="+url.QueryEscape(wrongToken(t)), ""))
					require.Equal(t, http.StatusOK, streamStatus(t, s, from, path, s.Token), path)
				}
				// The turn's own stream URL still reads from the limited address.
				require.Equal(t, http.StatusOK, streamStatus(t, s, "203.0.113.10", st.StreamURL, ""))
			})

			t.Run("no credential is no failure", func(t *testing.T) {
				for range 3 * api.DefaultFailuresPerAddress {
					unauthenticated(t, signIn(t, s, "203.0.113.20", "GET", "/api/session", ""))
				}
			})
		})
	}
}

// Without HUB_TRUSTED_PROXIES no X-Forwarded-For names the client: a
// guesser cannot escape its address's count by making up addresses.
func TestForwardedForIsNotTrustedByDefault(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{SQLite: true, NoModel: true})
	for i := range api.DefaultFailuresPerAddress {
		unauthenticated(t, signIn(t, s, "192.0.2."+strconv.Itoa(i+1), "GET", "/api/spaces", "", "Authorization", "Bearer "+wrongToken(t)))
	}
	tooMany(t, signIn(t, s, "192.0.2.200", "GET", "/api/spaces", "", "Authorization", "Bearer "+wrongToken(t)))
	require.Equal(t, http.StatusOK, signIn(t, s, "192.0.2.201", "GET", "/api/spaces", "", "Authorization", "Bearer "+s.Token).Status)
}

// wrongToken is a token of Hub's form that no one holds, with a prefix of
// its own.
func wrongToken(t *testing.T) string {
	var b [20]byte
	_, err := rand.Read(b[:])
	require.NoError(t, err)
	return "hub_" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))
}

// signIn is a request said to come from the address from (X-Forwarded-For),
// with the headers given in pairs; body is JSON.
func signIn(t *testing.T, s *hubtest.Stack, from, method, path, body string, header ...string) hubtest.Response {
	t.Helper()
	return cookieDo(t, s, "", false, method, path, body, append([]string{"X-Forwarded-For", from}, header...)...)
}

// tooMany asserts a 429 too_many_failures with a Retry-After of at most a
// minute.
func tooMany(t *testing.T, r hubtest.Response) {
	t.Helper()
	require.Equal(t, http.StatusTooManyRequests, r.Status, "%s", r.Body)
	require.Equal(t, "too_many_failures", r.JSON(t)["error"].(map[string]any)["code"])
	secs, err := strconv.Atoi(r.Header.Get("Retry-After"))
	require.NoError(t, err, "Retry-After %q", r.Header.Get("Retry-After"))
	require.True(t, secs >= 1 && secs <= 60, "Retry-After %d", secs)
}

// streamStatus opens a stream from the address from (with token as the
// bearer token unless "") and hangs up once its status is known.
func streamStatus(t *testing.T, s *hubtest.Stack, from, path, token string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", s.URL+path, nil)
	require.NoError(t, err)
	req.Header.Set("X-Forwarded-For", from)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := s.HTTP.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Logf("%s: %d %s", path, resp.StatusCode, body)
	}
	return resp.StatusCode
}
