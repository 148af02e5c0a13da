package api

import (
	"time"

	"github.com/gin-gonic/gin"

	"hub/workspace"
)

// tokenDTO is one of the person's tokens: its metadata, never the token.
type tokenDTO struct {
	ID         string     `json:"id"`
	Name       string     `json:"name" doc:"hub token create --name (\"\": none given)."`
	Prefix     string     `json:"prefix" doc:"The token's first characters, to tell it apart (\"\": a token made before Hub kept them)."`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt,omitempty" doc:"When a request last came with it (or a session or stream token made from it); written at most once a minute. Absent: never used."`
	ExpiresAt  *time.Time `json:"expiresAt,omitempty" doc:"When it stops working. Absent: never."`
}

type tokenListDTO struct {
	Tokens []tokenDTO `json:"tokens"`
}

func toTokenDTO(t workspace.TokenInfo) tokenDTO {
	return tokenDTO{ID: t.ID, Name: t.Name, Prefix: t.Prefix, CreatedAt: t.CreatedAt.UTC(), LastUsedAt: utcPtr(t.LastUsedAt), ExpiresAt: utcPtr(t.ExpiresAt)}
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// listMyTokens lists the person's own (full) tokens, oldest first.
func (s *Server) listMyTokens(c *gin.Context) (any, error) {
	list, err := s.Workspace.ListTokens(c.Request.Context(), person(c).ID, "")
	return tokenListDTO{Tokens: toDTOs(list, toTokenDTO)}, err
}

// revokeMyToken revokes one of the person's own tokens, with the sessions
// and stream tokens made from it.
func (s *Server) revokeMyToken(c *gin.Context) (any, error) {
	return nil, s.Workspace.RevokeToken(c.Request.Context(), actor(c), person(c).ID, c.Param("tokenId"))
}
