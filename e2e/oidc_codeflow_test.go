//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"golang.org/x/oauth2"

	"hub/fakemodel"
	"hub/hubtest"
	"hub/workspace"
)

// opProvider is a real OpenID Provider in the test's process:
// zitadel/oidc's op with its example storage (users, clients) and login
// page, served over loopback HTTP.
type opProvider struct {
	srv *httptest.Server
	// mu orders register before the requests that read clients, for the
	// race detector too when the browser is another process.
	mu      sync.Mutex
	h       http.Handler
	clients map[string]*storage.Client
}

func newOP(t *testing.T) *opProvider {
	t.Helper()
	p := &opProvider{clients: map[string]*storage.Client{}}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		h := p.h
		p.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(p.srv.Close)
	st := storage.NewStorageWithClients(storage.NewUserStore(p.srv.URL), p.clients)
	p.mu.Lock()
	p.h = exampleop.SetupServer(p.srv.URL, st, nil, false)
	p.mu.Unlock()
	return p
}

// register adds a client to the provider.
func (p *opProvider) register(c *storage.Client) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clients[c.GetID()] = c
}

// browser is a browser as far as the flow sees one: a cookie jar, and
// redirects followed only where the test says.
func browser(t *testing.T) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// get fetches u and returns the answer's status, Location and body.
func get(t *testing.T, c *http.Client, u string) (int, string, string) {
	t.Helper()
	resp, err := c.Get(u)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header.Get("Location"), string(body)
}

// abs resolves a Location against the URL it answered.
func abs(t *testing.T, base, loc string) string {
	t.Helper()
	b, err := url.Parse(base)
	require.NoError(t, err)
	l, err := b.Parse(loc)
	require.NoError(t, err)
	return l.String()
}

var loginID = regexp.MustCompile(`name="id" value="([^"]+)"`)

// signInAtOP follows the provider from its authorization URL through its
// login form (user test-user2) back to Hub's callback, and returns the
// callback's URL without requesting it.
func signInAtOP(t *testing.T, c *http.Client, op *opProvider, authURL string) string {
	t.Helper()
	status, loc, body := get(t, c, authURL)
	require.Equal(t, http.StatusFound, status, body)
	status, _, body = get(t, c, abs(t, authURL, loc))
	require.Equal(t, http.StatusOK, status, body)
	m := loginID.FindStringSubmatch(body)
	require.NotNil(t, m, body)
	resp, err := c.PostForm(op.srv.URL+"/login/username", url.Values{"id": {m[1]}, "username": {"test-user2"}, "password": {"verysecure"}})
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusFound, resp.StatusCode)
	next := abs(t, op.srv.URL, resp.Header.Get("Location"))
	for strings.HasPrefix(next, op.srv.URL) { // the op's own callback, then back to Hub
		status, loc, body = get(t, c, next)
		require.Equal(t, http.StatusFound, status, body)
		next = abs(t, next, loc)
	}
	return next
}

