//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
	"hub/storage"
	"hub/workspace"
)

// cookieDo is a request signed in by a session cookie (none when session
// is ""), with the CSRF header when csrf; body is JSON.
func cookieDo(t *testing.T, s *hubtest.Stack, session string, csrf bool, method, path, body string, header ...string) hubtest.Response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, s.URL+path, rd)
	require.NoError(t, err)
	if session != "" {
		req.AddCookie(&http.Cookie{Name: "hub_session", Value: session})
	}
	if csrf {
		req.Header.Set("X-Hub-CSRF", "1")
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := s.HTTP.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return hubtest.Response{Status: resp.StatusCode, Body: raw, Header: resp.Header}
}

// sessionCookie is the hub_session cookie a response sets.
func sessionCookie(t *testing.T, r hubtest.Response) *http.Cookie {
	t.Helper()
	for _, c := range (&http.Response{Header: r.Header}).Cookies() {
		if c.Name == "hub_session" {
			return c
		}
	}
	t.Fatalf("no hub_session cookie in %v", r.Header.Values("Set-Cookie"))
	return nil
}

// A browser signs in once: POST /api/session exchanges a full token for an
// HttpOnly, SameSite=Strict cookie that the api takes wherever it takes the
// bearer token (the streams too), with the CSRF header on what changes
// something; the cookie is no bearer token; the session dies with its token
// (gone or expired) and on DELETE /api/session.
func TestBrowserSessionCookie(t *testing.T) {
	t.Parallel()
	onBothEngines(t, func(t *testing.T, sqlite bool) {
		s := hubtest.Start(t, hubtest.Options{SQLite: sqlite, Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`)})
		forbidden := func(r hubtest.Response) {
			t.Helper()
			require.Equal(t, http.StatusForbidden, r.Status, "%s", r.Body)
			require.Contains(t, string(r.Body), "X-Hub-CSRF")
		}

		// The exchange: the CSRF header (login CSRF), a full token only.
		forbidden(cookieDo(t, s, "", false, "POST", "/api/session", `{"token": "`+s.Token+`"}`))
		unauthenticated(t, cookieDo(t, s, "", true, "POST", "/api/session", `{"token": "hub_notatoken"}`))
		r := cookieDo(t, s, "", true, "POST", "/api/session", `{}`)
		require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
		require.Equal(t, "invalid_payload", r.JSON(t)["error"].(map[string]any)["code"])
		conv := s.Conversation(t)
		st := s.Ask(t, conv, "hello")
		s.Stream(t, st.StreamURL, 0, 0)
		unauthenticated(t, cookieDo(t, s, "", true, "POST", "/api/session", `{"token": "`+streamTokenOf(t, st.StreamURL)+`"}`))

		r = cookieDo(t, s, "", true, "POST", "/api/session", `{"token": "`+s.Token+`"}`)
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		ck := sessionCookie(t, r)
		require.True(t, ck.HttpOnly)
		require.Equal(t, http.SameSiteStrictMode, ck.SameSite)
		require.Equal(t, "/", ck.Path)
		require.False(t, ck.Secure, "plain http")
		require.Greater(t, ck.MaxAge, 6*24*3600)
		require.NotEqual(t, s.Token, ck.Value, "the cookie is a session of its own, not the token")
		personID := r.JSON(t)["personId"]
		require.NotEmpty(t, personID)
		session := ck.Value
		r = cookieDo(t, s, session, false, "GET", "/api/session", "")
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		require.Equal(t, personID, r.JSON(t)["personId"], "GET /api/session says who the cookie signs in")
		tls := cookieDo(t, s, "", true, "POST", "/api/session", `{"token": "`+s.Token+`"}`, "X-Forwarded-Proto", "https")
		require.True(t, sessionCookie(t, tls).Secure, "Secure behind a TLS proxy")

		// Reads with the cookie alone; writes with the CSRF header too.
		r = cookieDo(t, s, session, false, "GET", "/api/spaces", "")
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		create := `{"spaceId": "` + s.SpaceID + `", "title": "by cookie"}`
		forbidden(cookieDo(t, s, session, false, "POST", "/api/assistant/conversations", create))
		forbidden(cookieDo(t, s, session, false, "DELETE", "/api/assistant/conversations/"+conv, ""))
		r = cookieDo(t, s, session, true, "POST", "/api/assistant/conversations", create)
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		// A bearer request needs no header, cookie or not.
		require.Equal(t, http.StatusCreated, s.Do(t, s.Token, "POST", "/api/assistant/conversations", map[string]any{"spaceId": s.SpaceID}).Status)

		// The session value is no token: not as a bearer, not in a stream URL.
		unauthenticated(t, s.Do(t, session, "GET", "/api/spaces", nil))
		unauthenticated(t, getBounded(t, s, "", "/api/assistant/turns/"+st.TurnID+"/stream?streamToken="+url.QueryEscape(session)))

		// The streams take the cookie (an EventSource sends it).
		r = cookieDo(t, s, session, false, "GET", "/api/assistant/turns/"+st.TurnID+"/stream", "")
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		require.Contains(t, string(r.Body), "event: done")
		r = cookieDo(t, s, session, false, "GET", "/api/assistant/turns/"+st.TurnID+"/stream?streamToken=hub_expired", "")
		require.Equal(t, http.StatusOK, r.Status, "a refused stream token falls back to the cookie: %s", r.Body)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, "GET", s.URL+"/api/agent/stream", nil)
		require.NoError(t, err)
		req.AddCookie(&http.Cookie{Name: "hub_session", Value: session})
		resp, err := s.HTTP.Do(req)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		line, err := bufio.NewReader(resp.Body).ReadString('\n')
		require.NoError(t, err)
		require.Contains(t, line, "id:")
		resp.Body.Close()
		cancel()
		// The run inspector too.
		r = cookieDo(t, s, session, false, "GET", "/api/assistant/turns/"+st.TurnID+"/inspect", "")
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)

		// Sign-out: the CSRF header; the session ends, the cookie is cleared.
		signedOut := sessionCookie(t, tls).Value
		require.Equal(t, http.StatusOK, cookieDo(t, s, signedOut, false, "GET", "/api/spaces", "").Status)
		forbidden(cookieDo(t, s, signedOut, false, "DELETE", "/api/session", ""))
		r = cookieDo(t, s, signedOut, true, "DELETE", "/api/session", "")
		require.Equal(t, http.StatusNoContent, r.Status, "%s", r.Body)
		require.Negative(t, sessionCookie(t, r).MaxAge, "the cookie is cleared")
		unauthenticated(t, cookieDo(t, s, signedOut, false, "GET", "/api/spaces", ""))
		unauthenticated(t, cookieDo(t, s, signedOut, true, "DELETE", "/api/session", ""))
		require.Equal(t, http.StatusOK, cookieDo(t, s, session, false, "GET", "/api/spaces", "").Status, "another session of the token stays")

		// The session dies with its token: gone (revoked), or expired.
		other, _ := s.Member(t, "Team", "Sam Other", workspace.RoleEditor)
		r = cookieDo(t, s, "", true, "POST", "/api/session", `{"token": "`+other+`"}`)
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		theirs, theirID := sessionCookie(t, r).Value, r.JSON(t)["personId"].(string)
		require.Equal(t, http.StatusOK, cookieDo(t, s, theirs, false, "GET", "/api/spaces", "").Status)
		db := s.DB.WithContext(context.Background())
		require.NoError(t, db.Where("person_id = ? AND scope = ?", theirID, "").Delete(&storage.APIToken{}).Error)
		unauthenticated(t, cookieDo(t, s, theirs, false, "GET", "/api/spaces", ""))

		var owner storage.APIToken
		require.NoError(t, db.Where("scope LIKE ?", "session:%").Where("person_id <> ?", theirID).First(&owner).Error)
		require.NoError(t, db.Model(&storage.APIToken{}).Where("person_id = ? AND scope = ?", owner.PersonID, "").
			Update("expires_at", time.Now().Add(-time.Second).UTC()).Error)
		unauthenticated(t, cookieDo(t, s, session, false, "GET", "/api/spaces", ""))
		unauthenticated(t, cookieDo(t, s, session, false, "GET", "/api/assistant/turns/"+st.TurnID+"/stream", ""))
	})
}
