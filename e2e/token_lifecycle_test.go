//go:build e2e

package e2e

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
)

// hubCLI runs the hub binary against the stack's database and returns its
// stdout; it fails the test when the command fails.
func hubCLI(t *testing.T, s *hubtest.Stack, args ...string) string {
	t.Helper()
	cmd := exec.Command(hubBinary(t), args...)
	cmd.Env = append(os.Environ(), "DATABASE_URL="+s.Config().DatabaseURL)
	var e strings.Builder
	cmd.Stderr = &e
	out, err := cmd.Output()
	require.NoError(t, err, "hub %v: %s", args, e.String())
	return strings.TrimSpace(string(out))
}

// hubCLIFails runs the hub binary as hubCLI does, requires it to fail,
// and returns its stderr.
func hubCLIFails(t *testing.T, s *hubtest.Stack, args ...string) string {
	t.Helper()
	cmd := exec.Command(hubBinary(t), args...)
	cmd.Env = append(os.Environ(), "DATABASE_URL="+s.Config().DatabaseURL)
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "hub %v: %s", args, out)
	require.NotContains(t, string(out), "panic")
	return string(out)
}

// tokenRow is one token of GET /api/me/tokens.
type tokenRow struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Prefix     string     `json:"prefix"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
	ExpiresAt  *time.Time `json:"expiresAt"`
}

func myTokens(t *testing.T, s *hubtest.Stack, token string) []tokenRow {
	t.Helper()
	r := s.Do(t, token, "GET", "/api/me/tokens", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var out struct{ Tokens []tokenRow }
	r.Decode(t, &out)
	return out.Tokens
}

// awaitEnd reads an open stream until it ends, and fails the test when it
// is still open after limit.
func awaitEnd(t *testing.T, name string, next func() error, limit time.Duration) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		for {
			if err := next(); err != nil {
				done <- err
				return
			}
		}
	}()
	select {
	case err := <-done:
		require.True(t, errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF), "%s: %v", name, err)
	case <-time.After(limit):
		t.Fatalf("%s: still open %s after the revocation", name, limit)
	}
}

// TestTokenLifecycle: hub token create --name --ttl, hub token list and
// revoke, GET and DELETE /api/me/tokens: the list shows metadata, never a
// token; a revoked token is 401 at the next request, and the streams
// opened with it, with a stream token made from it and with a session made
// from it end within seconds; an expired token is 401 and the sweep drops
// it; nobody sees or revokes another's token (404); each token created,
// revoked or expired is in the space's audit log, saying by whom.
func TestTokenLifecycle(t *testing.T) {
	t.Parallel()
	onBothEngines(t, func(t *testing.T, sqlite bool) {
		s := hubtest.Start(t, hubtest.Options{SQLite: sqlite, Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`)})

		laptop := hubCLI(t, s, "token", "create", "--create", "--space", "Team", "--person", "Tess Token", "--role", "editor", "--name", "laptop", "--ttl", "720h")
		require.Regexp(t, `^hub_[a-z0-9]+$`, laptop)
		phone := hubCLI(t, s, "token", "create", "--space", "Team", "--person", "Tess Token", "--name", "phone")
		r := s.Do(t, phone, "GET", "/api/session", nil)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		tessID := r.JSON(t)["personId"].(string)

		// The list: names, prefixes and times, never a token.
		r = s.Do(t, laptop, "GET", "/api/me/tokens", nil)
		require.NotContains(t, string(r.Body), laptop)
		require.NotContains(t, string(r.Body), phone)
		list := myTokens(t, s, laptop)
		require.Len(t, list, 2)
		require.Equal(t, "laptop", list[0].Name)
		require.Equal(t, laptop[:12], list[0].Prefix)
		require.NotNil(t, list[0].ExpiresAt)
		require.WithinDuration(t, time.Now().Add(720*time.Hour), *list[0].ExpiresAt, time.Minute)
		require.NotNil(t, list[0].LastUsedAt, "used just now")
		require.Equal(t, "phone", list[1].Name)
		require.Nil(t, list[1].ExpiresAt)
		laptopID, phoneID := list[0].ID, list[1].ID

		out := hubCLI(t, s, "token", "list", "--person", "Tess Token")
		require.Contains(t, out, laptopID)
		require.Contains(t, out, phoneID)
		require.Contains(t, out, laptop[:12])
		require.NotContains(t, out, laptop)
		require.NotContains(t, out, phone)

		// Another person neither sees nor revokes them.
		for _, tok := range myTokens(t, s, s.Token) {
			require.NotEqual(t, laptopID, tok.ID)
			require.NotEqual(t, phoneID, tok.ID)
		}
		r = s.Do(t, s.Token, "DELETE", "/api/me/tokens/"+phoneID, nil)
		require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Body)
		require.Equal(t, http.StatusNotFound, s.Do(t, phone, "DELETE", "/api/me/tokens/tok_nope", nil).Status)
		require.Equal(t, http.StatusOK, s.Do(t, phone, "GET", "/api/spaces", nil).Status)

		// Three streams opened with the phone token: by the header, by a
		// stream token made from it, by a session made from it.
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		byHeader := s.OpenEvents(ctx, t, s.URL+"/api/agent/stream", phone, "")
		defer byHeader.Close()
		r = s.Do(t, phone, "POST", "/api/agent/stream-token", nil)
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		streamURL := r.JSON(t)["streamUrl"].(string)
		byStreamToken := s.OpenEvents(ctx, t, s.URL+streamURL, "", "")
		defer byStreamToken.Close()
		r = cookieDo(t, s, "", true, "POST", "/api/session", `{"token": "`+phone+`"}`)
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		session := sessionCookie(t, r).Value
		req, err := http.NewRequestWithContext(ctx, "GET", s.URL+"/api/agent/stream", nil)
		require.NoError(t, err)
		req.AddCookie(&http.Cookie{Name: "hub_session", Value: session})
		resp, err := s.HTTP.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		for _, e := range []*hubtest.EventStream{byHeader, byStreamToken} {
			_, err := e.Next() // the snapshot
			require.NoError(t, err)
		}

		// A turn started with it: its streamUrl's token derives from it.
		r = s.Do(t, phone, "POST", "/api/assistant/conversations", map[string]any{"spaceId": s.SpaceID, "title": "t"})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		r = s.Do(t, phone, "POST", "/api/assistant/conversations/"+r.JSON(t)["id"].(string)+"/turns", map[string]any{"text": "hi"})
		require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
		turnStream := r.JSON(t)["streamUrl"].(string)
		require.NotEmpty(t, s.Stream(t, turnStream, 0, 0))

		// The person revokes their own token.
		require.Equal(t, http.StatusNoContent, s.Do(t, phone, "DELETE", "/api/me/tokens/"+phoneID, nil).Status)
		awaitEnd(t, "by header", func() error { _, err := byHeader.Next(); return err }, 10*time.Second)
		awaitEnd(t, "by stream token", func() error { _, err := byStreamToken.Next(); return err }, 10*time.Second)
		awaitEnd(t, "by session", func() error {
			_, err := resp.Body.Read(make([]byte, 4096))
			return err
		}, 10*time.Second)
		require.Equal(t, http.StatusUnauthorized, s.Do(t, phone, "GET", "/api/spaces", nil).Status)
		require.Equal(t, http.StatusUnauthorized, s.Do(t, "", "GET", streamURL, nil).Status)
		require.Equal(t, http.StatusUnauthorized, s.Do(t, "", "GET", turnStream, nil).Status)
		require.Equal(t, http.StatusUnauthorized, cookieDo(t, s, session, false, "GET", "/api/session", "").Status)

		// The operator revokes one by its id, and every one of a person.
		require.Equal(t, "revoked "+laptopID, hubCLI(t, s, "token", "revoke", laptopID))
		require.Equal(t, http.StatusUnauthorized, s.Do(t, laptop, "GET", "/api/spaces", nil).Status)
		third := hubCLI(t, s, "token", "create", "--space", "Team", "--person", "Tess Token", "--name", "third")
		require.Equal(t, http.StatusOK, s.Do(t, third, "GET", "/api/spaces", nil).Status)
		require.Regexp(t, `^revoked tok_\S+$`, hubCLI(t, s, "token", "revoke", "--person", "Tess Token"))
		require.Equal(t, http.StatusUnauthorized, s.Do(t, third, "GET", "/api/spaces", nil).Status)

		require.Contains(t, hubCLIFails(t, s, "token", "revoke", "tok_nope"), "not found")
		require.Contains(t, hubCLIFails(t, s, "token", "revoke"), "a token id or --person")
		require.Contains(t, hubCLIFails(t, s, "token", "revoke", laptopID, "--person", "Tess Token"), "a token id or --person")
		require.Contains(t, hubCLIFails(t, s, "token", "create", "--space", "Team", "--person", "Tess Token", "--ttl", "-1h"), "ttl")

		// An operator token likewise.
		olga := hubCLI(t, s, "token", "create", "--operator", "--person", "Olga Oncall", "--name", "oncall", "--ttl", "24h")
		require.Equal(t, http.StatusNotFound, s.Do(t, olga, "GET", "/api/assistant/turns/turn_nope/inspect", nil).Status)
		out = hubCLI(t, s, "token", "list", "--person", "Olga Oncall")
		require.Contains(t, out, "Olga Oncall (operator)")
		require.Contains(t, out, "oncall")
		hubCLI(t, s, "token", "revoke", "--person", "Olga Oncall")
		require.Equal(t, http.StatusUnauthorized, s.Do(t, olga, "GET", "/api/assistant/turns/turn_nope/inspect", nil).Status)
		// Its person is in no space: its events are in Hub's own log.
		out = hubCLI(t, s, "audit")
		require.Regexp(t, `(?m)^AT\s+KIND\s+ACTION\s+BY\s+VIA\s+SUMMARY$`, out)
		require.Regexp(t, `(?m)^\S+\s+token\s+revoked\s+-\s+cli\s+token "oncall" \(hub_\w{8}\) of Olga Oncall revoked$`, out)
		require.Regexp(t, `(?m)^\S+\s+token\s+created\s+-\s+cli\s+token "oncall" \(hub_\w{8}\) of Olga Oncall created$`, out)
		require.NotContains(t, out, "Tess Token", "a token of a person in a space is in that space's log")
		require.Contains(t, hubCLIFails(t, s, "audit", "--limit", "0"), "--limit is 1 to")

		// An expired token is refused, and the sweep drops it.
		brief := hubCLI(t, s, "token", "create", "--space", "Team", "--person", "Tess Token", "--name", "brief", "--ttl", "1s")
		require.Eventually(t, func() bool {
			return s.Do(t, brief, "GET", "/api/spaces", nil).Status == http.StatusUnauthorized
		}, 15*time.Second, 100*time.Millisecond)
		s.Sweep(t, time.Now()) // (or the stack's own sweeper before it)
		require.NotContains(t, hubCLI(t, s, "token", "list", "--person", "Tess Token"), "brief")

		// The audit log: by whom each happened.
		r = s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/audit?limit=200", nil)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		var events []string
		for _, e := range r.JSON(t)["events"].([]any) {
			ev := e.(map[string]any)
			if ev["kind"] != "token" {
				continue
			}
			events = append(events, ev["action"].(string)+" "+ev["via"].(string)+" "+ev["actor"].(map[string]any)["id"].(string)+" "+
				ev["changes"].(map[string]any)["name"].(string))
			require.NotContains(t, ev["summary"], laptop)
		}
		require.Equal(t, []string{
			"expired sweep  brief", "created cli  brief",
			"revoked cli  third", "created cli  third", "revoked cli  laptop",
			"revoked rest " + tessID + " phone", "created cli  phone", "created cli  laptop",
		}, events)
	})
}
