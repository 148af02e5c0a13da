package api

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/gin-gonic/gin"

	"hub/chat"
	"hub/workflows"
	"hub/workspace"
)

type memberRoleRequest struct {
	Role *string `json:"role"`
}

// removeMember ends a membership (an owner removes someone; anyone may
// leave): the same service path and the same aftermath as DELETE
// /api/spaces/:spaceId/people/:id.
func (s *Server) removeMember(c *gin.Context) {
	s.removeFromSpace(c, c.Param("personId"))
}

// removeFromSpace removes a person from the space and ends their work
// there. Their top bar drops their work in the space at once. Their
// running turns in the space end at their next step with error code
// forbidden (the activities check access at every step); a paused one is
// resumed so that it gets there now instead of waiting for its time limit,
// since its person can no longer resume or stop it.
func (s *Server) removeFromSpace(c *gin.Context, personID string) {
	ctx := c.Request.Context()
	spaceID := c.Param("spaceId")
	if _, err := s.Workspace.RemovePerson(ctx, actor(c), spaceID, personID); err != nil {
		respondError(c, err)
		return
	}
	s.endWorkOfLeaver(ctx, spaceID, personID)
	c.Status(http.StatusNoContent)
}

// endWorkOfLeaver is what follows a person's removal from a space through
// the members and people routes.
func (s *Server) endWorkOfLeaver(ctx context.Context, spaceID, personID string) {
	// Their top bar drops the space's work now.
	if err := s.Chat.AnnounceLeft(ctx, personID, spaceID); err != nil {
		slog.WarnContext(ctx, "announce a removed member's work as ended", "space", spaceID, "person", personID, "error", err)
	}
	turns, err := s.Chat.UnfinishedTurnsIn(ctx, personID, spaceID)
	if err != nil {
		slog.WarnContext(ctx, "running turns of a removed member", "space", spaceID, "person", personID, "error", err)
	}
	for _, t := range turns {
		if t.Status != chat.StatusPaused {
			continue
		}
		if err := s.Temporal.SignalWorkflow(ctx, workflows.TurnWorkflowID(t.ID), "", workflows.ResumeSignal, nil); err != nil {
			slog.InfoContext(ctx, "resume a removed member's paused turn", "turn", t.ID, "error", err)
		}
	}
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
