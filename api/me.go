package api

import (
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"hub/workspace"
)

// profileDTO is the person's profile: firstName is what the assistant
// calls them by ("": the first word of name).
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

func (s *Server) getSkill(c *gin.Context) (any, error) {
	k, err := s.Workspace.GetSkill(c.Request.Context(), person(c).ID, c.Param("id"))
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
	var version *int
	if raw, ok := c.GetQuery("version"); ok {
		v, err := strconv.Atoi(raw)
		if err != nil || v < 1 {
			return nil, badRequest("/version", "version is a whole number from 1")
		}
		version = &v
	}
	return nil, s.Workspace.DeleteSkill(c.Request.Context(), person(c).ID, c.Param("id"), version)
}
