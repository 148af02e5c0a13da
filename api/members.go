package api

import (
	"github.com/gin-gonic/gin"

	"hub/workspace"
)

type memberRoleRequest struct {
	Role *string `json:"role" openapi:"required,nonnull"`
}

// removeFromSpace ends a membership, the person's id in param (an owner
// removes someone; anyone may leave). What follows every removal is
// wiring's: it subscribes to them.
func (s *Server) removeFromSpace(param string) replyFunc {
	return func(c *gin.Context) (any, error) {
		_, err := s.Workspace.RemovePerson(c.Request.Context(), actor(c), c.Param("spaceId"), c.Param(param))
		return nil, err
	}
}

// setMemberRole changes a member's role (owners only).
func (s *Server) setMemberRole(c *gin.Context, req memberRoleRequest) (any, error) {
	if req.Role == nil {
		return nil, badRequest("/role", "role is required: owner, editor, viewer or guest")
	}
	p, err := s.Workspace.SetMemberRole(c.Request.Context(), person(c).ID, c.Param("spaceId"), c.Param("personId"), workspace.Role(*req.Role))
	return toPersonDTO(p), err
}
