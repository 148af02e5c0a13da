package api

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"hub/identity"
	"hub/workspace"
)

const personKey = "hub.person"

// authenticate requires a full bearer token, or else a browser session's cookie (with the
// CSRF header on an unsafe method), and puts its person on the request.
func (s *Server) authenticate(c *gin.Context) {
	var p workspace.Person
	var err error
	token := bearer(c)
	if token == "" && sessionOf(c) != "" {
		token = sessionOf(c)
		p, err = s.sessionPerson(c, token)
	} else {
		p, err = s.bearerPerson(c, token, "")
	}
	if err = s.signInFailed(c, err, token); err != nil {
		respondError(c, err)
		return
	}
	c.Set(personKey, p)
	c.Next()
}

// streamPerson authenticates a request for a stream. A browser's
// EventSource cannot send a header, so besides the Authorization header a
// stream takes ?streamToken=, a token of exactly this scope (a full token
// in a URL is refused), and then the session cookie. A good stream token
// wins over the cookie, so a URL keeps naming its own person's stream.
func (s *Server) streamPerson(c *gin.Context, scope string) (p workspace.Person, err error) {
	defer func() {
		err = s.signInFailed(c, err, bearer(c), c.Query("streamToken"), sessionOf(c))
		if err == nil {
			c.Set(personKey, p) // for the access log
		}
	}()
	if token := bearer(c); token != "" {
		return s.bearerPerson(c, token, scope)
	}
	p, err = s.Workspace.AuthenticateScoped(c.Request.Context(), c.Query("streamToken"), scope)
	if session := sessionOf(c); session != "" && errors.Is(err, workspace.ErrUnauthenticated) {
		p, err = s.sessionPerson(c, session)
	}
	if errors.Is(err, workspace.ErrUnauthenticated) {
		return workspace.Person{}, newError(http.StatusUnauthorized, codeUnauthenticated, "",
			"this stream needs a bearer token, a session cookie, or in ?streamToken= the stream token Hub gave out for it (a full token is never accepted in a URL)")
	}
	return p, err
}

