package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"hub/workspace"
)

// ReadSurfaceTool is hub_read_surface's name.
const ReadSurfaceTool = "hub_read_surface"

// What hub_read_surface reads (docs/api.md, "The page on screen"): the views
// of Hub's own pages a page context can name.
const (
	ViewTasks   = "tasks"   // a task list or board, with its filters and selection
	ViewProject = "project" // a project's page: the project and its tasks
	ViewRecord  = "record"  // the record panel's record: a task, project or person
)

// surfaceReads is what the tool says it can read, in its errors.
const surfaceReads = "hub_read_surface reads Hub's own views named by the page context: a task list " +
	"(path /tasks or /board, with its filters and selection), a project's page (/projects/<id>) and the record " +
	"panel's record (open or openId: a task, project or person of this space)"

// Surface is the view a page context names, as hub_read_surface reads it:
// parsed only, nothing resolved. Every id in it is a lookup key in the
// space the call acts in, never evidence of access.
type Surface struct {
	View string // ViewTasks, ViewProject or ViewRecord
	Path string // the page's path as sent, query included
	// SpaceID is the space a /spaces/<id>/… path names, "" when none.
	SpaceID string
	// ProjectID is the project page's project.
	ProjectID string
	// Open is the record panel's record: its kind ("" when the page did
	// not say) and id; with Part "page" the page under it is read instead.
	OpenKind, OpenID string
	// Under is the view under the record panel (nil when the page names
	// none the tool reads), read with Part "page".
	Under *Surface
	// Filters are the task filters the page applies (query, then
	// "filters" at the top level, then in "surface"), by name as sent.
	Filters map[string]json.RawMessage
	// Selected are the ids the page has selected, as sent.
	Selected []string
}

// pageObject is the part of a page context the tool reads, at the top level
// and in "surface".
type pageObject struct {
	Path, Page, Kind, App string
	Filters               map[string]json.RawMessage
	OpenKind, OpenID      string
	Selected              []string
}

// readPageObject reads one object of a page context field by field: a field
// of another type than the tool reads is left out, as if not sent.
func readPageObject(obj map[string]json.RawMessage) pageObject {
	var o pageObject
	for key, to := range map[string]*string{"path": &o.Path, "page": &o.Page, "kind": &o.Kind, "app": &o.App} {
		_ = json.Unmarshal(obj[key], to) // absent or not a string: ""
		*to = strings.TrimSpace(*to)
	}
	_ = json.Unmarshal(obj["filters"], &o.Filters)
	for _, key := range []string{"open", "openId"} { // an id, or {"kind"?, "id"}
		var id string
		var ref struct{ Kind, ID string }
		if json.Unmarshal(obj[key], &id) == nil && id != "" {
			o.OpenKind, o.OpenID = "", id
			break
		}
		if json.Unmarshal(obj[key], &ref) == nil && ref.ID != "" {
			o.OpenKind, o.OpenID = ref.Kind, ref.ID
			break
		}
	}
	for _, key := range []string{"selectedIds", "selected"} {
		var entries []json.RawMessage
		_ = json.Unmarshal(obj[key], &entries)
		for _, e := range entries {
			var id string
			if json.Unmarshal(e, &id) == nil && id != "" && !slices.Contains(o.Selected, id) {
				o.Selected = append(o.Selected, id)
			}
		}
	}
	return o
}

