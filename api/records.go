package api

import (
	"cmp"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"hub/workspace"
)

type spaceDTO struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Role string `json:"role"`
}

type spaceListDTO struct {
	Spaces []spaceDTO `json:"spaces"`
}

func (s *Server) listSpaces(c *gin.Context) (any, error) {
	spaces, err := s.Workspace.ListSpaces(c.Request.Context(), person(c).ID)
	return spaceListDTO{Spaces: toDTOs(spaces, func(sp workspace.Space) spaceDTO {
		return spaceDTO{ID: sp.ID, Name: sp.Name, Role: string(sp.Role)}
	})}, err
}

type taskDTO struct {
	ID         string    `json:"id"`
	Title      string    `json:"title"`
	Status     string    `json:"status"`
	DueDate    *string   `json:"dueDate" doc:"A date, YYYY-MM-DD, or null."`
	Priority   string    `json:"priority"`
	ProjectID  *string   `json:"projectId"`
	AssigneeID *string   `json:"assigneeId"`
	Revision   int       `json:"revision" doc:"Send it back in a PATCH: a stale one is 409."`
	CreatedAt  time.Time `json:"createdAt"`
	UpdatedAt  time.Time `json:"updatedAt"`
}

func toTaskDTO(t workspace.Task) taskDTO {
	return taskDTO{ID: t.ID, Title: t.Title, Status: t.Status, DueDate: nullable(t.DueDate), Priority: t.Priority,
		ProjectID: nullable(t.ProjectID), AssigneeID: nullable(t.AssigneeID), Revision: t.Revision,
		CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt}
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// taskPageDTO is one page of a task list.
type taskPageDTO struct {
	Tasks      []taskDTO `json:"tasks"`
	Total      int64     `json:"total" doc:"Every task that matches, on all pages."`
	NextOffset int       `json:"nextOffset,omitempty" doc:"The offset of the next page; absent on the last."`
}

func (s *Server) listTasks(c *gin.Context) (any, error) {
	f := workspace.TaskFilter{Status: c.Query("status"), ProjectID: c.Query("projectId"), AssigneeID: c.Query("assigneeId"), Query: c.Query("q")}
	var err error
	if f.Limit, f.Offset, err = queryPage(c); err != nil {
		return nil, err
	}
	page, err := s.Workspace.ListTasks(c.Request.Context(), actor(c), c.Param("spaceId"), f)
	return taskPageDTO{Tasks: toDTOs(page.Tasks, toTaskDTO), Total: page.Total, NextOffset: page.NextOffset}, err
}

// queryPage reads a list's limit and offset query parameters.
func queryPage(c *gin.Context) (limit, offset int, err error) {
	limit, lerr := queryInt(c, "limit")
	offset, oerr := queryInt(c, "offset")
	return limit, offset, cmp.Or(lerr, oerr)
}

func queryInt(c *gin.Context, name string) (int, error) {
	v := c.Query(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, badRequest("/"+name, name+" must be a whole number, 0 or more")
	}
	return n, nil
}

type createTaskRequest struct {
	Title      string `json:"title" openapi:"required"`
	Status     string `json:"status"`
	DueDate    string `json:"dueDate"`
	Priority   string `json:"priority"`
	ProjectID  string `json:"projectId"`
	AssigneeID string `json:"assigneeId"`
}

func (s *Server) createTask(c *gin.Context, req createTaskRequest) (any, error) {
	tasks, err := s.Workspace.CreateTasks(c.Request.Context(), actor(c), c.Param("spaceId"), "", []workspace.NewTask{workspace.NewTask(req)})
	if err != nil {
		return nil, stripIndex(err)
	}
	return toTaskDTO(tasks[0]), nil
}

// stripIndex turns "/0/title" (the service's path for the first of a list)
// into "/title", the path in a single-task request body.
func stripIndex(err error) error {
	if inv, ok := err.(*workspace.InvalidError); ok && len(inv.Path) > 2 && inv.Path[:3] == "/0/" {
		return &workspace.InvalidError{Path: inv.Path[2:], Message: inv.Message}
	}
	if nf, ok := err.(*workspace.NotFoundError); ok && len(nf.Path) > 2 && nf.Path[:3] == "/0/" {
		return &workspace.NotFoundError{Kind: nf.Kind, ID: nf.ID, Path: nf.Path[2:]}
	}
	return err
}

type updateTaskRequest struct {
	Title      Optional[string] `json:"title" openapi:"nonnull"`
	Status     Optional[string] `json:"status" openapi:"nonnull"`
	DueDate    Optional[string] `json:"dueDate"`
	Priority   Optional[string] `json:"priority" openapi:"nonnull"`
	ProjectID  Optional[string] `json:"projectId"`
	AssigneeID Optional[string] `json:"assigneeId"`
	Revision   Optional[int]    `json:"revision" openapi:"nonnull"`
}

func (s *Server) updateTask(c *gin.Context, req updateTaskRequest) (any, error) {
	var err error
	p := workspace.TaskPatch{Title: nonNull(&err, req.Title, "/title"), Status: nonNull(&err, req.Status, "/status"),
		DueDate: patchValue(req.DueDate), Priority: nonNull(&err, req.Priority, "/priority"), ProjectID: patchValue(req.ProjectID),
		AssigneeID: patchValue(req.AssigneeID), Revision: nonNull(&err, req.Revision, "/revision")}
	if err != nil {
		return nil, err
	}
	t, err := s.Workspace.UpdateTask(c.Request.Context(), actor(c), c.Param("spaceId"), c.Param("id"), p)
	return toTaskDTO(t), err
}

type projectDTO struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	Status      string    `json:"status"`
	Description string    `json:"description"`
	Revision    int       `json:"revision" doc:"Send it back in a PATCH: a stale one is 409."`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

func toProjectDTO(p workspace.Project) projectDTO {
	return projectDTO{ID: p.ID, Name: p.Name, Status: p.Status, Description: p.Description, Revision: p.Revision,
		CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
}

type projectPageDTO struct {
	Projects   []projectDTO `json:"projects"`
	Total      int64        `json:"total" doc:"Every project that matches, on all pages."`
	NextOffset int          `json:"nextOffset,omitempty" doc:"The offset of the next page; absent on the last."`
}

func (s *Server) listProjects(c *gin.Context) (any, error) {
	f := workspace.ProjectFilter{Status: c.Query("status"), Query: c.Query("q")}
	var err error
	if f.Limit, f.Offset, err = queryPage(c); err != nil {
		return nil, err
	}
	page, err := s.Workspace.ListProjects(c.Request.Context(), actor(c), c.Param("spaceId"), f)
	return projectPageDTO{Projects: toDTOs(page.Projects, toProjectDTO), Total: page.Total, NextOffset: page.NextOffset}, err
}

type createProjectRequest struct {
	Name        string `json:"name" openapi:"required"`
	Status      string `json:"status"`
	Description string `json:"description"`
}

func (s *Server) createProject(c *gin.Context, req createProjectRequest) (any, error) {
	p, err := s.Workspace.CreateProject(c.Request.Context(), actor(c), c.Param("spaceId"), workspace.NewProject(req))
	return toProjectDTO(p), err
}

type updateProjectRequest struct {
	Name        Optional[string] `json:"name" openapi:"nonnull"`
	Status      Optional[string] `json:"status" openapi:"nonnull"`
	Description Optional[string] `json:"description"`
	Revision    Optional[int]    `json:"revision" openapi:"nonnull"`
}

func (s *Server) updateProject(c *gin.Context, req updateProjectRequest) (any, error) {
	var err error
	p := workspace.ProjectPatch{Name: nonNull(&err, req.Name, "/name"), Status: nonNull(&err, req.Status, "/status"),
		Description: patchValue(req.Description), Revision: nonNull(&err, req.Revision, "/revision")}
	if err != nil {
		return nil, err
	}
	out, err := s.Workspace.UpdateProject(c.Request.Context(), actor(c), c.Param("spaceId"), c.Param("id"), p)
	return toProjectDTO(out), err
}

type settingsDTO struct {
	WritePolicy        string   `json:"writePolicy"`
	AllowedWriteAreas  []string `json:"allowedWriteAreas" doc:"The areas the assistant may write in; [] allows every area."`
	ConnectedAppWrites bool     `json:"connectedAppWrites" doc:"Whether connected apps' writes may run without Apply."`
	Model              string   `json:"model" doc:"The person's default model (\"\": the catalog's default)."`
	Effort             string   `json:"effort" doc:"The person's default effort (\"\": none)."`
}

func toSettingsDTO(st workspace.Settings) settingsDTO {
	return settingsDTO{WritePolicy: st.WritePolicy, AllowedWriteAreas: nonNilStrings(st.AllowedWriteAreas), ConnectedAppWrites: st.ConnectedAppWrites,
		Model: st.Model, Effort: st.Effort}
}

func (s *Server) getSettings(c *gin.Context) (any, error) {
	st, err := s.Workspace.GetSettings(c.Request.Context(), person(c).ID)
	return toSettingsDTO(st), err
}

type updateSettingsRequest struct {
	WritePolicy        Optional[string]   `json:"writePolicy" openapi:"nonnull"`
	AllowedWriteAreas  Optional[[]string] `json:"allowedWriteAreas" doc:"null, like [], allows every area."`
	ConnectedAppWrites Optional[bool]     `json:"connectedAppWrites" openapi:"nonnull"`
	Model              Optional[string]   `json:"model" doc:"null or \"\" go back to the catalog's default."`
	Effort             Optional[string]   `json:"effort" doc:"null or \"\" go back to none."`
}

func (s *Server) updateSettings(c *gin.Context, req updateSettingsRequest) (any, error) {
	var err error
	p := workspace.SettingsPatch{WritePolicy: nonNull(&err, req.WritePolicy, "/writePolicy"),
		ConnectedAppWrites: nonNull(&err, req.ConnectedAppWrites, "/connectedAppWrites"),
		Model:              patchValue(req.Model), Effort: patchValue(req.Effort)}
	if err != nil {
		return nil, err
	}
	if req.AllowedWriteAreas.Set { // null, like [], allows every area again
		areas := nonNilStrings(req.AllowedWriteAreas.Value)
		p.AllowedWriteAreas = &areas
	}
	st, err := s.Workspace.UpdateSettings(c.Request.Context(), person(c).ID, p)
	return toSettingsDTO(st), err
}
