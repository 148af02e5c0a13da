package workspace_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"hub/workspace"
)

func TestCheckJSONTextNamesTheField(t *testing.T) {
	for _, tc := range []struct {
		doc, path, msg string
	}{
		{`{"title":"ok","n":1,"a":[true,null,{"b":"x"}]}`, "", ""},
		{`{"title":"a\u0000b"}`, "/title", "NUL"},
		{"{\"title\":\"a\x00b\"}", "/title", "NUL"},
		{"{\"title\":\"a\xffb\"}", "/title", "UTF-8"},
		{"{\"title\":\"\xed\xa0\x80\"}", "/title", "UTF-8"},
		{"{\"title\":\"\xc0\xaf\"}", "/title", "UTF-8"},
		{`{"title":"a\\u0000b"}`, "", ""}, // an escaped backslash, then "u0000"
		{`{"x":"\\\u0000"}`, "/x", "NUL"},
		{`{"mentions":[{"kind":"task","id":"ok"},{"kind":"task","id":"\u0000"}]}`, "/mentions/1/id", "NUL"},
		{`{"a":{"b":[1,[2,"\u0000"]]}}`, "/a/b/1/1", "NUL"},
		{`{"a/b~c":"\u0000"}`, "/a~1b~0c", "NUL"},
		{`{"a":1,"\u0000":2}`, "/", "field name"},
		{"{\"a\xffb\":1}", "/a\uFFFDb", "field name"},
		{`{"t\u0069tle":"\u0000"}`, "/title", "NUL"},
		{`["\u0000"]`, "/0", "NUL"},
		{`"\u0000"`, "", "NUL"},
		{`{"a":"x","b":"y","c":["p","q\u0000"]}`, "/c/1", "NUL"},
		{"{\xff}", "", ""},                                // not JSON: the decoder's to say
		{`{"a":"\u0000`, "", ""},                          // cut short
		{strings.Repeat("[", 20000) + `"\u0000"`, "", ""}, // too deep to follow
	} {
		err := workspace.CheckJSONText([]byte(tc.doc))
		if tc.msg == "" {
			require.NoError(t, err, tc.doc)
			continue
		}
		var inv *workspace.InvalidError
		require.True(t, errors.As(err, &inv), "%q: %v", tc.doc, err)
		require.Equal(t, tc.path, inv.Path, tc.doc)
		require.Contains(t, inv.Message, tc.msg, tc.doc)
	}
}

func TestCleanTextKeepsWhatCanBeKept(t *testing.T) {
	require.Equal(t, "ab", workspace.CleanText("a\x00b"))
	require.Equal(t, "a\uFFFDb", workspace.CleanText("a\xffb"))
	require.Equal(t, "héllo", workspace.CleanText("héllo"))
	require.False(t, workspace.BadText(workspace.CleanText("\x00\xff\xed\xa0\x80")))
	require.NoError(t, workspace.CheckText("/t", "ok"))
	require.ErrorIs(t, workspace.CheckText("/t", "\x00"), workspace.ErrInvalid)
}

