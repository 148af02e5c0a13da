//go:build e2e

package e2e

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
	"hub/workspace"
)

// provider is an OpenID Provider on loopback as far as a relying party
// sees one: its discovery document and its keys (JWKS), which it can
// rotate, and the tokens it signs (go-jose, as a provider's library does).
// docs/decisions.md ("The tests' identity provider") says why the tests do
// not run zitadel/oidc's op here.
type provider struct {
	t   testing.TB
	srv *httptest.Server

	mu    sync.Mutex
	down  bool // discovery answers 503
	asked int  // requests served
	key   *rsa.PrivateKey
	kid   string
}

func newProvider(t testing.TB) *provider {
	p := &provider{t: t}
	p.rotate("key-1")
	mux := http.NewServeMux()
	count := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p.mu.Lock()
			p.asked++
			p.mu.Unlock()
			next.ServeHTTP(w, r)
		})
	}
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		down := p.down
		p.mu.Unlock()
		if down {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{
			"issuer": p.srv.URL, "jwks_uri": p.srv.URL + "/keys",
			"authorization_endpoint": p.srv.URL + "/authorize", "token_endpoint": p.srv.URL + "/token",
			"response_types_supported": []string{"code"}, "subject_types_supported": []string{"public"},
			"id_token_signing_alg_values_supported": []string{"RS256"},
		})
	})
	mux.HandleFunc("GET /keys", func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &p.key.PublicKey, KeyID: p.kid, Algorithm: "RS256", Use: "sig"}}}
		p.mu.Unlock()
		_ = json.NewEncoder(w).Encode(set)
	})
	p.srv = httptest.NewServer(count(mux))
	t.Cleanup(p.srv.Close)
	return p
}

// rotate replaces the provider's signing key with a new one of id kid;
// the old one leaves its key set.
func (p *provider) rotate(kid string) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(p.t, err)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.key, p.kid = key, kid
}

func (p *provider) requests() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.asked
}

func (p *provider) setDown(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = down
}

// token signs claims with the provider's current key; the standard
// claims default to a good token for Hub (aud "hub", an hour left).
func (p *provider) token(claims map[string]any) string {
	p.mu.Lock()
	key, kid := p.key, p.kid
	p.mu.Unlock()
	return signed(p.t, jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: key, KeyID: kid}}, p.claims(claims))
}

