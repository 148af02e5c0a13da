package tools_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"hub/tools"
)

func TestModelTextSmall(t *testing.T) {
	t.Parallel()
	text := tools.ModelText(tools.Result{Summary: "Found 1 task.", Data: map[string]any{"tasks": []any{map[string]any{"id": "task_1"}}}}, tools.MaxResultChars)
	require.JSONEq(t, `{"summary":"Found 1 task.","data":{"tasks":[{"id":"task_1"}]}}`, text)
	require.JSONEq(t, `{"summary":"Done."}`, tools.ModelText(tools.Result{Summary: "Done."}, tools.MaxResultChars), "no data, no data key")
}

type pagedTasks struct {
	Tasks      []tools.TaskData `json:"tasks"`
	Total      int              `json:"total"`
	Offset     int              `json:"offset"`
	NextOffset int              `json:"nextOffset,omitempty"`
	Warnings   []string         `json:"warnings"` // nil: encodes as null, which is not a second list
}

func manyTasks(from, n int, title string) []tools.TaskData {
	out := make([]tools.TaskData, n)
	for i := range out {
		out[i] = tools.TaskData{ID: fmt.Sprintf("task_%04d", from+i), Title: fmt.Sprintf("%s %d", title, from+i), Status: "todo", Priority: "none", Revision: 1}
	}
	return out
}

// A long list is cut at whole items, with a note saying where to continue.
func TestModelTextCutsAListAtWholeItems(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		title string
	}{
		{"ascii", "Task number"},
		{"multi-byte characters count as one", "Tâche numéro ✓ 任务"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := pagedTasks{Tasks: manyTasks(40, 200, tc.title), Total: 500, Offset: 40, NextOffset: 240}
			res := tools.Result{Summary: "Found 500 tasks: “A” and 499 more.", Data: data}
			text := tools.ModelText(res, tools.MaxResultChars)
			require.LessOrEqual(t, utf8.RuneCountInString(text), tools.MaxResultChars)
			require.Greater(t, utf8.RuneCountInString(text), tools.MaxResultChars-400, "as many items as fit")

			var back struct {
				Summary string `json:"summary"`
				Data    struct {
					Tasks      []tools.TaskData `json:"tasks"`
					Total      int              `json:"total"`
					Offset     int              `json:"offset"`
					NextOffset int              `json:"nextOffset"`
					Truncated  string           `json:"truncated"`
				} `json:"data"`
			}
			require.NoError(t, json.Unmarshal([]byte(text), &back), "still JSON")
			require.Equal(t, res.Summary, back.Summary)
			n := len(back.Data.Tasks)
			require.Positive(t, n)
			require.Less(t, n, 200)
			require.Equal(t, data.Tasks[:n], back.Data.Tasks, "whole items, from the start")
			require.Equal(t, 500, back.Data.Total)
			require.Equal(t, 40, back.Data.Offset)
			require.Equal(t, 40+n, back.Data.NextOffset, "continue where the cut is")
			require.Equal(t, fmt.Sprintf("showing %d of the 200 items in this result; call again with offset %d for the rest", n, 40+n), back.Data.Truncated)
		})
	}
}

// Anything that is not a single list keeps its start and its end, so an
// error or the last fields of a result survive.
func TestModelTextCutsOtherDataHeadAndTail(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		data any
	}{
		{"a long string", map[string]any{"body": strings.Repeat("lorem ipsum ", 2000), "zz_last": "the end"}},
		{"two lists", map[string]any{"a": manyTasks(0, 100, "x"), "b": manyTasks(100, 100, "y"), "zz_last": "the end"}},
		{"not an object", strings.Repeat("word ", 3000) + "the end"},
		{"a list of one huge item", map[string]any{"items": []string{strings.Repeat("é", 7000) + "the end"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := tools.Result{Summary: "Read it.", Data: tc.data}
			text := tools.ModelText(res, tools.MaxResultChars)
			require.Equal(t, tools.MaxResultChars, utf8.RuneCountInString(text), "cut to the limit")
			require.True(t, strings.HasPrefix(text, `{"data":`), "keeps the start")
			require.Contains(t, text, "characters cut]")
			require.Contains(t, text[len(text)-200:], "the end", "keeps the end")
			require.True(t, strings.HasSuffix(text, `"summary":"Read it."}`), "the summary is last and survives")
		})
	}
}

func TestHeadAndTail(t *testing.T) {
	t.Parallel()
	require.Equal(t, "short", tools.HeadAndTail("short", 100))
	exact := strings.Repeat("x", 100)
	require.Equal(t, exact, tools.HeadAndTail(exact, 100))

	text := strings.Repeat("a", 500) + strings.Repeat("ü", 500) + strings.Repeat("z", 500)
	cut := tools.HeadAndTail(text, 300)
	require.Equal(t, 300, utf8.RuneCountInString(cut))
	require.True(t, utf8.ValidString(cut), "never cuts inside a character")
	require.True(t, strings.HasPrefix(cut, strings.Repeat("a", 150)))
	require.True(t, strings.HasSuffix(cut, strings.Repeat("z", 80)))
	require.Contains(t, cut, "characters cut]")
	head, tail, ok := strings.Cut(cut, "\n…[")
	require.True(t, ok)
	require.Greater(t, len([]rune(head)), len([]rune(tail))/2, "more of the start than of the end")

	require.Len(t, []rune(tools.HeadAndTail(text, 5)), 5, "a limit below the marker still holds")
}

func TestErrorText(t *testing.T) {
	t.Parallel()
	e := &tools.Error{Code: tools.CodeInvalidPayload, Message: "is required", Path: "/tasks", Issues: []tools.Issue{{Path: "/tasks", Message: "is required"}}}
	require.JSONEq(t, `{"error":{"code":"invalid_payload","message":"is required","path":"/tasks","issues":[{"path":"/tasks","message":"is required"}]}}`, tools.ErrorText(e))
	require.JSONEq(t, `{"error":{"code":"failed","message":"x"}}`, tools.ErrorText(tools.Errorf(tools.CodeFailed, "x")), "no empty path or issues")

	var issues []tools.Issue
	for i := range 500 {
		issues = append(issues, tools.Issue{Path: fmt.Sprintf("/tasks/%d/title", i), Message: "is required"})
	}
	long := tools.ErrorText(&tools.Error{Code: tools.CodeInvalidPayload, Message: "is required", Issues: issues})
	require.LessOrEqual(t, utf8.RuneCountInString(long), tools.MaxResultChars)
	require.True(t, strings.HasPrefix(long, `{"error":{"code":"invalid_payload"`))
}