// ParseSurface reads the view a page context names: a task list, a
// project's page or the record panel's record. A page context that is
// missing, another app's, or a page the tool does not read is a structured
// error saying what it reads. It reads no database: the offer uses it to
// tell whether a message's page is one the tool reads.
func ParseSurface(page string) (Surface, *Error) {
	if strings.TrimSpace(page) == "" {
		return Surface{}, Errorf(CodeNotFound, "this message carries no page context, so there is no view to read; %s", surfaceReads)
	}
	var top map[string]json.RawMessage
	if json.Unmarshal([]byte(page), &top) != nil || top == nil {
		return Surface{}, Errorf(CodeRefused, "the page context does not name a view this tool reads; %s", surfaceReads)
	}
	in := []pageObject{readPageObject(top)} // the top level, then the surface, which wins
	var surface map[string]json.RawMessage
	if json.Unmarshal(top["surface"], &surface) == nil && surface != nil {
		in = append(in, readPageObject(surface))
	}
	last := func(field func(pageObject) string) string {
		v := ""
		for _, o := range in {
			v = cmp.Or(field(o), v)
		}
		return v
	}
	path, app := last(func(o pageObject) string { return o.Path }), last(func(o pageObject) string { return o.App })
	if app != "" && !strings.EqualFold(app, "hub") || strings.Contains(path, "://") || strings.HasPrefix(path, "/apps/") {
		return Surface{}, Errorf(CodeRefused, "the page is another app's, not Hub's: the assistant never reads other apps' screens; %s", surfaceReads)
	}
	s := Surface{Path: path, Filters: map[string]json.RawMessage{}}
	u, err := url.Parse(path)
	if err != nil {
		return Surface{}, Errorf(CodeRefused, "the page's path cannot be read; %s", surfaceReads)
	}
	for key, values := range u.Query() {
		if len(values) > 0 {
			s.Filters[key], _ = json.Marshal(values[0]) // a string always encodes
		}
	}
	for _, o := range in {
		for key, v := range o.Filters {
			s.Filters[key] = v
		}
		for _, id := range o.Selected {
			if !slices.Contains(s.Selected, id) {
				s.Selected = append(s.Selected, id)
			}
		}
		if o.OpenID != "" {
			s.OpenKind, s.OpenID = o.OpenKind, o.OpenID
		}
	}

	segs := strings.FieldsFunc(u.Path, func(r rune) bool { return r == '/' })
	if len(segs) >= 2 && segs[0] == "spaces" {
		s.SpaceID, segs = segs[1], segs[2:]
	}
	named := strings.ToLower(last(func(o pageObject) string { return cmp.Or(o.Kind, o.Page) }))
	switch {
	case len(segs) == 1 && (segs[0] == "tasks" || segs[0] == "board"),
		len(segs) == 0 && (named == "tasks" || named == "board"):
		s.View = ViewTasks
	case len(segs) >= 2 && segs[0] == "projects" && (len(segs) == 2 || len(segs) == 3 && segs[2] == "tasks"):
		s.View, s.ProjectID = ViewProject, segs[1]
	case len(segs) == 2 && segs[0] == "tasks" && s.OpenID == "":
		s.OpenKind, s.OpenID = workspace.KindTask, segs[1]
	case len(segs) == 2 && segs[0] == "people" && s.OpenID == "":
		s.OpenKind, s.OpenID = workspace.KindPerson, segs[1]
	}
	if s.OpenID == "" {
		if s.View == "" {
			return Surface{}, Errorf(CodeRefused, "the page context names no view this tool reads; %s", surfaceReads)
		}
		return s, nil
	}
	// The record panel is over the page: the record is what is read, the
	// page under it on request.
	if s.View != "" {
		under := s
		under.OpenKind, under.OpenID = "", ""
		s.Under = &under
	}
	s.View, s.ProjectID = ViewRecord, ""
	return s, nil
}

// ReadSurfaceInput is hub_read_surface's input: nothing is required.
type ReadSurfaceInput struct {
	Part   string `json:"part,omitempty" jsonschema:"enum=record,enum=page" jsonschema_description:"When a record panel is open over a page: record (the default) reads the panel's record, page the list under it."`
	Limit  int    `json:"limit,omitempty" jsonschema:"minimum=1,maximum=200" jsonschema_description:"How many tasks of a list to return (default 50)."`
	Offset int    `json:"offset,omitempty" jsonschema:"minimum=0" jsonschema_description:"How many of the list's tasks to skip, to page on."`
}

// SurfaceView says what was read: the view, its path, the filters applied
// and those that could not be, and the selection that resolved.
type SurfaceView struct {
	Kind        string            `json:"kind"`
	Path        string            `json:"path,omitempty"`
	Filters     map[string]string `json:"filters,omitempty"`
	NotApplied  []string          `json:"notApplied,omitempty"`
	SelectedIDs []string          `json:"selectedIds,omitempty"`
	Notes       []string          `json:"notes,omitempty"`
}

// SurfaceTask is a task of a view, marked when the person selected it.
type SurfaceTask struct {
	TaskData
	Selected bool `json:"selected,omitempty"`
}

