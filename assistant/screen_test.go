package assistant_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/assistant"
	"hub/workspace"
)

// names is a NameResolver over a fixed list of records of one space.
type names []workspace.Ref

func (n names) ResolveName(_ context.Context, _ workspace.Actor, _, kind, text string) (workspace.Ref, error) {
	var hits []workspace.Ref
	for _, r := range n {
		if r.Kind == kind && strings.HasPrefix(strings.ToLower(text), strings.ToLower(r.Label)) {
			hits = append(hits, r)
		}
	}
	switch len(hits) {
	case 0:
		return workspace.Ref{}, &workspace.NotFoundError{Kind: kind}
	case 1:
		return hits[0], nil
	}
	return workspace.Ref{}, &workspace.AmbiguousError{Kind: kind, Name: hits[0].Label, Count: len(hits)}
}

func TestTypedMentions(t *testing.T) {
	t.Parallel()
	space := names{
		{Kind: "person", ID: "person_1", Label: "Mira Chen"},
		{Kind: "task", ID: "task_1", Label: "Draft brief"},
		{Kind: "task", ID: "task_2", Label: "Call Ken"},
		{Kind: "task", ID: "task_3", Label: "Call Ken"},
	}
	refs, unresolved, err := assistant.TypedMentions(t.Context(), space, workspace.Actor{}, "s",
		"Ask @people:Mira Chen about @task:Draft brief and @task:Call Ken, and @task:Nothing like this at all today; "+
			"again @task:Draft brief. Mail mira@task:Draft brief. Then @task:Ghost, and more words after it; ask @people:Mira Chan about Friday")
	require.NoError(t, err)
	require.Equal(t, []workspace.Ref{space[0], space[1]}, refs, "repeats once; an address is no mention")
	require.Equal(t, []assistant.Unresolved{
		{Typed: "@task:Call Ken", Reason: "2 tasks have this name; ask which one is meant, or look them up"},
		{Typed: "@task:Nothing", Reason: "no task of this space has this name, alone or with the words after it; look it up by other words if needed"},
		{Typed: "@task:Ghost", Reason: "no task of this space has this name, alone or with the words after it; look it up by other words if needed"},
		{Typed: "@people:Mira Chan", Reason: "no person of this space has this name, alone or with the words after it; look it up by other words if needed"},
	}, unresolved)
	require.False(t, assistant.HasTypedMention("plain text, mira@task:x"))
	require.True(t, assistant.HasTypedMention("@projects:Launch"))
}

// lookup is a PageLookup over a fixed set of records of the active space.
type lookup struct {
	refs  map[string]workspace.Ref
	tasks map[string]workspace.Task
}

func (l lookup) FindRefs(_ context.Context, _ workspace.Actor, _ string, ids []string) (map[string]workspace.Ref, error) {
	out := map[string]workspace.Ref{}
	for _, id := range ids {
		if r, ok := l.refs[id]; ok {
			out[id] = r
		}
	}
	return out, nil
}

func (l lookup) GetTask(_ context.Context, _ workspace.Actor, _, id string) (workspace.Task, error) {
	return l.tasks[id], nil
}

