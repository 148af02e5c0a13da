package tools_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/tools"
	"hub/workspace"
)

func TestDispatchUnknownOrUnofferedToolRunsNothing(t *testing.T) {
	t.Parallel()
	p := &probe{}
	reg := tools.NewRegistry(p.definition("probe", false), p.definition("probe_write", true))
	for _, tc := range []struct {
		name    string
		call    string
		offered []string
	}{
		{"unknown name", "hub_delete_everything", []string{"hub_delete_everything", "probe"}},
		{"known but not offered", "probe_write", []string{"probe"}},
		{"nothing offered", "probe", nil},
		{"empty name", "", []string{"", "probe"}},
		{"name differing in case", "Probe", []string{"probe"}},
		{"name with spaces", " probe ", []string{"probe"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := reg.Dispatch(t.Context(), tools.Env{Role: workspace.RoleOwner}, tools.Call{Name: tc.call, Arguments: `{}`, Offered: tc.offered})
			require.NotNil(t, err)
			require.Equal(t, tools.CodeUnknownTool, err.Code)
			require.Equal(t, fmt.Sprintf("no tool called %q", tc.call), err.Message)
			require.Equal(t, "/name", err.Path)
			require.Empty(t, res.Summary)
		})
	}
	require.Zero(t, p.runs.Load(), "nothing ran")

	res, err := reg.Dispatch(t.Context(), tools.Env{Role: workspace.RoleOwner}, tools.Call{Name: "probe", Arguments: `{"n":2}`, Offered: []string{"probe"}})
	require.Nil(t, err)
	require.Equal(t, "ran", res.Summary)
	require.Equal(t, probeInput{N: 2}, res.Data)
	require.EqualValues(t, 1, p.runs.Load())
}

// A schema failure lists every problem, each at its JSON pointer, so the
// model can fix its whole call at once.
func TestDispatchReportsEverySchemaIssue(t *testing.T) {
	t.Parallel()
	reg := tools.Hub(nil)
	_, err := reg.Dispatch(t.Context(), tools.Env{Role: workspace.RoleOwner}, tools.Call{Name: "hub_create_tasks",
		Arguments: `{"tasks":[{"titl":"x","dueDate":3}],"x":1}`, Offered: offerAll})
	require.NotNil(t, err)
	require.Equal(t, tools.CodeInvalidPayload, err.Code)
	require.Equal(t, []tools.Issue{
		{Path: "/tasks/0/dueDate", Message: "must be a string, not a number"},
		{Path: "/tasks/0/titl", Message: "is not allowed"},
		{Path: "/tasks/0/title", Message: "is required"},
		{Path: "/x", Message: "is not allowed"},
	}, err.Issues)
	require.Equal(t, err.Issues[0].Path, err.Path, "the first issue is the headline")
	require.Equal(t, err.Issues[0].Message, err.Message)

	// What the model reads back is the whole structured error.
	text := tools.ErrorText(err)
	var back struct {
		Error tools.Error `json:"error"`
	}
	require.NoError(t, json.Unmarshal([]byte(text), &back))
	require.Equal(t, *err, back.Error)
}