func (p *provider) claims(over map[string]any) map[string]any {
	now := time.Now()
	c := map[string]any{"iss": p.srv.URL, "aud": "hub", "sub": "user-1", "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
	for k, v := range over {
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
	}
	return c
}

func signed(t testing.TB, key jose.SigningKey, claims map[string]any) string {
	signer, err := jose.NewSigner(key, (&jose.SignerOptions{}).WithType("JWT"))
	require.NoError(t, err)
	raw, err := jwt.Signed(signer).Claims(claims).Serialize()
	require.NoError(t, err)
	return raw
}

// Sign-in through OpenID Connect: the provider's token signs its subject
// in as a person that its first sign-in creates (named by the token, in
// no space, with an entry in Hub's audit log) and the next finds again; a
// token of another audience or issuer, an expired one, a tampered one, one
// of alg none or of an algorithm the provider does not sign with is 401;
// a key the provider rotated in is taken at once; a provider that cannot
// be reached answers its tokens 503 and stops no Hub token.
func TestSignInThroughOIDC(t *testing.T) {
	t.Parallel()
	onBothEngines(t, func(t *testing.T, sqlite bool) {
		idp := newProvider(t)
		s := hubtest.Start(t, hubtest.Options{SQLite: sqlite, Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`),
			Env: map[string]string{"HUB_OIDC_ISSUER": idp.srv.URL, "HUB_OIDC_CLIENT_ID": "hub-console", "HUB_OIDC_AUDIENCE": "hub"}})
		profile := func(token string, want int) map[string]any {
			t.Helper()
			r := s.Do(t, token, "GET", "/api/me/profile", nil)
			require.Equal(t, want, r.Status, "%s", r.Body)
			return r.JSON(t)
		}
		good := idp.token(map[string]any{"name": "Ada Lovelace", "email": "ada@example.com"})

		// The provider is down: its tokens cannot be checked, Hub's can.
		idp.setDown(true)
		require.Equal(t, "unavailable", profile(good, http.StatusServiceUnavailable)["error"].(map[string]any)["code"])
		profile(s.Token, http.StatusOK)
		idp.setDown(false)

		// The first sign-in creates the person, in no space, and audits it.
		require.Equal(t, "Ada Lovelace", profile(good, http.StatusOK)["name"])
		r := s.Do(t, good, "PATCH", "/api/me/profile", map[string]any{"persona": "I write the engine's programs."})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		r = s.Do(t, good, "GET", "/api/spaces", nil)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		require.Empty(t, r.JSON(t)["spaces"], "a first sign-in makes no membership")
		events, err := s.Workspace.HubAudit(context.Background(), 10)
		require.NoError(t, err)
		require.Len(t, events, 1)
		ada := events[0].ActorID
		require.Equal(t, workspace.AuditSignIn, events[0].Kind)
		require.Equal(t, workspace.ViaOIDC, events[0].Via)
		require.Equal(t, "person signed in for the first time through OIDC", events[0].Summary)
		require.Equal(t, "Ada Lovelace", events[0].ActorName)
		require.Equal(t, map[string]any{"issuer": idp.srv.URL, "subject": "user-1", "name": "Ada Lovelace"}, events[0].Changes)

		// A second sign-in, with another token of the subject, is the same
		// person, and no new audit entry.
		again := profile(idp.token(map[string]any{"name": "Ada L."}), http.StatusOK)
		require.Equal(t, "I write the engine's programs.", again["persona"])
		require.Equal(t, "Ada Lovelace", again["name"], "the name is the first sign-in's; the person changes it in their profile")
		// Without a name the username, else the email, else a neutral one.
		require.Equal(t, "grace", profile(idp.token(map[string]any{"sub": "user-2", "preferred_username": "grace", "email": "g@example.com"}), http.StatusOK)["name"])
		require.Equal(t, "k@example.com", profile(idp.token(map[string]any{"sub": "user-3", "email": "k@example.com"}), http.StatusOK)["name"])
		require.Equal(t, workspace.DefaultSignInName, profile(idp.token(map[string]any{"sub": "user-4"}), http.StatusOK)["name"])
		events, err = s.Workspace.HubAudit(context.Background(), 10)
		require.NoError(t, err)
		people := map[string]bool{}
		for _, e := range events {
			people[e.ActorID] = true
		}
		require.Len(t, people, 4, "four subjects, four people")
		require.True(t, people[ada])

		// An owner adds the signed-in person to a space by the id they
		// read at GET /api/session.
		r = s.Do(t, good, "GET", "/api/session", nil)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		require.Equal(t, ada, r.JSON(t)["personId"])
		r = s.Do(t, s.Token, "POST", "/api/spaces/"+s.SpaceID+"/people", map[string]any{"personId": ada, "role": "editor"})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		require.Equal(t, "Ada Lovelace", r.JSON(t)["name"])
		r = s.Do(t, good, "GET", "/api/spaces", nil)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		require.Len(t, r.JSON(t)["spaces"], 1)

		// Hub's own token works beside the provider's, and never reaches it.
		asked := idp.requests()
		require.Equal(t, "Mira Chen", profile(s.Token, http.StatusOK)["name"])
		require.Equal(t, asked, idp.requests())

		// Refused: each is a 401 with the structured body.
		refused := map[string]string{
			"wrong audience": idp.token(map[string]any{"aud": "another-app"}),
			"no audience":    idp.token(map[string]any{"aud": nil}),
			"expired":        idp.token(map[string]any{"iat": time.Now().Add(-2 * time.Hour).Unix(), "exp": time.Now().Add(-time.Hour).Unix()}),
			"wrong issuer":   idp.token(map[string]any{"iss": "https://accounts.example.com"}),
			"no subject":     idp.token(map[string]any{"sub": nil}),
			"alg none":       unsigned(idp.claims(nil)),
			"HS256":          signed(t, jose.SigningKey{Algorithm: jose.HS256, Key: []byte("0123456789abcdef0123456789abcdef")}, idp.claims(nil)),
		}
		// Tampered: another subject's claims under Ada's signature, and
		// Ada's token with a byte of its signature changed.
		parts := strings.Split(good, ".")
		other, _ := json.Marshal(idp.claims(map[string]any{"sub": "user-9", "name": "Mallory"}))
		refused["claims changed"] = parts[0] + "." + base64.RawURLEncoding.EncodeToString(other) + "." + parts[2]
		sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
		sig[len(sig)/2] ^= 0xff
		refused["signature changed"] = parts[0] + "." + parts[1] + "." + base64.RawURLEncoding.EncodeToString(sig)
		for name, token := range refused {
			r := s.Do(t, token, "GET", "/api/me/profile", nil)
			require.Equal(t, http.StatusUnauthorized, r.Status, "%s: %s", name, r.Body)
			require.Equal(t, "unauthenticated", r.JSON(t)["error"].(map[string]any)["code"], name)
		}

		// The provider rotates its key: a token of the new key is taken
		// at once (an unknown kid makes Hub fetch the keys again).
		idp.rotate("key-2")
		require.Equal(t, "Ada Lovelace", profile(idp.token(nil), http.StatusOK)["name"])

		events, err = s.Workspace.HubAudit(context.Background(), 10)
		require.NoError(t, err)
		require.Len(t, events, 4, "no refused token made a person")
	})
}

// Without HUB_OIDC_ISSUER a JWT is only an unknown bearer: 401, and no
// provider is asked.
func TestProviderTokensNeedAProvider(t *testing.T) {
	t.Parallel()
	idp := newProvider(t)
	s := hubtest.Start(t, hubtest.Options{SQLite: true, NoModel: true})
	r := s.Do(t, idp.token(map[string]any{"name": "Ada Lovelace"}), "GET", "/api/me/profile", nil)
	require.Equal(t, http.StatusUnauthorized, r.Status, "%s", r.Body)
	require.Zero(t, idp.requests())
}

// unsigned is a token of alg none: claims and no signature.
func unsigned(claims map[string]any) string {
	head, _ := json.Marshal(map[string]string{"alg": "none", "typ": "JWT"})
	body, _ := json.Marshal(claims)
	return base64.RawURLEncoding.EncodeToString(head) + "." + base64.RawURLEncoding.EncodeToString(body) + "."
}