// A browser signs in through the identity provider: the api runs the
// authorization-code flow with PKCE against a real provider, the browser
// gets the session cookie and never a provider token.
func TestSignInThroughOIDCCodeFlow(t *testing.T) {
	t.Parallel()
	onBothEngines(t, func(t *testing.T, sqlite bool) {
		op := newOP(t)
		s := hubtest.Start(t, hubtest.Options{SQLite: sqlite, Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`),
			Env: map[string]string{"HUB_OIDC_ISSUER": op.srv.URL, "HUB_OIDC_CLIENT_ID": "hub-console"}})
		callback := s.URL + "/api/session/oidc/callback"
		// A public client: PKCE, no secret. Registered before any request.
		op.register(storage.NativeClient("hub-console", callback, frontendCallback))

		r := s.Do(t, "", "GET", "/api/session/providers", nil)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		require.Equal(t, true, r.JSON(t)["oidc"])

		// start begins a sign-in in c and returns the provider's URL.
		start := func(c *http.Client) string {
			t.Helper()
			status, loc, body := get(t, c, s.URL+"/api/session/oidc/login")
			require.Equal(t, http.StatusFound, status, body)
			require.True(t, strings.HasPrefix(loc, op.srv.URL+"/auth?"), loc)
			q := must(url.Parse(loc)).Query()
			require.Equal(t, "S256", q.Get("code_challenge_method"))
			require.NotEmpty(t, q.Get("code_challenge"))
			require.NotEmpty(t, q.Get("nonce"))
			require.Equal(t, callback, q.Get("redirect_uri"))
			return loc
		}
		sessionCookie := func(c *http.Client) string {
			for _, ck := range c.Jar.Cookies(must(url.Parse(s.URL + "/"))) {
				if ck.Name == "hub_session" {
					return ck.Value
				}
			}
			return ""
		}

		// The whole flow: the callback sets hub_session and sends the
		// browser to the console, which is signed in as the new person.
		c := browser(t)
		back := signInAtOP(t, c, op, start(c))
		require.True(t, strings.HasPrefix(back, callback+"?"), back)
		status, loc, body := get(t, c, back)
		require.Equal(t, http.StatusFound, status, body)
		require.Equal(t, "/", loc)
		require.NotEmpty(t, sessionCookie(c))
		status, _, body = get(t, c, s.URL+"/api/session")
		require.Equal(t, http.StatusOK, status, body)
		require.Contains(t, body, `"name":"Test User2"`)
		events := hubLog(t, s)
		require.Equal(t, []string{"token created", "sign_in created"}, kinds(events), "the first sign-in creates the person, and its token")
		require.Equal(t, map[string]any{"issuer": op.srv.URL, "subject": "id2", "name": "Test User2"}, events[1].Changes)
		require.Contains(t, body, `"personId":"`+events[1].ActorID+`"`)
		require.Equal(t, events[1].ActorID, events[0].ActorID, "the token's creation is the person's")
		person := events[1].ActorID

		// Replayed: the callback's cookie was used up, and the code too.
		status, loc, _ = get(t, c, back)
		require.Equal(t, http.StatusFound, status)
		require.Equal(t, "/#signin-error=expired", loc)

		// The sign-in's token is listed with the person's tokens; revoking
		// it signs the browser out.
		status, _, body = get(t, c, s.URL+"/api/me/tokens")
		require.Equal(t, http.StatusOK, status, body)
		var tokens struct{ Tokens []struct{ ID, Name string } }
		require.NoError(t, json.Unmarshal([]byte(body), &tokens))
		require.Len(t, tokens.Tokens, 1, body)
		require.Equal(t, workspace.SignInTokenName, tokens.Tokens[0].Name)
		req := must(http.NewRequest("DELETE", s.URL+"/api/me/tokens/"+tokens.Tokens[0].ID, nil))
		req.Header.Set("X-Hub-CSRF", "1")
		resp := must(c.Do(req))
		resp.Body.Close()
		require.Equal(t, http.StatusNoContent, resp.StatusCode)
		status, _, body = get(t, c, s.URL+"/api/session")
		require.Equal(t, http.StatusUnauthorized, status, body)

		// A second sign-in is the same person, and no new audit entry.
		c2 := browser(t)
		status, loc, body = get(t, c2, signInAtOP(t, c2, op, start(c2)))
		require.Equal(t, http.StatusFound, status, body)
		require.Equal(t, "/", loc)
		status, _, body = get(t, c2, s.URL+"/api/session")
		require.Equal(t, http.StatusOK, status, body)
		require.Contains(t, body, `"personId":"`+person+`"`)
		require.Equal(t, []string{"token created", "token revoked", "token created", "sign_in created"}, kinds(hubLog(t, s)),
			"no new sign-in entry: the person is known")

		// Forged state: the browser's cookie derives another state.
		c3 := browser(t)
		back = signInAtOP(t, c3, op, start(c3))
		forged := must(url.Parse(back))
		q := forged.Query()
		q.Set("state", "forged")
		forged.RawQuery = q.Encode()
		status, loc, _ = get(t, c3, forged.String())
		require.Equal(t, http.StatusFound, status)
		require.Equal(t, "/#signin-error=state", loc)
		require.Empty(t, sessionCookie(c3))
		// Another browser's callback (login CSRF): its cookie is not this one's.
		c4 := browser(t)
		start(c4)
		back = signInAtOP(t, c3, op, start(c3))
		status, loc, _ = get(t, c4, back)
		require.Equal(t, http.StatusFound, status)
		require.Equal(t, "/#signin-error=state", loc)
		require.Empty(t, sessionCookie(c4))

		// Wrong nonce: the provider's ID token carries another nonce than
		// the sign-in's (the authorization request was altered).
		c5 := browser(t)
		auth := must(url.Parse(start(c5)))
		q = auth.Query()
		q.Set("nonce", "another-nonce")
		auth.RawQuery = q.Encode()
		status, loc, _ = get(t, c5, signInAtOP(t, c5, op, auth.String()))
		require.Equal(t, http.StatusFound, status)
		require.Equal(t, "/#signin-error=id-token", loc)
		require.Empty(t, sessionCookie(c5))

		// The provider's error, and a callback with no code.
		c6 := browser(t)
		start(c6)
		status, loc, _ = get(t, c6, callback+"?error=access_denied&state=x")
		require.Equal(t, http.StatusFound, status)
		require.Equal(t, "/#signin-error=denied", loc)
		c6 = browser(t)
		auth = must(url.Parse(start(c6)))
		status, loc, _ = get(t, c6, callback+"?state="+url.QueryEscape(auth.Query().Get("state")))
		require.Equal(t, http.StatusFound, status)
		require.Equal(t, "/#signin-error=no-code", loc)
		// A frontend that signed the person in at the provider itself
		// calls Hub with the provider's ID token as the bearer: the same
		// person, and no new sign-in entry.
		idToken := providerIDToken(t, op)
		r = s.Do(t, idToken, "GET", "/api/session", nil)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		require.Equal(t, person, r.JSON(t)["personId"])
		require.Equal(t, 1, strings.Count(strings.Join(kinds(hubLog(t, s)), ","), "sign_in"))
		// A code the provider never issued.
		c6 = browser(t)
		auth = must(url.Parse(start(c6)))
		status, loc, _ = get(t, c6, callback+"?code=made-up&state="+url.QueryEscape(auth.Query().Get("state")))
		require.Equal(t, http.StatusFound, status)
		require.Equal(t, "/#signin-error=exchange", loc)
	})
}

// Without a provider the flow's routes are 404 and the console offers only
// the token.
func TestSignInCodeFlowOff(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{SQLite: true, Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`)})
	r := s.Do(t, "", "GET", "/api/session/providers", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, false, r.JSON(t)["oidc"])
	for _, path := range []string{"/api/session/oidc/login", "/api/session/oidc/callback?code=x&state=y"} {
		r = s.Do(t, "", "GET", path, nil)
		require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Body)
	}
}

