package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"hub/workspace"
)

// profileDTO is the person's profile: their account name, the first name
// the assistant calls them by ("" = the first word of name) and their
// one sentence about their work.
type profileDTO struct {
	Name      string `json:"name"`
	FirstName string `json:"firstName"`
	Persona   string `json:"persona"`
}

func toProfileDTO(p workspace.Profile) profileDTO {
	return profileDTO{Name: p.Name, FirstName: p.FirstName, Persona: p.Persona}
}

func (s *Server) getProfile(c *gin.Context) {
	p, err := s.Workspace.GetProfile(c.Request.Context(), person(c).ID)
	if err != nil {
		respondError(c, err)
		return
	}
	c.JSON(http.StatusOK, toProfileDTO(p))
}

type updateProfileRequest struct {
	Persona   Optional[string] `json:"persona"`
	FirstName Optional[string] `json:"firstName"`
}

// updateProfile saves the set fields; null or "" clears one.
func (s *Server) updateProfile(c *gin.Context) {
	var req updateProfileRequest
	if !bind(c, &req) {
		return
	}
	var p workspace.ProfilePatch
	if req.Persona.Set {
		p.Persona = &req.Persona.Value
	}
	if req.FirstName.Set {
		p.FirstName = &req.FirstName.Value
	}
	out, err := s.Workspace.UpdateProfile(c.Request.Context(), person(c).ID, p)
	if err != nil {
		respondError(c, err)
		return
	}
	c.JSON(http.StatusOK, toProfileDTO(out))
}

// skillDTO is one of the person's skills.
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

func toSkillDTO(k workspace.Skill) skillDTO {
	return skillDTO{ID: k.ID, Name: k.Name, Description: k.Description, Instructions: k.Instructions,
		Enabled: k.Enabled, Purpose: k.Purpose, Version: k.Version, CreatedAt: k.CreatedAt, UpdatedAt: k.UpdatedAt}
}

type skillListDTO struct {
	Skills []skillDTO `json:"skills"`
}

func (s *Server) listSkills(c *gin.Context) {
	skills, err := s.Workspace.ListSkills(c.Request.Context(), person(c).ID)
	if err != nil {
		respondError(c, err)
		return
	}
	out := make([]skillDTO, len(skills))
	for i, k := range skills {
		out[i] = toSkillDTO(k)
	}
	c.JSON(http.StatusOK, skillListDTO{Skills: out})
}

type createSkillRequest struct {
	Name         string `json:"name"`
	Description  string `json:"description"`
	Instructions string `json:"instructions"`
	Enabled      *bool  `json:"enabled"` // absent or null: enabled
	Purpose      string `json:"purpose"`
}

func (s *Server) createSkill(c *gin.Context) {
	var req createSkillRequest
	if !bind(c, &req) {
		return
	}
	k, err := s.Workspace.CreateSkill(c.Request.Context(), person(c).ID, workspace.NewSkill{Name: req.Name,
		Description: req.Description, Instructions: req.Instructions, Enabled: req.Enabled, Purpose: req.Purpose})
	if err != nil {
		respondError(c, err)
		return
	}
	c.JSON(http.StatusCreated, toSkillDTO(k))
}

func (s *Server) getSkill(c *gin.Context) {
	k, err := s.Workspace.GetSkill(c.Request.Context(), person(c).ID, c.Param("id"))
	if err != nil {
		respondError(c, err)
		return
	}
	c.JSON(http.StatusOK, toSkillDTO(k))
}

type updateSkillRequest struct {
	Version      Optional[int]    `json:"version" openapi:"nonnull"`
	Name         Optional[string] `json:"name" openapi:"nonnull"`
	Description  Optional[string] `json:"description" openapi:"nonnull"`
	Instructions Optional[string] `json:"instructions" openapi:"nonnull"`
	Enabled      Optional[bool]   `json:"enabled" openapi:"nonnull"`
	Purpose      Optional[string] `json:"purpose"`
}

func (s *Server) updateSkill(c *gin.Context) {
	var req updateSkillRequest
	if !bind(c, &req) {
		return
	}
	var p workspace.SkillPatch
	var err error
	for _, f := range []struct {
		dst  **string
		src  Optional[string]
		path string
	}{{&p.Name, req.Name, "/name"}, {&p.Description, req.Description, "/description"},
		{&p.Instructions, req.Instructions, "/instructions"}} {
		if err == nil {
			*f.dst, err = requireValue(f.src, f.path)
		}
	}
	if err == nil {
		p.Version, err = requireValue(req.Version, "/version")
	}
	if err == nil {
		p.Enabled, err = requireValue(req.Enabled, "/enabled")
	}
	if err != nil {
		respondError(c, err)
		return
	}
	if req.Purpose.Set { // null, like "", clears it
		p.Purpose = &req.Purpose.Value
	}
	k, err := s.Workspace.UpdateSkill(c.Request.Context(), person(c).ID, c.Param("id"), p)
	if err != nil {
		respondError(c, err)
		return
	}
	c.JSON(http.StatusOK, toSkillDTO(k))
}

// deleteSkill removes a skill; ?version=N, when given, must be its current
// version (409 otherwise).
func (s *Server) deleteSkill(c *gin.Context) {
	var version *int
	if raw, ok := c.GetQuery("version"); ok {
		v, err := strconv.Atoi(raw)
		if err != nil || v < 1 {
			respondError(c, badRequest("/version", "version is a whole number from 1"))
			return
		}
		version = &v
	}
	if err := s.Workspace.DeleteSkill(c.Request.Context(), person(c).ID, c.Param("id"), version); err != nil {
		respondError(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}