func bearer(c *gin.Context) string {
	h := c.GetHeader("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}

func person(c *gin.Context) workspace.Person {
	p, _ := c.Get(personKey)
	return p.(workspace.Person)
}

func actor(c *gin.Context) workspace.Actor {
	return workspace.Actor{PersonID: person(c).ID, Via: workspace.ViaREST}
}

// bearerPerson is the person of a bearer: a JWT of the identity provider when one is
// configured (a full credential, for every scope), else a Hub token, which is never sent to
// the provider nor stopped by its being down.
func (s *Server) bearerPerson(c *gin.Context, token, scope string) (workspace.Person, error) {
	if s.Identity == nil || !identity.LooksLikeJWT(token) {
		return s.Workspace.Authenticate(c.Request.Context(), token, scope)
	}
	sub, err := s.Identity.Verify(c.Request.Context(), token)
	switch {
	case errors.Is(err, identity.ErrUnreachable):
		slog.WarnContext(c.Request.Context(), "identity provider unreachable", "err", err)
		return workspace.Person{}, unavailable("the identity provider cannot be reached to check this token; a Hub token still works")
	case err != nil:
		slog.DebugContext(c.Request.Context(), "oidc token refused", "err", err)
		return workspace.Person{}, fmt.Errorf("%w: %v", workspace.ErrUnauthenticated, err)
	}
	return s.Workspace.SignInSubject(c.Request.Context(), sub.Issuer, sub.Subject, sub.Name)
}

// A browser signs in once (docs/api.md, "Sessions"): POST /api/session
// exchanges a full token for an HttpOnly, SameSite=Strict cookie, taken
// wherever the bearer token is. A request signed in by the cookie that
// could change something must also carry X-Hub-CSRF, which no other site's
// page can send here: a form cannot set a header, and CORS does not allow
// it to a script of another origin.
const (
	sessionCookie = "hub_session"
	csrfHeader    = "X-Hub-CSRF"
)

type createSessionRequest struct {
	Token string `json:"token" doc:"A full token (hub token create; hub dev's link carries one): a stream token or an operator token is refused."`
}

type sessionDTO struct {
	PersonID  string     `json:"personId"`
	Name      string     `json:"name"`
	ExpiresAt *time.Time `json:"expiresAt,omitempty" doc:"POST only: when the session ends at the latest (7 days, or its token's expiry when sooner). It ends earlier with its token or on DELETE /api/session."`
}

// getSession says who the request is signed in as (tabs compare it when another signs in).
func (s *Server) getSession(c *gin.Context) (any, error) {
	return sessionDTO{PersonID: person(c).ID, Name: person(c).Name}, nil
}

// createSession exchanges a token for a session cookie. It too needs the CSRF header: else
// another site's form could sign this browser in as someone else.
func (s *Server) createSession(c *gin.Context) (any, error) {
	if !csrfHeaderSent(c) {
		return nil, csrfError()
	}
	var req createSessionRequest
	if err := decode(c, &req); err != nil {
		return nil, err
	}
	ctx := c.Request.Context()
	tok := strings.TrimSpace(req.Token)
	if tok == "" {
		return nil, badRequest("/token", "token is required")
	}
	session, expires, err := s.Workspace.CreateSession(ctx, tok)
	if err = s.signInFailed(c, err, tok); err != nil {
		return nil, err
	}
	p, err := s.Workspace.AuthenticateSession(ctx, session)
	if err != nil {
		return nil, err
	}
	c.Set(personKey, p) // for the access log
	setSessionCookie(c, session, expires)
	return sessionDTO{PersonID: p.ID, Name: p.Name, ExpiresAt: &expires}, nil
}

// deleteSession ends the cookie's session (a bearer request has none) and clears the cookie.
func (s *Server) deleteSession(c *gin.Context) (any, error) {
	if v := sessionOf(c); v != "" && bearer(c) == "" {
		if err := s.Workspace.DeleteSession(c.Request.Context(), v); err != nil {
			return nil, err
		}
	}
	setSessionCookie(c, "", time.Time{})
	return nil, nil
}

// overHTTPS says whether the browser reached Hub, or a proxy in front, over TLS.
// X-Forwarded-Proto is taken from anyone: it only decides the Secure flag of the caller's own
// cookies and the scheme of its own callback URL, which the provider checks.
func overHTTPS(c *gin.Context) bool {
	return c.Request.TLS != nil || strings.EqualFold(c.GetHeader("X-Forwarded-Proto"), "https")
}

// setSessionCookie sets the session cookie (value "": clears it).
func setSessionCookie(c *gin.Context, value string, expires time.Time) {
	ck := &http.Cookie{Name: sessionCookie, Value: value, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: overHTTPS(c)}
	if value == "" {
		ck.MaxAge = -1
	} else {
		ck.Expires = expires
		ck.MaxAge = max(1, int(time.Until(expires).Seconds()))
	}
	http.SetCookie(c.Writer, ck)
}

// sessionOf is the request's session cookie ("": none).
func sessionOf(c *gin.Context) string {
	v, _ := c.Cookie(sessionCookie)
	return v
}

func csrfHeaderSent(c *gin.Context) bool { return strings.TrimSpace(c.GetHeader(csrfHeader)) != "" }

func csrfError() error {
	return newError(http.StatusForbidden, codeForbidden, "",
		"a request signed in by the session cookie that changes something needs the header "+csrfHeader+": 1 (a bearer token needs none)")
}

// safeMethod: a method that changes nothing needs no CSRF header.
func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// sessionPerson authenticates by the session cookie, with the CSRF header on an unsafe method.
func (s *Server) sessionPerson(c *gin.Context, session string) (workspace.Person, error) {
	p, err := s.Workspace.AuthenticateSession(c.Request.Context(), session)
	if err != nil {
		return p, err
	}
	if !safeMethod(c.Request.Method) && !csrfHeaderSent(c) {
		return workspace.Person{}, csrfError()
	}
	return p, nil
}