// The service refuses text it cannot store alike on both engines, whoever
// calls it (the api, the tools, the CLI), by the field's path; an id with
// such bytes names nothing.
func TestServiceRefusesBadBytesAlikeOnBothEngines(t *testing.T) {
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		_, err := f.svc.CreateTasks(ctx, f.owner, f.acme, "/tasks", []workspace.NewTask{{Title: "ok"}, {Title: "a\x00b"}})
		requireInvalidAt(t, err, "/tasks/1/title")
		_, err = f.svc.CreateTasks(ctx, f.owner, f.acme, "/tasks", []workspace.NewTask{{Title: "a\xffb"}})
		requireInvalidAt(t, err, "/tasks/0/title")
		task := f.task(t, workspace.NewTask{Title: "Draft"})
		bad := "x\x00"
		_, err = f.svc.UpdateTask(ctx, f.owner, f.acme, task.ID, workspace.TaskPatch{Title: &bad})
		requireInvalidAt(t, err, "/title")
		_, err = f.svc.CreateProject(ctx, f.owner, f.acme, workspace.NewProject{Name: "P", Description: "d\x00"})
		requireInvalidAt(t, err, "/description")
		_, err = f.svc.CreateProject(ctx, f.owner, f.acme, workspace.NewProject{Name: "\xff"})
		requireInvalidAt(t, err, "/name")
		_, err = f.svc.CreateConnection(ctx, f.owner, f.acme, workspace.NewConnection{Kind: "webhook", Name: "n\x00", URL: "https://example.com"})
		requireInvalidAt(t, err, "/name")
		_, err = f.svc.CreateConnection(ctx, f.owner, f.acme, workspace.NewConnection{Kind: "webhook", Name: "n", URL: "https://example.com/\xff"})
		requireInvalidAt(t, err, "/url")
		_, _, err = f.svc.EnsureMember(ctx, "Acme\x00", "Someone", workspace.RoleEditor)
		require.ErrorIs(t, err, workspace.ErrInvalid)

		for _, id := range []string{"\x00", "a\xffb"} {
			_, err = f.svc.GetTask(ctx, f.owner, f.acme, id)
			require.ErrorIs(t, err, workspace.ErrNotFound)
			_, err = f.svc.GetTask(ctx, f.owner, id, task.ID)
			require.ErrorIs(t, err, workspace.ErrNotFound)
			_, err = f.svc.GetProject(ctx, f.owner, f.acme, id)
			require.ErrorIs(t, err, workspace.ErrNotFound)
			_, err = f.svc.CreateTasks(ctx, f.owner, f.acme, "/tasks", []workspace.NewTask{{Title: "x", ProjectID: id}})
			require.ErrorIs(t, err, workspace.ErrNotFound)
			_, err = f.svc.CreateTasks(ctx, f.owner, f.acme, "/tasks", []workspace.NewTask{{Title: "x", AssigneeID: id}})
			require.ErrorIs(t, err, workspace.ErrNotFound)
		}
		list, err := f.svc.ListTasks(ctx, f.owner, f.acme, workspace.TaskFilter{})
		require.NoError(t, err)
		require.EqualValues(t, 1, list.Total, "nothing refused was stored")
	})
}

func requireInvalidAt(t *testing.T, err error, path string) {
	t.Helper()
	var inv *workspace.InvalidError
	require.True(t, errors.As(err, &inv), "%v", err)
	require.Equal(t, path, inv.Path)
}

// FuzzCheckJSONText: CheckJSONText refuses every JSON document whose raw
// bytes are not UTF-8 or whose decoded strings (keys or values) hold a NUL,
// refuses nothing without such bytes, and never panics.
func FuzzCheckJSONText(f *testing.F) {
	for _, seed := range []string{`{"a":"b"}`, `{"a":"\u0000"}`, `{"a":"\\u0000"}`, "{\"a\":\"\xff\"}", `[1,{"b":[null,"\u0000"]}]`,
		`{"\u0000":1}`, `"x"`, `{"a":"\ud800"}`, "{\"a\":\"\xed\xa0\x80\"}", `{"a\\":"\\\u0000"}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		err := workspace.CheckJSONText(doc)
		if err != nil {
			require.ErrorIs(t, err, workspace.ErrInvalid)
		}
		var v any
		if json.Unmarshal(doc, &v) != nil {
			return
		}
		if !utf8.Valid(doc) || holdsNUL(v) {
			require.Error(t, err, "%q", doc)
		}
		if err != nil {
			// A refusal has a cause in the bytes (a repeated key may hide
			// it from the decoded value).
			require.True(t, !utf8.Valid(doc) || strings.IndexByte(string(doc), 0) >= 0 || strings.Contains(string(doc), `\u0000`), "%q: %v", doc, err)
		}
	})
}

func holdsNUL(v any) bool {
	switch x := v.(type) {
	case string:
		return strings.IndexByte(x, 0) >= 0
	case []any:
		for _, e := range x {
			if holdsNUL(e) {
				return true
			}
		}
	case map[string]any:
		for k, e := range x {
			if strings.IndexByte(k, 0) >= 0 || holdsNUL(e) {
				return true
			}
		}
	}
	return false
}