// frontendCallback is where a web frontend of the test's own is sent back
// by the provider: never requested (the test reads the code off the
// redirect); loopback, so the provider takes it on any port.
const frontendCallback = "http://127.0.0.1/frontend-callback"

// providerIDToken signs test-user2 in at the provider as a frontend would
// (the code flow with PKCE, as client hub-console) and returns the ID
// token the provider issued.
func providerIDToken(t *testing.T, op *opProvider) string {
	t.Helper()
	var disco struct {
		Auth  string `json:"authorization_endpoint"`
		Token string `json:"token_endpoint"`
	}
	_, _, body := get(t, http.DefaultClient, op.srv.URL+"/.well-known/openid-configuration")
	require.NoError(t, json.Unmarshal([]byte(body), &disco))
	conf := oauth2.Config{ClientID: "hub-console", RedirectURL: "http://127.0.0.1:9/frontend-callback", Scopes: []string{"openid", "profile"},
		Endpoint: oauth2.Endpoint{AuthURL: disco.Auth, TokenURL: disco.Token, AuthStyle: oauth2.AuthStyleInParams}}
	verifier := oauth2.GenerateVerifier()
	c := browser(t)
	back := must(url.Parse(signInAtOP(t, c, op, conf.AuthCodeURL("frontend-state", oauth2.S256ChallengeOption(verifier)))))
	require.Equal(t, "frontend-state", back.Query().Get("state"), back.String())
	tok, err := conf.Exchange(context.Background(), back.Query().Get("code"), oauth2.VerifierOption(verifier))
	require.NoError(t, err)
	id, _ := tok.Extra("id_token").(string)
	require.NotEmpty(t, id)
	return id
}

// hubLog is Hub's own audit log, newest first.
func hubLog(t *testing.T, s *hubtest.Stack) []workspace.AuditEvent {
	t.Helper()
	events, err := s.Workspace.HubAudit(context.Background(), 50)
	require.NoError(t, err)
	return events
}

// kinds names each event by its kind and action.
func kinds(events []workspace.AuditEvent) []string {
	var out []string
	for _, e := range events {
		out = append(out, e.Kind+" "+e.Action)
	}
	return out
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
