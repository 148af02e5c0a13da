package api

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"hub/identity"
	"hub/workspace"
)

const personKey = "hub.person"

// authenticate requires a full bearer token, or else a browser session's
// cookie (with the CSRF header on an unsafe method: session.go), and puts
// its person on the request.
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

// bearerPerson is the person of a bearer: a JWT of the identity provider
// when one is configured (a full credential, taken for every scope), else
// a Hub token. A Hub token is never sent to the provider, and a provider
// that is down stops no Hub token.
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
