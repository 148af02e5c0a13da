package hub_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/hub"
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
		err := hub.CheckJSONText([]byte(tc.doc))
		if tc.msg == "" {
			require.NoError(t, err, tc.doc)
			continue
		}
		var inv *hub.InvalidError
		require.True(t, errors.As(err, &inv), "%q: %v", tc.doc, err)
		require.Equal(t, tc.path, inv.Path, tc.doc)
		require.Contains(t, inv.Message, tc.msg, tc.doc)
	}
}

func TestCleanTextKeepsWhatCanBeKept(t *testing.T) {
	require.Equal(t, "ab", hub.CleanText("a\x00b"))
	require.Equal(t, "a\uFFFDb", hub.CleanText("a\xffb"))
	require.Equal(t, "héllo", hub.CleanText("héllo"))
	require.False(t, hub.BadText(hub.CleanText("\x00\xff\xed\xa0\x80")))
	require.NoError(t, hub.CheckText("/t", "ok"))
	require.ErrorIs(t, hub.CheckText("/t", "\x00"), hub.ErrInvalid)
}

// The service refuses text it cannot store alike on both engines, whoever
// calls it (the api, the tools, the CLI), by the field's path; an id with
// such bytes names nothing.
func TestServiceRefusesBadBytesAlikeOnBothEngines(t *testing.T) {
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		_, err := f.svc.CreateTasks(ctx, f.owner, f.acme, "/tasks", []hub.NewTask{{Title: "ok"}, {Title: "a\x00b"}})
		requireInvalidAt(t, err, "/tasks/1/title")
		_, err = f.svc.CreateTasks(ctx, f.owner, f.acme, "/tasks", []hub.NewTask{{Title: "a\xffb"}})
		requireInvalidAt(t, err, "/tasks/0/title")
		task := f.task(t, hub.NewTask{Title: "Draft"})
		bad := "x\x00"
		_, err = f.svc.UpdateTask(ctx, f.owner, f.acme, task.ID, hub.TaskPatch{Title: &bad})
		requireInvalidAt(t, err, "/title")
		_, err = f.svc.CreateProject(ctx, f.owner, f.acme, hub.NewProject{Name: "P", Description: "d\x00"})
		requireInvalidAt(t, err, "/description")
		_, err = f.svc.CreateProject(ctx, f.owner, f.acme, hub.NewProject{Name: "\xff"})
		requireInvalidAt(t, err, "/name")
		_, err = f.svc.CreateConnection(ctx, f.owner, f.acme, hub.NewConnection{Kind: "webhook", Name: "n\x00", URL: "https://example.com"})
		requireInvalidAt(t, err, "/name")
		_, err = f.svc.CreateConnection(ctx, f.owner, f.acme, hub.NewConnection{Kind: "webhook", Name: "n", URL: "https://example.com/\xff"})
		requireInvalidAt(t, err, "/url")
		_, _, err = f.svc.EnsureMember(ctx, "Acme\x00", "Someone", hub.RoleEditor)
		require.ErrorIs(t, err, hub.ErrInvalid)

		for _, id := range []string{"\x00", "a\xffb"} {
			_, err = f.svc.GetTask(ctx, f.owner, f.acme, id)
			require.ErrorIs(t, err, hub.ErrNotFound)
			_, err = f.svc.GetTask(ctx, f.owner, id, task.ID)
			require.ErrorIs(t, err, hub.ErrNotFound)
			_, err = f.svc.GetProject(ctx, f.owner, f.acme, id)
			require.ErrorIs(t, err, hub.ErrNotFound)
			_, err = f.svc.CreateTasks(ctx, f.owner, f.acme, "/tasks", []hub.NewTask{{Title: "x", ProjectID: id}})
			require.ErrorIs(t, err, hub.ErrNotFound)
			_, err = f.svc.CreateTasks(ctx, f.owner, f.acme, "/tasks", []hub.NewTask{{Title: "x", AssigneeID: id}})
			require.ErrorIs(t, err, hub.ErrNotFound)
		}
		list, err := f.svc.ListTasks(ctx, f.owner, f.acme, hub.TaskFilter{})
		require.NoError(t, err)
		require.EqualValues(t, 1, list.Total, "nothing refused was stored")
	})
}

func requireInvalidAt(t *testing.T, err error, path string) {
	t.Helper()
	var inv *hub.InvalidError
	require.True(t, errors.As(err, &inv), "%v", err)
	require.Equal(t, path, inv.Path)
}
