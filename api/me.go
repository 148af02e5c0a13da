package api

import (
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"hub/workspace"
)

// profileDTO is the person's profile: the assistant calls them firstName ("": name's first word).
type profileDTO struct {
	Name      string `json:"name"`
	FirstName string `json:"firstName"`
	Persona   string `json:"persona"`
}

func (s *Server) getProfile(c *gin.Context) (any, error) {
	p, err := s.Workspace.GetProfile(c.Request.Context(), person(c).ID)
	return profileDTO(p), err
}

type updateProfileRequest struct {
	Persona   Optional[string] `json:"persona"`
	FirstName Optional[string] `json:"firstName"`
}

// updateProfile saves the set fields; null or "" clears one.
func (s *Server) updateProfile(c *gin.Context, req updateProfileRequest) (any, error) {
	out, err := s.Workspace.UpdateProfile(c.Request.Context(), person(c).ID,
		workspace.ProfilePatch{Persona: patchValue(req.Persona), FirstName: patchValue(req.FirstName)})
	return profileDTO(out), err
}

type skillDTO struct {
	ID           string    `json:"id"`
	Name         string    `json:"name"`
	Description  string    `json:"description"`
	Instructions string    `json:"instructions"`
	Enabled      bool      `json:"enabled"`
	Purpose      string    `json:"purpose,omitempty"`
	Version      int       `json:"version" doc:"Send it back in a PATCH (or DELETE ?version=): a stale one is 409."`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
}

func toSkillDTO(k workspace.Skill) skillDTO { return skillDTO(k) }

type skillListDTO struct {
	Skills []skillDTO `json:"skills"`
}

func (s *Server) listSkills(c *gin.Context) (any, error) {
	skills, err := s.Workspace.ListSkills(c.Request.Context(), person(c).ID)
	return skillListDTO{Skills: toDTOs(skills, toSkillDTO)}, err
}

type createSkillRequest struct {
	Name         string `json:"name"`
	Description  string `json:"description"`
	Instructions string `json:"instructions"`
	Enabled      *bool  `json:"enabled"` // absent or null: enabled
	Purpose      string `json:"purpose"`
}

func (s *Server) createSkill(c *gin.Context, req createSkillRequest) (any, error) {
	k, err := s.Workspace.CreateSkill(c.Request.Context(), person(c).ID, workspace.NewSkill(req))
	return skillDTO(k), err
}

type updateSkillRequest struct {
	Version      Optional[int]    `json:"version" openapi:"nonnull"`
	Name         Optional[string] `json:"name" openapi:"nonnull"`
	Description  Optional[string] `json:"description" openapi:"nonnull"`
	Instructions Optional[string] `json:"instructions" openapi:"nonnull"`
	Enabled      Optional[bool]   `json:"enabled" openapi:"nonnull"`
	Purpose      Optional[string] `json:"purpose"`
}

func (s *Server) updateSkill(c *gin.Context, req updateSkillRequest) (any, error) {
	var err error
	p := workspace.SkillPatch{Name: nonNull(&err, req.Name, "/name"), Description: nonNull(&err, req.Description, "/description"),
		Instructions: nonNull(&err, req.Instructions, "/instructions"), Version: nonNull(&err, req.Version, "/version"),
		Enabled: nonNull(&err, req.Enabled, "/enabled"), Purpose: patchValue(req.Purpose)} // a null purpose, like "", clears it
	if err != nil {
		return nil, err
	}
	k, err := s.Workspace.UpdateSkill(c.Request.Context(), person(c).ID, c.Param("id"), p)
	return skillDTO(k), err
}

// deleteSkill removes a skill; ?version=N, when given, must be its current
// version (409 otherwise).
func (s *Server) deleteSkill(c *gin.Context) (any, error) {
	version, err := versionQuery(c)
	if err != nil {
		return nil, err
	}
	return nil, s.Workspace.DeleteSkill(c.Request.Context(), person(c).ID, c.Param("id"), version)
}

// versionQuery is a DELETE's ?version=N (nil when absent): the version the
// caller read, which must still be current.
func versionQuery(c *gin.Context) (*int, error) {
	raw, ok := c.GetQuery("version")
	if !ok {
		return nil, nil
	}
	v, err := strconv.Atoi(raw)
	if err != nil || v < 1 {
		return nil, badRequest("/version", "version is a whole number from 1")
	}
	return &v, nil
}

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
