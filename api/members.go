package api

import (
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
// leave). The person's top bar drops their work in the space at once. Their running turns in the space end at their next step
// with error code forbidden (the activities check access at every step); a
// paused one is resumed so that it gets there now instead of waiting for
// its time limit, since its person can no longer resume or stop it.
func (s *Server) removeMember(c *gin.Context) {
	ctx := c.Request.Context()
	spaceID, personID := c.Param("spaceId"), c.Param("personId")
	if err := s.Workspace.RemoveMember(ctx, person(c).ID, spaceID, personID); err != nil {
		respondError(c, err)
		return
	}
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
	c.JSON(http.StatusOK, personDTO{ID: p.ID, Name: p.Name, Role: string(p.Role)})
}
