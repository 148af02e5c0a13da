package api

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/gin-gonic/gin"

	"hub/identity"
	"hub/workspace"
)

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
