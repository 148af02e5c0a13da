package tools_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"

	"hub/tools"
)

// The space argument is added to a tool's schema as an optional string,
// leaving what the tool requires and refuses as it was; a call's space is
// taken out before the tool's own schema sees the rest.
func TestSpaceArg(t *testing.T) {
	t.Parallel()
	reg := tools.Hub(nil)
	d, ok := reg.Get("hub_create_tasks")
	require.True(t, ok)
	with := tools.WithSpaceArg(d.Schema)

	var before, after struct {
		Required             []string                   `json:"required"`
		Properties           map[string]json.RawMessage `json:"properties"`
		AdditionalProperties *bool                      `json:"additionalProperties"`
	}
	require.NoError(t, json.Unmarshal(d.Schema, &before))
	require.NoError(t, json.Unmarshal(with, &after))
	require.NotContains(t, before.Properties, tools.SpaceArg, "the registered schema is left alone")
	require.Contains(t, after.Properties, tools.SpaceArg)
	require.Equal(t, before.Required, after.Required, "space stays optional")
	require.Equal(t, before.AdditionalProperties, after.AdditionalProperties)

	// The widened schema accepts a call with a space and still refuses
	// what the tool refuses.
	c := jsonschema.NewCompiler()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(with))
	require.NoError(t, err)
	require.NoError(t, c.AddResource("with.json", doc))
	sch, err := c.Compile("with.json")
	require.NoError(t, err)
	valid := func(s string) error {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(s)))
		require.NoError(t, err)
		return sch.Validate(v)
	}
	require.NoError(t, valid(`{"tasks": [{"title": "A"}], "space": "Ops"}`))
	require.Error(t, valid(`{"tasks": [{"title": "A"}], "space": 3}`))
	require.Error(t, valid(`{"tasks": [{"title": "A"}], "spaces": "Ops"}`))

	for _, tc := range []struct {
		args, space, rest string
		err               bool
	}{
		{args: `{"tasks": [{"title": "A"}], "space": "Ops"}`, space: "Ops", rest: `{"tasks":[{"title":"A"}]}`},
		{args: `{"tasks": [{"title": "A"}]}`, rest: `{"tasks": [{"title": "A"}]}`},
		{args: ``, rest: ``},
		{args: `not json`, rest: `not json`},
		{args: `[1]`, rest: `[1]`},
		{args: `{"space": 7}`, err: true},
		{args: `{"space": {"id": "x"}}`, err: true},
		{args: `{"tasks": [], "space": ""}`, rest: `{"tasks":[]}`},
		{args: `{"tasks": [], "space": null}`, rest: `{"tasks":[]}`},
		{args: `{"tasks": [], "space": "  Ops "}`, space: "Ops", rest: `{"tasks":[]}`},
	} {
		space, rest, terr := tools.TakeSpaceArg(tc.args)
		if tc.err {
			require.NotNil(t, terr, tc.args)
			require.Equal(t, tools.CodeInvalidPayload, terr.Code)
			require.Equal(t, "/space", terr.Path)
			continue
		}
		require.Nil(t, terr, tc.args)
		require.Equal(t, tc.space, space, tc.args)
		require.Equal(t, tc.rest, rest, tc.args)
	}
}
