package api

import (
	"time"

	"github.com/gin-gonic/gin"

	"hub/mcpapps"
	"hub/workspace"
)

type connectionDTO struct {
	ID            string              `json:"id"`
	Kind          string              `json:"kind"`
	Name          string              `json:"name"`
	URL           string              `json:"url,omitempty" doc:"Left out for people who may not manage connections."`
	Enabled       bool                `json:"enabled"`
	Failure       string              `json:"failure,omitempty" doc:"Why Hub's last post or listing failed: reconnect or refresh it."`
	OwnerID       string              `json:"ownerId"`
	CreatedAt     time.Time           `json:"createdAt"`
	UpdatedAt     time.Time           `json:"updatedAt"`
	HasSecret     bool                `json:"hasSecret,omitempty" doc:"An MCP server has a bearer secret stored (owners and editors); the secret is never returned."`
	ToolsListedAt *time.Time          `json:"toolsListedAt,omitempty" doc:"When an MCP server's tools were last listed."`
	Tools         []connectionToolDTO `json:"tools,omitempty" doc:"An MCP server's tools as just listed (create and refresh only)."`
	Skipped       []string            `json:"skipped,omitempty" doc:"The server's tools left out, with why."`
}

// connectionToolDTO is one tool of an MCP server: Hub's name for it, the
// server's, and whether it only reads (runs at once) or always waits for
// Apply.
type connectionToolDTO struct {
	Name     string `json:"name"`
	Tool     string `json:"tool"`
	Title    string `json:"title,omitempty"`
	ReadOnly bool   `json:"readOnly"`
}

func toConnectionDTO(c workspace.Connection) connectionDTO {
	return connectionDTO{ID: c.ID, Kind: c.Kind, Name: c.Name, URL: c.URL, Enabled: c.Enabled, Failure: c.Failure, OwnerID: c.OwnerID,
		CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt, HasSecret: c.HasSecret, ToolsListedAt: c.ToolsListedAt}
}

type connectionListDTO struct {
	Connections []connectionDTO `json:"connections"`
}

func (s *Server) listConnections(c *gin.Context) (any, error) {
	conns, err := s.Workspace.ListConnections(c.Request.Context(), actor(c), c.Param("spaceId"))
	return connectionListDTO{Connections: toDTOs(conns, toConnectionDTO)}, err
}

type createConnectionRequest struct {
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	URL    string `json:"url"`
	Secret string `json:"secret,omitempty"`
}

func (s *Server) createConnection(c *gin.Context, req createConnectionRequest) (any, error) {
	conn, err := s.Workspace.CreateConnection(c.Request.Context(), actor(c), c.Param("spaceId"), workspace.NewConnection(req))
	if err != nil || conn.Kind != workspace.ConnectionMCP || s.MCP == nil {
		return toConnectionDTO(conn), err
	}
	// An MCP server is listed at once; one that fails is connected all the
	// same, with its failure to fix.
	return s.listed(c, conn.SpaceID, conn.ID)
}

func (s *Server) refreshConnection(c *gin.Context) (any, error) {
	spaceID, id := c.Param("spaceId"), c.Param("id")
	if err := s.Workspace.CanRefreshConnection(c.Request.Context(), actor(c), spaceID, id); err != nil {
		return nil, err
	}
	if s.MCP == nil {
		return nil, unavailable("MCP servers are not set up on this Hub server")
	}
	return s.listed(c, spaceID, id)
}

// listed lists a server's tools and answers with the connection as it is
// now (its failure, if the listing failed) and the tools listed.
func (s *Server) listed(c *gin.Context, spaceID, id string) (any, error) {
	ctx := c.Request.Context()
	l, err := s.MCP.Refresh(ctx, spaceID, id)
	if err != nil {
		return nil, err
	}
	conn, err := s.Workspace.GetConnection(ctx, actor(c), spaceID, id)
	d := toConnectionDTO(conn)
	d.Tools = toDTOs(l.Tools, func(t mcpapps.ListedTool) connectionToolDTO { return connectionToolDTO(t) })
	d.Skipped = l.Skipped
	return d, err
}

func (s *Server) deleteConnection(c *gin.Context) (any, error) {
	if _, err := s.Workspace.DeleteConnection(c.Request.Context(), actor(c), c.Param("spaceId"), c.Param("id")); err != nil {
		return nil, err
	}
	if s.MCP != nil {
		s.MCP.Forget(c.Param("id"))
	}
	return nil, nil
}