func TestDispatchSchemaFailures(t *testing.T) {
	t.Parallel()
	reg := tools.Hub(nil)
	for _, tc := range []struct {
		name, tool, args string
		issues           []tools.Issue
	}{
		{"empty list", "hub_create_tasks", `{"tasks":[]}`, []tools.Issue{{Path: "/tasks", Message: "minItems: got 0, want 1"}}},
		{"missing list", "hub_create_tasks", ``, []tools.Issue{{Path: "/tasks", Message: "is required"}}},
		{"null list", "hub_create_tasks", `{"tasks":null}`, []tools.Issue{{Path: "/tasks", Message: "must be an array, not null"}}},
		{"enum and type", "hub_create_tasks", `{"tasks":[{"title":"x","status":"nope","priority":1}]}`, []tools.Issue{
			{Path: "/tasks/0/priority", Message: "must be a string, not a number"},
			{Path: "/tasks/0/status", Message: "value must be one of 'todo', 'doing', 'done'"},
		}},
		{"second item", "hub_create_tasks", `{"tasks":[{"title":"a"},{"title":""}]}`, []tools.Issue{{Path: "/tasks/1/title", Message: "minLength: got 0, want 1"}}},
		{"array instead of object", "hub_list_tasks", `[1]`, []tools.Issue{{Path: "", Message: "must be an object, not an array"}}},
		{"null", "hub_list_tasks", `null`, []tools.Issue{{Path: "", Message: "must be an object, not null"}}},
		{"string", "hub_list_tasks", `"tasks"`, []tools.Issue{{Path: "", Message: "must be an object, not a string"}}},
		{"limit too big", "hub_list_tasks", `{"limit":1000}`, []tools.Issue{{Path: "/limit", Message: "maximum: got 1,000, want 200"}}},
		{"limit zero", "hub_list_tasks", `{"limit":0}`, []tools.Issue{{Path: "/limit", Message: "minimum: got 0, want 1"}}},
		{"a field in another case", "hub_list_tasks", `{"Query":"x"}`, []tools.Issue{{Path: "/Query", Message: "is not allowed"}}},
		{"a key needing escapes", "hub_list_tasks", `{"a/b~c":1}`, []tools.Issue{{Path: "/a~1b~0c", Message: "is not allowed"}}},
		{"a meta key", "hub_list_tasks", `{"meta":{"source":"user"}}`, []tools.Issue{{Path: "/meta", Message: "is not allowed"}}},
		// Integers a JSON Schema accepts that do not fit an int.
		{"integer written as a decimal", "hub_list_tasks", `{"limit":10.0}`, []tools.Issue{{Path: "/limit", Message: "must be a whole number like 10, written without a decimal point or exponent"}}},
		{"huge integer", "hub_list_tasks", `{"offset":1e30}`, []tools.Issue{{Path: "/offset", Message: "must be a whole number like 10, written without a decimal point or exponent"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := reg.Dispatch(t.Context(), tools.Env{Role: workspace.RoleOwner}, tools.Call{Name: tc.tool, Arguments: tc.args, Offered: offerAll})
			require.NotNil(t, err)
			require.Equal(t, tools.CodeInvalidPayload, err.Code)
			require.Equal(t, tc.issues, err.Issues)
			require.Equal(t, tc.issues[0].Path, err.Path)
			require.NotContains(t, err.Message, "Go struct", "no decoder internals")
		})
	}

	_, err := reg.Dispatch(t.Context(), tools.Env{Role: workspace.RoleOwner}, tools.Call{Name: "hub_list_tasks", Arguments: `{"limit":`, Offered: offerAll})
	require.NotNil(t, err)
	require.Equal(t, tools.CodeInvalidPayload, err.Code)
	require.Contains(t, err.Message, "not valid JSON")
	require.Empty(t, err.Path, "the whole input")
}

// Hostile input never panics and never reaches a tool: each answer is a
// structured error (or, for input that is valid after all, a result).
func TestDispatchHostileInput(t *testing.T) {
	t.Parallel()
	p := &probe{}
	reg := tools.NewRegistry(p.definition("probe", false))
	offered := []string{"probe"}
	huge := strings.Repeat("x", 1<<20)
	for _, tc := range []struct {
		name string
		args string
		ok   bool
	}{
		{"not JSON", `tasks please`, false},
		{"half an object", `{"n":`, false},
		{"two objects", `{} {}`, false},
		{"trailing garbage", `{"n":1}x`, false},
		{"array", `[{"n":1}]`, false},
		{"null", `null`, false},
		{"number", `42`, false},
		{"true", `true`, false},
		{"huge string", `"` + huge + `"`, false},
		{"huge key", `{"` + huge + `":1}`, false},
		{"huge value", `{"mode":"` + huge + `"}`, false},
		{"deep nesting", strings.Repeat(`{"n":`, 10000) + "1" + strings.Repeat("}", 10000), false},
		{"deep arrays", `{"n":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}`, false},
		{"unknown field", `{"n":1,"admin":true}`, false},
		{"wrong type", `{"n":"1"}`, false},
		{"negative", `{"n":-1}`, false},
		{"fraction", `{"n":1.5}`, false},
		{"enormous number", `{"n":1e400}`, false},
		{"invalid UTF-8", "{\"mode\":\"\xff\xfe\"}", false},
		{"NUL in a key", "{\"n\u0000\":1}", false},
		{"duplicate keys", `{"n":1,"n":"x"}`, false},
		{"empty arguments are an empty object", ``, true},
		{"whitespace", " \n\t", true},
		{"valid", `{"n":3,"mode":"ok"}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := p.runs.Load()
			var (
				res  tools.Result
				terr *tools.Error
			)
			require.NotPanics(t, func() {
				res, terr = reg.Dispatch(t.Context(), tools.Env{Role: workspace.RoleViewer}, tools.Call{Name: "probe", Arguments: tc.args, Offered: offered})
			})
			if tc.ok {
				require.Nil(t, terr)
				require.Equal(t, "ran", res.Summary)
				return
			}
			require.NotNil(t, terr)
			require.Equal(t, tools.CodeInvalidPayload, terr.Code)
			require.NotEmpty(t, terr.Message)
			require.Equal(t, before, p.runs.Load(), "the tool did not run")
			require.LessOrEqual(t, len([]rune(tools.ErrorText(terr))), tools.MaxResultChars)
		})
	}
}

func TestViewerWriteIsForbiddenAndChangesNothing(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		args := `{"tasks":[{"title":"Sneaky"}]}`
		_, err := f.dispatch(t, f.env(f.viewer, workspace.RoleViewer), "hub_create_tasks", args)
		require.NotNil(t, err)
		require.Equal(t, tools.CodeForbidden, err.Code)
		require.Contains(t, err.Message, "viewer")

		// An Env claiming a writing role does not help: the domain checks the
		// membership itself, as the screen does.
		_, err = f.dispatch(t, f.env(f.viewer, workspace.RoleOwner), "hub_create_tasks", args)
		require.NotNil(t, err)
		require.Equal(t, tools.CodeForbidden, err.Code)
		require.Zero(t, f.taskCount(t), "nothing changed")

		// Reads are fine.
		res, err := f.dispatch(t, f.env(f.viewer, workspace.RoleViewer), "hub_list_tasks", `{}`)
		require.Nil(t, err)
		require.Equal(t, "No tasks match.", res.Summary)
	})
}

func TestHubToolsCreateAndList(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		env := f.env(f.owner, workspace.RoleOwner)
		res, err := f.dispatch(t, env, "hub_create_tasks",
			`{"tasks":[{"title":"Draft brief","dueDate":"2026-03-31","priority":"high"},{"title":"Call Mira"}]}`)
		require.Nil(t, err)
		require.Equal(t, "Added 2 tasks: “Draft brief” and “Call Mira”.", res.Summary)
		require.Len(t, res.Refs, 2)
		require.Equal(t, workspace.Ref{Kind: "task", ID: res.Refs[0].ID, Label: "Draft brief", Detail: "todo, due 2026-03-31"}, res.Refs[0])
		require.NotContains(t, res.Summary, res.Refs[0].ID, "a summary names titles, never ids")
		data := mustJSON(t, tools.ModelText(res, tools.MaxResultChars))["data"].(map[string]any)
		first := data["tasks"].([]any)[0].(map[string]any)
		require.Equal(t, res.Refs[0].ID, first["id"], "ids are in the data")
		require.Equal(t, "high", first["priority"])

		res, err = f.dispatch(t, env, "hub_list_tasks", `{"query":"brief"}`)
		require.Nil(t, err)
		require.Equal(t, "Found 1 task: “Draft brief”.", res.Summary)

		res, err = f.dispatch(t, env, "hub_list_tasks", `{"limit":1}`)
		require.Nil(t, err)
		require.Equal(t, "Found 2 tasks, showing number 1: “Draft brief”.", res.Summary, "counts every match, says which it shows")
		data = mustJSON(t, tools.ModelText(res, tools.MaxResultChars))["data"].(map[string]any)
		require.EqualValues(t, 2, data["total"])
		require.EqualValues(t, 1, data["nextOffset"])
		require.Contains(t, data["more"], "call hub_list_tasks again", "tells the model how to read on")
		require.Len(t, data["tasks"], 1)
	})
}

// Domain errors come back as structured errors with their code and path.
func TestDispatchMapsDomainErrors(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		theirs, err := f.svc.CreateProject(ctx, f.outsider, f.other, workspace.NewProject{Name: "Theirs"})
		require.NoError(t, err)
		env := f.env(f.owner, workspace.RoleOwner)
		for _, tc := range []struct {
			name, tool, args string
			code, path       string
		}{
			{"project of another space", "hub_create_tasks", fmt.Sprintf(`{"tasks":[{"title":"a"},{"title":"b","projectId":%q}]}`, theirs.ID), tools.CodeNotFound, "/tasks/1/projectId"},
			{"assignee of another space", "hub_create_tasks", fmt.Sprintf(`{"tasks":[{"title":"a","assigneeId":%q}]}`, f.outsider.PersonID), tools.CodeNotFound, "/tasks/0/assigneeId"},
			{"a date that does not exist", "hub_create_tasks", `{"tasks":[{"title":"a"},{"title":"b","dueDate":"2026-02-30"}]}`, tools.CodeInvalidPayload, "/tasks/1/dueDate"},
			{"a blank title", "hub_create_tasks", `{"tasks":[{"title":"   "}]}`, tools.CodeInvalidPayload, "/tasks/0/title"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, terr := f.dispatch(t, env, tc.tool, tc.args)
				require.NotNil(t, terr)
				require.Equal(t, tc.code, terr.Code)
				require.Equal(t, tc.path, terr.Path)
				require.NotEmpty(t, terr.Message)
			})
		}
		require.Zero(t, f.taskCount(t), "all or none")

		// A space the actor cannot open is not found.
		_, terr := f.reg.Dispatch(ctx, tools.Env{Workspace: f.svc, Actor: f.owner, SpaceID: f.other, Role: workspace.RoleOwner},
			tools.Call{Name: "hub_list_tasks", Arguments: `{}`, Offered: offerAll})
		require.NotNil(t, terr)
		require.Equal(t, tools.CodeNotFound, terr.Code)
	})
}

func TestAsError(t *testing.T) {
	t.Parallel()
	mine := tools.Errorf(tools.CodeVetoed, "no %s", "way")
	for _, tc := range []struct {
		name string
		err  error
		want tools.Error
	}{
		{"a tool's own error", fmt.Errorf("wrapped: %w", mine), tools.Error{Code: tools.CodeVetoed, Message: "no way"}},
		{"invalid", fmt.Errorf("x: %w", &workspace.InvalidError{Path: "/dueDate", Message: "bad date"}),
			tools.Error{Code: tools.CodeInvalidPayload, Message: "bad date", Path: "/dueDate", Issues: []tools.Issue{{Path: "/dueDate", Message: "bad date"}}}},
		{"not found with a path", &workspace.NotFoundError{Kind: "project", ID: "p1", Path: "/projectId"},
			tools.Error{Code: tools.CodeNotFound, Message: "no project with the id given in this space", Path: "/projectId"}},
		{"not found", fmt.Errorf("gone: %w", workspace.ErrNotFound), tools.Error{Code: tools.CodeNotFound, Message: "gone: not found"}},
		{"forbidden", fmt.Errorf("a viewer may not: %w", workspace.ErrForbidden), tools.Error{Code: tools.CodeForbidden, Message: "a viewer may not: forbidden"}},
		{"stale", fmt.Errorf("task changed: %w", workspace.ErrStale), tools.Error{Code: tools.CodeStale, Message: "task changed: stale"}},
		{"invalid sentinel", workspace.ErrInvalid, tools.Error{Code: tools.CodeInvalidPayload, Message: "invalid input"}},
		{"conflict", workspace.ErrConflict, tools.Error{Code: tools.CodeRefused, Message: "conflict"}},
		{"anything else hides its text", errors.New("pq: connection refused to 10.0.0.3"),
			tools.Error{Code: tools.CodeFailed, Message: "the tool failed; nothing was changed by this call"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, *tools.AsError(tc.err))
		})
	}
	require.Equal(t, "vetoed: no way", mine.Error())
}

// Errors a tool returns reach the model through Dispatch, mapped by AsError.
func TestDispatchToolErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		code string
	}{
		{fmt.Errorf("task %q changed: %w", "Draft", workspace.ErrStale), tools.CodeStale},
		{&workspace.NotFoundError{Kind: "task", ID: "t"}, tools.CodeNotFound},
		{&workspace.InvalidError{Path: "/n", Message: "too big"}, tools.CodeInvalidPayload},
		{tools.Errorf(tools.CodeRefused, "not now"), tools.CodeRefused},
		{errors.New("boom"), tools.CodeFailed},
	} {
		p := &probe{err: tc.err}
		reg := tools.NewRegistry(p.definition("probe", false))
		_, err := reg.Dispatch(t.Context(), tools.Env{}, tools.Call{Name: "probe", Arguments: `{"mode":"error"}`, Offered: []string{"probe"}})
		require.NotNil(t, err)
		require.Equal(t, tc.code, err.Code, "%v", tc.err)
	}
}

func TestDispatchRecoversFromAPanickingTool(t *testing.T) {
	t.Parallel()
	p := &probe{}
	reg := tools.NewRegistry(p.definition("probe", false))
	var (
		res tools.Result
		err *tools.Error
	)
	require.NotPanics(t, func() {
		res, err = reg.Dispatch(t.Context(), tools.Env{}, tools.Call{Name: "probe", Arguments: `{"mode":"panic"}`, Offered: []string{"probe"}})
	})
	require.NotNil(t, err)
	require.Equal(t, tools.CodeFailed, err.Code)
	require.NotContains(t, err.Message, "probe panicked", "the panic's text stays in the log")
	require.Empty(t, res.Summary)
}

func TestChecksStopACallBeforeItRuns(t *testing.T) {
	t.Parallel()
	p := &probe{}
	reg := tools.NewRegistry(p.definition("probe", false), p.definition("probe_write", true))

	_, err := reg.Dispatch(t.Context(), tools.Env{Role: workspace.RoleOwner}, tools.Call{Name: "probe", Arguments: `{"n":1}`, Offered: []string{"probe"}})
	require.Nil(t, err)
	require.EqualValues(t, 1, p.runs.Load())

	// A viewer's write stops at the access check.
	_, err = reg.Dispatch(t.Context(), tools.Env{Role: workspace.RoleViewer}, tools.Call{Name: "probe_write", Arguments: `{}`, Offered: []string{"probe_write"}})
	require.NotNil(t, err)
	require.Equal(t, tools.CodeForbidden, err.Code)
	require.EqualValues(t, 1, p.runs.Load())

	// An invalid payload never runs either.
	_, err = reg.Dispatch(t.Context(), tools.Env{Role: workspace.RoleOwner}, tools.Call{Name: "probe", Arguments: `{"n":"x"}`, Offered: []string{"probe"}})
	require.NotNil(t, err)
	require.Equal(t, tools.CodeInvalidPayload, err.Code)
	require.EqualValues(t, 1, p.runs.Load())
}

// Arguments whose strings hold a NUL (escaped or raw) or bytes that are not
// UTF-8 are refused by the field's path before the tool runs: the model can
// correct them, and nothing reaches a database that would refuse them.
func TestDispatchRefusesBadBytesByPath(t *testing.T) {
	t.Parallel()
	reg := tools.NewRegistry(echo)
	for _, tc := range []struct{ args, path string }{
		{`{"text":"a\u0000b"}`, "/text"},
		{"{\"text\":\"a\x00b\"}", "/text"},
		{"{\"text\":\"a\xffb\"}", "/text"},
		{`{"items":[{"title":"ok"},{"title":"x\u0000"}]}`, "/items/1/title"},
		{`{"tags":{"a\u0000":"x"}}`, "/tags/a"},
	} {
		res, terr := reg.Dispatch(t.Context(), tools.Env{Role: workspace.RoleOwner}, tools.Call{Name: "echo", Arguments: tc.args, Offered: []string{"echo"}})
		require.NotNil(t, terr, tc.args)
		require.Equal(t, tools.CodeInvalidPayload, terr.Code, tc.args)
		require.Equal(t, tc.path, terr.Path, tc.args)
		require.Equal(t, []tools.Issue{{Path: tc.path, Message: terr.Message}}, terr.Issues)
		require.Empty(t, res.Summary, "the tool did not run")
	}
	_, terr := reg.Dispatch(t.Context(), tools.Env{Role: workspace.RoleOwner}, tools.Call{Name: "echo", Arguments: `{"text":"a\\u0000b"}`, Offered: []string{"echo"}})
	require.Nil(t, terr, "an escaped backslash before u0000 is no NUL")
}