// ReadSurface is hub_read_surface: the records of the view the person's page
// context names, read in the space through the same service calls as the
// screen's REST routes (GET …/tasks with the view's filters, GET
// …/projects/:id, GET …/tasks/:id, …/people/:id), so the person reads here
// exactly what they may see there. It never reads another space than the
// call's, nor pixels, nor another app.
var ReadSurface = Define(Spec{
	Name: ReadSurfaceTool, Area: "surface",
	Description: "Read what is on the person's screen: the records of the view their page context names, as they may see them — a task list with its filters applied and which tasks are selected, a project's page (the project and its tasks), or the record open in the record panel. Use it when the request is about this page, these or the selected tasks, or the open record.",
}, func(ctx context.Context, env Env, in ReadSurfaceInput) (Result, error) {
	s, terr := ParseSurface(env.PageContext)
	if terr != nil {
		return Result{}, terr
	}
	if s.SpaceID != "" && s.SpaceID != env.SpaceID {
		return Result{}, Errorf(CodeRefused, "the page is of another space than this call reads; the assistant reads only the spaces of this turn")
	}
	if in.Part == "page" && s.View == ViewRecord {
		if s.Under == nil {
			return Result{}, &Error{Code: CodeNotFound, Path: "/part", Message: "no page this tool reads is under the record panel; read the record instead"}
		}
		s = *s.Under
	}
	if s.View == ViewRecord {
		return readRecord(ctx, env, s)
	}
	return readTaskView(ctx, env, s, in)
})

// readRecord reads the record panel's record as GET …/tasks/:id,
// …/projects/:id or …/people/:id does.
func readRecord(ctx context.Context, env Env, s Surface) (Result, error) {
	found, err := env.Workspace.FindRefs(ctx, env.Actor, env.SpaceID, []string{s.OpenID})
	if err != nil {
		return Result{}, err
	}
	ref, ok := found[s.OpenID]
	if !ok || s.OpenKind != "" && s.OpenKind != ref.Kind && !(s.OpenKind == "member" && ref.Kind == workspace.KindPerson) {
		return Result{}, Errorf(CodeNotFound, "the record open on screen names no record the person can open in this space")
	}
	view := SurfaceView{Kind: ViewRecord, Path: s.Path}
	var data any
	var what string
	switch ref.Kind {
	case workspace.KindTask:
		t, err := env.Workspace.GetTask(ctx, env.Actor, env.SpaceID, ref.ID)
		if err != nil {
			return Result{}, err
		}
		data = struct {
			View SurfaceView `json:"view"`
			Task TaskData    `json:"task"`
		}{view, toTaskData(t)}
		what, ref = "the task "+ListTitles([]Titled{taskTitled(t)}), workspace.TaskRef(t)
	case workspace.KindProject:
		p, err := env.Workspace.GetProject(ctx, env.Actor, env.SpaceID, ref.ID)
		if err != nil {
			return Result{}, err
		}
		data = struct {
			View    SurfaceView `json:"view"`
			Project ProjectData `json:"project"`
		}{view, toProjectData(p)}
		what, ref = "the project "+ListTitles([]Titled{{Title: p.Name}}), projectRef(p)
	default: // a person of the space
		p, err := env.Workspace.GetSpacePerson(ctx, env.Actor, env.SpaceID, ref.ID)
		if err != nil {
			return Result{}, err
		}
		data = struct {
			View   SurfaceView `json:"view"`
			Person PersonData  `json:"person"`
		}{view, toPersonData(p)}
		what = ListTitles([]Titled{{Title: p.Name}})
	}
	return Result{Summary: fmt.Sprintf("Read the record open on screen: %s.", what), Data: data, Refs: []workspace.Ref{ref}}, nil
}