// The page's ids are resolved in the space: the open item becomes a link
// with its facts, ids that name nothing here are dropped with a note that
// names the field, not the id.
func TestResolveScreen(t *testing.T) {
	t.Parallel()
	l := lookup{
		refs: map[string]workspace.Ref{
			"task_1":    {Kind: "task", ID: "task_1", Label: "Draft brief", Detail: "doing"},
			"task_2":    {Kind: "task", ID: "task_2", Label: "Call Ken", Detail: "todo"},
			"project_1": {Kind: "project", ID: "project_1", Label: "Launch", Detail: "active"},
			"person_1":  {Kind: "person", ID: "person_1", Label: "Ken Ito", Detail: "editor"},
		},
		tasks: map[string]workspace.Task{"task_1": {ID: "task_1", Title: "Draft brief", Status: "doing", DueDate: "2026-03-06",
			Priority: "high", ProjectID: "project_1", AssigneeID: "person_1"}},
	}
	page := `{"path":"/tasks/task_1","open":{"kind":"task","id":"task_1"},"surface":{"kind":"board",` +
		`"selectedIds":["task_2","task_elsewhere"],"visibleIds":["task_1","task_2","task_elsewhere",7]}}`
	sc, err := assistant.ResolveScreen(t.Context(), l, workspace.Actor{}, "s", page)
	require.NoError(t, err)
	require.NotNil(t, sc.Open)
	require.Equal(t, "task_1", sc.Open.Ref.ID)
	require.Equal(t, []string{"status doing", "due 2026-03-06", "priority high", "project [Launch](hub://project/project_1)",
		"people [Ken Ito](hub://person/person_1) (assignee)"}, sc.Open.Facts)
	require.Equal(t, []workspace.Ref{l.refs["task_2"]}, sc.Selected)
	require.Equal(t, []string{
		"/surface/selectedIds: 1 of 2 ids name no record the person can open in this space",
		"/surface/visibleIds: 2 of 4 ids name no record the person can open in this space",
	}, sc.Notes)
	require.NotContains(t, strings.Join(sc.Notes, " "), "task_elsewhere", "a dropped id is not repeated")
	var got struct {
		Path    string          `json:"path"`
		Open    json.RawMessage `json:"open"`
		Surface struct {
			SelectedIDs []string `json:"selectedIds"`
			VisibleIDs  []string `json:"visibleIds"`
		} `json:"surface"`
	}
	require.NoError(t, json.Unmarshal([]byte(sc.Page), &got))
	require.Nil(t, got.Open, "the open item is its own line")
	require.Equal(t, []string{"task_2"}, got.Surface.SelectedIDs)
	require.Equal(t, []string{"task_1", "task_2"}, got.Surface.VisibleIDs)
	require.Len(t, sc.Refs, 2)

	// An open item of another space (or of nothing) is dropped with a note.
	sc, err = assistant.ResolveScreen(t.Context(), l, workspace.Actor{}, "s", `{"openId":"task_elsewhere","view":"list"}`)
	require.NoError(t, err)
	require.Nil(t, sc.Open)
	require.Equal(t, []string{"the open item (/openId) names no record the person can open in this space"}, sc.Notes)
	require.JSONEq(t, `{"view":"list"}`, sc.Page)

	// A page without ids is passed on byte for byte; so is one that is no
	// object.
	for _, p := range []string{`{"view": "list"}`, `"just text"`, ``} {
		sc, err = assistant.ResolveScreen(t.Context(), l, workspace.Actor{}, "s", p)
		require.NoError(t, err)
		require.Equal(t, p, sc.Page)
	}

	text := assistant.TurnContext{Now: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC), Open: &assistant.OpenItem{Ref: l.refs["task_1"],
		Facts: []string{"status doing"}}, PageNotes: []string{"the open item (/openId) names no record the person can open in this space"}}.Render()
	require.Contains(t, text, "Open item: [Draft brief](hub://task/task_1) (status doing)\n")
	require.Contains(t, text, "Left out of the page: the open item (/openId) names no record the person can open in this space\n")
}

// The note on records others changed is at most ten lines, newest first,
// the tenth counting the rest; a deleted record is named, not linked.
func TestChangedNote(t *testing.T) {
	t.Parallel()
	var changed []workspace.ChangedRecord
	for i := range 13 {
		changed = append(changed, workspace.ChangedRecord{Kind: "task", ID: fmt.Sprintf("task_%d", i), Title: fmt.Sprintf("T%d", i),
			Op: workspace.OpUpdated, By: []string{"Ken Ito"}})
	}
	changed[1].Op = workspace.OpDeleted
	text := assistant.TurnContext{Now: time.Now(), Changed: changed}.Render()
	_, note, ok := strings.Cut(text, assistant.ChangedNoteHeading+"\n")
	require.True(t, ok, text)
	lines := strings.Split(strings.TrimSuffix(note, "\n</context>"), "\n")
	require.Len(t, lines, assistant.MaxChangedLines)
	require.Equal(t, "- [T0](hub://task/task_0) changed by Ken Ito", lines[0])
	require.Equal(t, "- “T1” deleted by Ken Ito", lines[1])
	require.Equal(t, "- and 4 more", lines[9])

	text = assistant.TurnContext{Now: time.Now(), Changed: changed[:10]}.Render()
	require.Contains(t, text, "- [T9](hub://task/task_9) changed by Ken Ito\n", "ten fit whole")
	require.NotContains(t, assistant.TurnContext{Now: time.Now()}.Render(), assistant.ChangedNoteHeading)

	// A person taken out of the space is removed from it, not deleted.
	text = assistant.TurnContext{Now: time.Now(), Changed: []workspace.ChangedRecord{{Kind: workspace.KindPerson, ID: "person_1",
		Title: "Ann Lee", Op: workspace.OpDeleted, By: []string{"Ken Ito"}}}}.Render()
	require.Contains(t, text, "- “Ann Lee” removed from the space by Ken Ito\n")
}
