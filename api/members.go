package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"hub/workspace"
)

type memberRoleRequest struct {
	Role *string `json:"role" openapi:"required,nonnull"`
}

// removeMember ends a membership (an owner removes someone; anyone may
// leave): the same service path and the same aftermath as DELETE
// /api/spaces/:spaceId/people/:id.
func (s *Server) removeMember(c *gin.Context) {
	s.removeFromSpace(c, c.Param("personId"))
}

// removeFromSpace removes a person from the space. What follows (their
// work there ends, a paused turn of theirs is resumed to end) follows every
// removal, whoever made it: wiring subscribes to the removals.
func (s *Server) removeFromSpace(c *gin.Context, personID string) {
	if _, err := s.Workspace.RemovePerson(c.Request.Context(), actor(c), c.Param("spaceId"), personID); err != nil {
		respondError(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

// setMemberRole changes a member's role (owners only) and answers the
// member as GET …/people lists them.
func (s *Server) setMemberRole(c *gin.Context) {
	var req memberRoleRequest
	if !bind(c, &req) {
		return
	}
	if req.Role == nil {
		respondError(c, badRequest("/role", "role is required: owner, editor, viewer or guest"))
		return
	}
	p, err := s.Workspace.SetMemberRole(c.Request.Context(), person(c).ID, c.Param("spaceId"), c.Param("personId"), workspace.Role(*req.Role))
	if err != nil {
		respondError(c, err)
		return
	}
	c.JSON(http.StatusOK, toPersonDTO(p))
}
