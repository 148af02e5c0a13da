package api

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"log/slog"
	"net/http"

	"github.com/gin-gonic/gin"

	"hub/identity"
)

// The browser's sign-in through the identity provider (docs/api.md): the
// authorization-code flow with PKCE, run by the api, so the provider's
// tokens never reach the browser. The login draws one random value, keeps
// it in an HttpOnly cookie (SameSite=Lax, so the provider's redirect back
// brings it) and derives the state, nonce and PKCE verifier from it by
// hashing; the callback derives them again, so a state that is not the
// cookie's (forged, or another browser's) is refused.
const (
	oidcFlowCookie   = "hub_oidc"
	oidcFlowPath     = "/api/session/oidc"
	oidcFlowTTL      = 600 // seconds
	oidcCallbackPath = oidcFlowPath + "/callback"
)

// oidcFlow is what one sign-in derives from its cookie's value.
type oidcFlow struct{ state, nonce, verifier string }

func deriveFlow(value string) oidcFlow {
	h := func(label string) string {
		sum := sha256.Sum256([]byte(label + ":" + value))
		return base64.RawURLEncoding.EncodeToString(sum[:])
	}
	// The verifier is 43 characters of base64url, as RFC 7636 asks.
	return oidcFlow{state: h("state"), nonce: h("nonce"), verifier: h("verifier")}
}

// codeFlow is the verifier when browsers sign in through the provider, else nil.
func (s *Server) codeFlow() *identity.Verifier {
	if s.Identity == nil || !s.Identity.CodeFlow() {
		return nil
	}
	return s.Identity
}

// redirectURL is the provider's way back: HUB_OIDC_REDIRECT_URL, else this request's host.
func redirectURL(c *gin.Context, v *identity.Verifier) string {
	if u := v.RedirectURL(); u != "" {
		return u
	}
	scheme := "http"
	if overHTTPS(c) {
		scheme = "https"
	}
	return scheme + "://" + c.Request.Host + oidcCallbackPath
}

func setFlowCookie(c *gin.Context, value string) {
	ck := &http.Cookie{Name: oidcFlowCookie, Value: value, Path: oidcFlowPath, HttpOnly: true, SameSite: http.SameSiteLaxMode,
		MaxAge: oidcFlowTTL, Secure: overHTTPS(c)}
	if value == "" {
		ck.MaxAge = -1
	}
	http.SetCookie(c.Writer, ck)
}

// errNoProvider answers a Hub that signs in through no identity provider.
var errNoProvider = newError(http.StatusNotFound, codeNotFound, "", "this Hub signs in through no identity provider (HUB_OIDC_ISSUER and HUB_OIDC_CLIENT_ID)")

// signInError sends the browser back to the console with a short reason.
func signInError(c *gin.Context, reason string) { redirect(c, "/#signin-error="+reason) }

// redirect sends the browser on, with an answer nothing may keep.
func redirect(c *gin.Context, to string) {
	c.Header("Cache-Control", "no-store")
	c.Redirect(http.StatusFound, to)
}

// oidcLogin starts a browser's sign-in at the provider.
func (s *Server) oidcLogin(c *gin.Context) error {
	v := s.codeFlow()
	if v == nil {
		return errNoProvider
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	value := base64.RawURLEncoding.EncodeToString(b[:])
	f := deriveFlow(value)
	to, err := v.AuthCodeURL(c.Request.Context(), redirectURL(c, v), f.state, f.nonce, f.verifier)
	if err != nil {
		slog.WarnContext(c.Request.Context(), "identity provider unreachable", "err", err)
		signInError(c, "provider-unreachable")
		return nil
	}
	setFlowCookie(c, value)
	redirect(c, to)
	return nil
}

// oidcCallback finishes a sign-in: the provider sent the browser back with a code or an error.
func (s *Server) oidcCallback(c *gin.Context) error {
	v := s.codeFlow()
	if v == nil {
		return errNoProvider
	}
	value, _ := c.Cookie(oidcFlowCookie)
	setFlowCookie(c, "") // one sign-in, one use
	if reason := s.finishSignIn(c, v, value); reason != "" {
		signInError(c, reason)
		return nil
	}
	redirect(c, "/")
	return nil
}

// finishSignIn checks the callback against the flow cookie's value, exchanges its code and
// sets the session cookie; it answers why it failed ("": signed in).
func (s *Server) finishSignIn(c *gin.Context, v *identity.Verifier, value string) string {
	ctx := c.Request.Context()
	if e := c.Query("error"); e != "" {
		slog.InfoContext(ctx, "identity provider refused a sign-in", "error", e, "description", c.Query("error_description"))
		if e == "access_denied" {
			return "denied"
		}
		return "provider-error"
	}
	if value == "" {
		return "expired"
	}
	f := deriveFlow(value)
	if subtle.ConstantTimeCompare([]byte(c.Query("state")), []byte(f.state)) != 1 {
		return "state"
	}
	code := c.Query("code")
	if code == "" {
		return "no-code"
	}
	sub, err := v.Exchange(ctx, redirectURL(c, v), code, f.verifier, f.nonce)
	switch {
	case errors.Is(err, identity.ErrUnreachable):
		slog.WarnContext(ctx, "identity provider unreachable", "err", err)
		return "provider-unreachable"
	case errors.Is(err, identity.ErrExchange):
		slog.InfoContext(ctx, "oidc code refused", "err", err)
		return "exchange"
	case err != nil:
		slog.InfoContext(ctx, "oidc id token refused", "err", err)
		return "id-token"
	}
	p, err := s.Workspace.SignInSubject(ctx, sub.Issuer, sub.Subject, sub.Name)
	if err != nil {
		slog.ErrorContext(ctx, "oidc sign-in", "err", err)
		return "sign-in"
	}
	c.Set(personKey, p) // for the access log
	session, expires, err := s.Workspace.CreateSignInSession(ctx, p.ID)
	if err != nil {
		slog.ErrorContext(ctx, "oidc sign-in session", "err", err)
		return "sign-in"
	}
	setSessionCookie(c, session, expires)
	return ""
}

type signInProvidersDTO struct {
	OIDC bool `json:"oidc" doc:"A browser can sign in through the identity provider at GET /api/session/oidc/login (HUB_OIDC_ISSUER and HUB_OIDC_CLIENT_ID are set)."`
}

// signInProviders tells the console's sign-in form which ways it offers.
func (s *Server) signInProviders(*gin.Context) (any, error) {
	return signInProvidersDTO{OIDC: s.codeFlow() != nil}, nil
}
