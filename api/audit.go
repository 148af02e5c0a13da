package api

import (
	"fmt"
	"time"

	"github.com/gin-gonic/gin"

	"hub/workspace"
)

type auditEventDTO struct {
	ID       string         `json:"id"`
	At       time.Time      `json:"at"`
	Actor    auditActorDTO  `json:"actor"`
	Via      string         `json:"via"`
	Kind     string         `json:"kind"`
	Action   string         `json:"action"`
	TargetID string         `json:"targetId"`
	Summary  string         `json:"summary"`
	Changes  map[string]any `json:"changes"`
}

type auditPageDTO struct {
	Events []auditEventDTO `json:"events"`
	// NextBefore asks for the next (older) page; absent at the end.
	NextBefore string `json:"nextBefore,omitempty"`
}

type auditActorDTO struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// listAudit is the space's audit log, newest first, for its owners.
func (s *Server) listAudit(c *gin.Context) (any, error) {
	limit, err := queryInt(c, "limit")
	if err == nil && limit == 0 && c.Query("limit") != "" {
		// Only an absent limit takes the default.
		err = badRequest("/limit", fmt.Sprintf("limit is 1 to %d", workspace.MaxListLimit))
	}
	if err != nil {
		return nil, err
	}
	page, err := s.Workspace.Audit(c.Request.Context(), actor(c), c.Param("spaceId"), limit, c.Query("before"))
	return auditPageDTO{Events: toDTOs(page.Events, func(e workspace.AuditEvent) auditEventDTO {
		return auditEventDTO{ID: e.ID, At: e.At, Actor: auditActorDTO{ID: e.ActorID, Name: e.ActorName}, Via: e.Via, Kind: e.Kind,
			Action: e.Action, TargetID: e.TargetID, Summary: e.Summary, Changes: e.Changes}
	}), NextBefore: page.Before}, err
}
