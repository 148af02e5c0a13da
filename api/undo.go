package api

import (
	"context"
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
	return undoResultDTO{UndoGroupID: r.GroupID, State: r.State, Records: toDTOs(r.Records, func(ref workspace.Ref) undoRecordDTO {
		return undoRecordDTO{Kind: ref.Kind, ID: ref.ID, Label: ref.Label}
	})}
}

// undoRedo is the handler of both routes, with run the service's Undo or
// Redo (someone else's group is a 404).
func (s *Server) undoRedo(run func(ctx context.Context, personID, groupID string) (workspace.UndoResult, error)) replyFunc {
	return withBody(func(c *gin.Context, req undoRequest) (any, error) {
		id := strings.TrimSpace(req.UndoGroupID)
		if id == "" {
			return nil, badRequest("/undoGroupId", "undoGroupId is required")
		}
		res, err := run(c.Request.Context(), person(c).ID, id)
		return toUndoResultDTO(res), err
	})
}
