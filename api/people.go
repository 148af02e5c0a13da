package api

import (
	"time"

	"github.com/gin-gonic/gin"

	"hub/workspace"
)

// personDTO is a person of a space; their persona is not shown to others.
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

func (s *Server) listPeople(c *gin.Context) (any, error) {
	people, err := s.Workspace.ListPeople(c.Request.Context(), person(c).ID, c.Param("spaceId"))
	return personListDTO{People: toDTOs(people, toPersonDTO)}, err
}

type addPersonRequest struct {
	PersonID  string `json:"personId"`
	Name      string `json:"name"`
	FirstName string `json:"firstName"`
	Role      string `json:"role"`
}

// addPerson adds a new person by name, or by personId someone the owner
// shares another space with (owners only).
func (s *Server) addPerson(c *gin.Context, req addPersonRequest) (any, error) {
	p, err := s.Workspace.AddPerson(c.Request.Context(), actor(c), c.Param("spaceId"), workspace.NewPerson{
		PersonID: req.PersonID, Name: req.Name, FirstName: req.FirstName, Role: workspace.Role(req.Role)})
	return toPersonDTO(p), err
}

type updatePersonRequest struct {
	Name      Optional[string] `json:"name" openapi:"nonnull"`
	FirstName Optional[string] `json:"firstName"`
	Role      Optional[string] `json:"role" openapi:"nonnull"`
	Revision  Optional[int]    `json:"revision" openapi:"nonnull"`
}

func (s *Server) updatePerson(c *gin.Context, req updatePersonRequest) (any, error) {
	var err error
	p := workspace.PersonPatch{Name: nonNull(&err, req.Name, "/name"), FirstName: patchValue(req.FirstName),
		Role: (*workspace.Role)(nonNull(&err, req.Role, "/role")), Revision: nonNull(&err, req.Revision, "/revision")}
	if err != nil {
		return nil, err
	}
	out, err := s.Workspace.UpdatePerson(c.Request.Context(), actor(c), c.Param("spaceId"), c.Param("id"), p)
	return toPersonDTO(out), err
}

type memberRoleRequest struct {
	Role *string `json:"role" openapi:"required,nonnull"`
}

// setMemberRole changes a member's role (owners only).
func (s *Server) setMemberRole(c *gin.Context, req memberRoleRequest) (any, error) {
	if req.Role == nil {
		return nil, badRequest("/role", "role is required: owner, editor, viewer or guest")
	}
	p, err := s.Workspace.SetMemberRole(c.Request.Context(), person(c).ID, c.Param("spaceId"), c.Param("personId"), workspace.Role(*req.Role))
	return toPersonDTO(p), err
}