// readTaskView reads a task list, or a project's page, with the view's
// filters, as GET …/tasks with those filters does, marking the tasks the
// person selected.
func readTaskView(ctx context.Context, env Env, s Surface, in ReadSurfaceInput) (Result, error) {
	view := SurfaceView{Kind: s.View, Path: s.Path, Filters: map[string]string{}}
	f := workspace.TaskFilter{Limit: in.Limit, Offset: in.Offset}
	keys := make([]string, 0, len(s.Filters))
	for key := range s.Filters {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	for _, key := range keys {
		var v string
		if json.Unmarshal(s.Filters[key], &v) != nil {
			view.NotApplied = append(view.NotApplied, fmt.Sprintf("filters/%s: not a single value this tool applies", key))
			continue
		}
		v = strings.TrimSpace(v)
		if v == "" || strings.EqualFold(v, "all") || strings.EqualFold(v, "any") {
			continue // no filter
		}
		switch strings.ToLower(key) {
		case "status":
			if !slices.Contains(workspace.TaskStatuses, v) {
				view.NotApplied = append(view.NotApplied, fmt.Sprintf("filters/%s: %q is not a task status (%s)", key, v, strings.Join(workspace.TaskStatuses, ", ")))
				continue
			}
			f.Status = v
		case "projectid", "project":
			if s.View == ViewProject {
				view.NotApplied = append(view.NotApplied, fmt.Sprintf("filters/%s: the page is the project's own", key))
				continue
			}
			f.ProjectID = v
		case "assigneeid", "assignee":
			if strings.EqualFold(v, "me") {
				v = env.Actor.PersonID
			}
			f.AssigneeID = v
		case "q", "query", "search":
			f.Query = v
		default:
			view.NotApplied = append(view.NotApplied, fmt.Sprintf("filters/%s: Hub's task list has no such filter", key))
			continue
		}
		view.Filters[key] = v
	}

	var project *ProjectData
	refs := []workspace.Ref{}
	if s.View == ViewProject {
		p, err := env.Workspace.GetProject(ctx, env.Actor, env.SpaceID, s.ProjectID)
		if err != nil {
			if te := AsError(err); te.Code == CodeNotFound {
				return Result{}, Errorf(CodeNotFound, "the project of the page names no project the person can open in this space")
			}
			return Result{}, err
		}
		pd := toProjectData(p)
		project, f.ProjectID = &pd, p.ID
		refs = append(refs, projectRef(p))
	}
	// The ids the page supplies are resolved in the space: one that names
	// nothing there is said so, and never read.
	lookup := slices.Concat(s.Selected, []string{f.AssigneeID, f.ProjectID})
	found, err := env.Workspace.FindRefs(ctx, env.Actor, env.SpaceID, lookup)
	if err != nil {
		return Result{}, err
	}
	for _, c := range []struct{ key, id, kind string }{{"projectId", f.ProjectID, workspace.KindProject}, {"assigneeId", f.AssigneeID, workspace.KindPerson}} {
		if r, ok := found[c.id]; c.id != "" && (!ok || r.Kind != c.kind) {
			view.Notes = append(view.Notes, fmt.Sprintf("the %s filter names no %s the person can open in this space, so no task matches it", c.key, c.kind))
		}
	}
	selected := map[string]bool{}
	for _, id := range s.Selected {
		if r, ok := found[id]; ok && r.Kind == workspace.KindTask {
			selected[id] = true
			view.SelectedIDs = append(view.SelectedIDs, id)
		}
	}
	if dropped := len(s.Selected) - len(view.SelectedIDs); dropped > 0 {
		view.Notes = append(view.Notes, fmt.Sprintf("%d of the %d selected ids name no task the person can open in this space", dropped, len(s.Selected)))
	}

	page, err := env.Workspace.ListTasks(ctx, env.Actor, env.SpaceID, f)
	if err != nil {
		return Result{}, err
	}
	data, titled, taskRefs := taskRecords(page.Tasks)
	tasks := make([]SurfaceTask, len(data))
	for i, t := range data {
		tasks[i] = SurfaceTask{TaskData: t, Selected: selected[t.ID]}
	}
	listed := listPage{Total: page.Total, Offset: in.Offset, NextOffset: page.NextOffset}
	if page.NextOffset > 0 {
		listed.More = "More tasks are on this view than this page holds: call hub_read_surface again with offset set to nextOffset for the next ones."
	}
	summary := "The task list on screen: "
	if project != nil {
		summary = fmt.Sprintf("The project %s on screen: ", ListTitles([]Titled{{Title: project.Name}}))
	}
	summary += pageSummary(int(page.Total), in.Offset, titled, "task", "tasks")
	if n := len(view.SelectedIDs); n > 0 {
		summary += fmt.Sprintf(" %d selected.", n)
	}
	out := struct {
		View    SurfaceView   `json:"view"`
		Project *ProjectData  `json:"project,omitempty"`
		Tasks   []SurfaceTask `json:"tasks"`
		listPage
	}{view, project, tasks, listed}
	return Result{Summary: summary, Data: out, Refs: append(refs, taskRefs...)}, nil
}
