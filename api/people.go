package api

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"hub/workspace"
)

// A person of a space, as GET/POST/PATCH …/people and PATCH …/members
// answer them. firstName is null when the person set none; persona, their
// own sentence for the assistant, is not shown to others.
type personDTO struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	FirstName *string   `json:"firstName" doc:"null when the person set none."`
	Role      string    `json:"role"`
	Revision  int       `json:"revision"`
	JoinedAt  time.Time `json:"joinedAt"`
}

func toPersonDTO(p workspace.Person) personDTO {
	return personDTO{ID: p.ID, Name: p.Name, FirstName: nullable(p.GivenName), Role: string(p.Role), Revision: p.Revision,
		JoinedAt: p.JoinedAt}
}

type personListDTO struct {
	People []personDTO `json:"people"`
}

func (s *Server) listPeople(c *gin.Context) {
	people, err := s.Workspace.ListPeople(c.Request.Context(), person(c).ID, c.Param("spaceId"))
	if err != nil {
		respondError(c, err)
		return
	}
	out := make([]personDTO, len(people))
	for i, p := range people {
		out[i] = toPersonDTO(p)
	}
	c.JSON(http.StatusOK, personListDTO{People: out})
}

type addPersonRequest struct {
	PersonID  string `json:"personId"`
	Name      string `json:"name"`
	FirstName string `json:"firstName"`
	Role      string `json:"role"`
}

// addPerson adds a new person by name, or by personId someone the owner
// shares another space with (owners only).
func (s *Server) addPerson(c *gin.Context) {
	var req addPersonRequest
	if !bind(c, &req) {
		return
	}
	p, err := s.Workspace.AddPerson(c.Request.Context(), actor(c), c.Param("spaceId"), workspace.NewPerson{
		PersonID: req.PersonID, Name: req.Name, FirstName: req.FirstName, Role: workspace.Role(req.Role)})
	if err != nil {
		respondError(c, err)
		return
	}
	c.JSON(http.StatusCreated, toPersonDTO(p))
}

func (s *Server) getPerson(c *gin.Context) {
	p, err := s.Workspace.GetSpacePerson(c.Request.Context(), actor(c), c.Param("spaceId"), c.Param("id"))
	if err != nil {
		respondError(c, err)
		return
	}
	c.JSON(http.StatusOK, toPersonDTO(p))
}

type updatePersonRequest struct {
	Name      Optional[string] `json:"name" openapi:"nonnull"`
	FirstName Optional[string] `json:"firstName"`
	Role      Optional[string] `json:"role" openapi:"nonnull"`
	Revision  Optional[int]    `json:"revision" openapi:"nonnull"`
}

func (s *Server) updatePerson(c *gin.Context) {
	var req updatePersonRequest
	if !bind(c, &req) {
		return
	}
	p := workspace.PersonPatch{FirstName: stringPtr(req.FirstName)}
	var role *string
	var err error
	if p.Name, err = requireValue(req.Name, "/name"); err == nil {
		if role, err = requireValue(req.Role, "/role"); err == nil {
			p.Revision, err = requireValue(req.Revision, "/revision")
		}
	}
	if err != nil {
		respondError(c, err)
		return
	}
	if role != nil {
		r := workspace.Role(*role)
		p.Role = &r
	}
	out, err := s.Workspace.UpdatePerson(c.Request.Context(), actor(c), c.Param("spaceId"), c.Param("id"), p)
	if err != nil {
		respondError(c, err)
		return
	}
	c.JSON(http.StatusOK, toPersonDTO(out))
}

// deletePerson removes the person from the space (their membership), as
// DELETE …/members/:personId does.
func (s *Server) deletePerson(c *gin.Context) {
	s.removeFromSpace(c, c.Param("id"))
}
