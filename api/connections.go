package api

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"hub/workspace"
)

// connectionDTO is a connected app as the api shows it. url is left out
// for people who may not manage connections (the domain gives them none;
// a guest sees no connections at all).
type connectionDTO struct {
	ID        string    `json:"id"`
	Kind      string    `json:"kind"`
	Name      string    `json:"name"`
	URL       string    `json:"url,omitempty"`
	Enabled   bool      `json:"enabled"`
	Failure   string    `json:"failure,omitempty"` // why Hub's last post failed: reconnect it
	OwnerID   string    `json:"ownerId"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

func toConnectionDTO(c workspace.Connection) connectionDTO {
	return connectionDTO{ID: c.ID, Kind: c.Kind, Name: c.Name, URL: c.URL, Enabled: c.Enabled, Failure: c.Failure, OwnerID: c.OwnerID,
		CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
}

func (s *Server) listConnections(c *gin.Context) {
	conns, err := s.Workspace.ListConnections(c.Request.Context(), actor(c), c.Param("spaceId"))
	if err != nil {
		respondError(c, err)
		return
	}
	out := make([]connectionDTO, len(conns))
	for i, conn := range conns {
		out[i] = toConnectionDTO(conn)
	}
	c.JSON(http.StatusOK, gin.H{"connections": out})
}

type createConnectionRequest struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
	URL  string `json:"url"`
}

func (s *Server) createConnection(c *gin.Context) {
	var req createConnectionRequest
	if !bind(c, &req) {
		return
	}
	conn, err := s.Workspace.CreateConnection(c.Request.Context(), actor(c), c.Param("spaceId"), workspace.NewConnection(req))
	if err != nil {
		respondError(c, err)
		return
	}
	c.JSON(http.StatusCreated, toConnectionDTO(conn))
}

func (s *Server) deleteConnection(c *gin.Context) {
	if _, err := s.Workspace.DeleteConnection(c.Request.Context(), actor(c), c.Param("spaceId"), c.Param("id")); err != nil {
		respondError(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}
