package api

import (
	"context"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"hub/workspace"
)

type undoRequest struct {
	UndoGroupID string `json:"undoGroupId" openapi:"required"`
}

// undoRecordDTO names a record Undo or Redo put back, by its title.
type undoRecordDTO struct {
	Kind  string `json:"kind"`
	ID    string `json:"id"`
	Label string `json:"label"`
}

type undoResultDTO struct {
	UndoGroupID string          `json:"undoGroupId"`
	State       string          `json:"state"`
	Records     []undoRecordDTO `json:"records"`
}

func toUndoResultDTO(r workspace.UndoResult) undoResultDTO {
	out := undoResultDTO{UndoGroupID: r.GroupID, State: r.State, Records: make([]undoRecordDTO, len(r.Records))}
	for i, ref := range r.Records {
		out.Records[i] = undoRecordDTO{Kind: ref.Kind, ID: ref.ID, Label: ref.Label}
	}
	return out
}

func (s *Server) undo(c *gin.Context) { s.undoRedo(c, s.Workspace.Undo) }

func (s *Server) redo(c *gin.Context) { s.undoRedo(c, s.Workspace.Redo) }

// undoRedo is the one shape of both routes. Whether the person may act on
// the group is decided by hub from the group's maker and space, never from
// the id alone: someone else's group is a 404.
func (s *Server) undoRedo(c *gin.Context, run func(ctx context.Context, personID, groupID string) (workspace.UndoResult, error)) {
	var req undoRequest
	if !bind(c, &req) {
		return
	}
	id := strings.TrimSpace(req.UndoGroupID)
	if id == "" {
		respondError(c, badRequest("/undoGroupId", "undoGroupId is required"))
		return
	}
	res, err := run(c.Request.Context(), person(c).ID, id)
	if err != nil {
		respondError(c, err)
		return
	}
	c.JSON(http.StatusOK, toUndoResultDTO(res))
}
