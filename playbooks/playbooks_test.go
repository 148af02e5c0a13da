package playbooks

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

func TestEveryShippedPlaybookLoads(t *testing.T) {
	all, err := All()
	require.NoError(t, err)
	names := map[string]bool{}
	for _, p := range all {
		names[p.Name] = true
		require.NotEmpty(t, p.Title, p.Name)
		require.NotEmpty(t, p.When, p.Name)
		require.NotEmpty(t, p.Body, p.Name)
	}
	for _, want := range []string{"tasks", "projects", "people", "workflows", "apps", "map"} {
		require.True(t, names[want], "playbook %s ships", want)
	}
	for _, p := range all {
		if p.Name == MapName {
			require.Empty(t, p.Tools, "the map is read, it offers no tools")
			continue
		}
		require.NotEmpty(t, p.Tools, p.Name)
		require.LessOrEqual(t, len(p.Tools), 6, "%s: a guide's tools are a few; more crowd the 24", p.Name)
		require.NotNil(t, p.Match, "%s: a playbook preloads on words", p.Name)
	}
	wf, _ := Named(all, "workflows")
	require.Equal(t, []string{"hub_run_workflow"}, wf.Requires, "not offered until the tool exists")
}

func TestMalformedPlaybooksGiveClearErrors(t *testing.T) {
	cases := map[string]struct{ text, err string }{
		"no front matter": {"# Tasks\n", "bad.md:1: a playbook starts with a --- line"},
		"unclosed":        {"---\nname: x\n", "no closing --- line"},
		"missing when":    {"---\nname: x\ntitle: X\n---\nbody", "front matter needs when"},
		"not key value":   {"---\nname: x\njust words\n---\n", "bad.md:3: expected key: value"},
		"unknown key":     {"---\nname: x\ncolour: red\n---\n", `bad.md:3: unknown front matter key "colour"`},
		"bad regexp":      {"---\nname: x\nmatch: (unclosed\n---\n", "bad.md:3: match is not a valid regular expression"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse("bad.md", tc.text)
			require.ErrorContains(t, err, tc.err)
		})
	}
}

func TestParseReadsEveryField(t *testing.T) {
	p, err := Parse("x.md", "---\nname: apps\ntitle: Apps\nwhen: connected apps\ntools: a, b\nmatch: \\bjira\\b\npaths: /apps\nmentions: app\nrequires: a\ninclude: shared\n---\nBody text\n")
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, p.Tools)
	require.True(t, p.Match.MatchString("open JIRA please"), "match is case-insensitive")
	require.Equal(t, []string{"/apps"}, p.Paths)
	require.Equal(t, []string{"app"}, p.Mentions)
	require.Equal(t, []string{"a"}, p.Requires)
	require.Equal(t, "shared", p.Include)
	require.Equal(t, "Body text", p.Body)
}

func TestDuplicateNamesAreRefused(t *testing.T) {
	fsys := fstest.MapFS{
		"a.md": {Data: []byte("---\nname: x\ntitle: A\nwhen: a\n---\nA")},
		"b.md": {Data: []byte("---\nname: x\ntitle: B\nwhen: b\n---\nB")},
	}
	_, err := Load(fsys)
	require.ErrorContains(t, err, `name "x" is also used by a.md`)
}
