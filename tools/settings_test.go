package tools_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"hub/tools"
	"hub/workspace"
)

// twoModels is a catalog of two models: "small" takes no effort, "deep"
// takes low and high.
type twoModels struct{}

func (twoModels) CheckChoice(model, effort string) (string, string) {
	efforts := map[string][]string{"small": nil, "deep": {"low", "high"}}
	if model == "" {
		model = "small"
	}
	takes, ok := efforts[model]
	if !ok {
		return "model", "not a model"
	}
	if effort == "" {
		return "", ""
	}
	for _, e := range takes {
		if e == effort {
			return "", ""
		}
	}
	return "effort", "not an effort of " + model
}

func (twoModels) DefaultModel() string { return "small" }

func (twoModels) TierModel(string, string) (string, string) { return "", "no tiers" }

// hub_update_settings is held under every write policy for every role
// that may write (a viewer is refused, as for every write); Apply changes exactly the
// allowlisted fields; a model or effort the catalog refuses, and any field
// outside the allowlist, is invalid_payload before anything is held.
func TestUpdateSettingsIsHeldThenApplied(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		f.svc.SetModels(twoModels{})
		for _, r := range []struct {
			actor workspace.Actor
			role  workspace.Role
		}{{f.owner, workspace.RoleOwner}, {f.editor, workspace.RoleEditor}, {f.guest, workspace.RoleGuest}} {
			for _, policy := range []string{workspace.PolicyImmediate, workspace.PolicyPreview, workspace.PolicyNeedsMe} {
				env := with(f.env(r.actor, r.role), policy)
				res, err := f.dispatch(t, env, tools.UpdateSettingsTool, `{"writePolicy":"preview","model":"deep","effort":"high"}`)
				require.Nil(t, err, "%s/%s", r.role, policy)
				require.True(t, res.Held, "%s/%s: always held", r.role, policy)
				require.Equal(t, "Change your assistant settings: write policy preview, default model deep, default effort high.", res.Summary)
				st, gerr := f.svc.GetSettings(ctx, r.actor.PersonID)
				require.NoError(t, gerr)
				require.Equal(t, workspace.PolicyImmediate, st.WritePolicy, "held: nothing changed")
				require.Empty(t, st.Model)
			}
		}

		_, verr := f.dispatch(t, f.env(f.viewer, workspace.RoleViewer), tools.UpdateSettingsTool, `{"writePolicy":"preview"}`)
		require.NotNil(t, verr)
		require.Equal(t, tools.CodeForbidden, verr.Code)

		env := f.env(f.editor, workspace.RoleEditor)
		env.Applying = true
		res, err := f.dispatch(t, env, tools.UpdateSettingsTool, `{"writePolicy":"needs-me","model":"deep","effort":"low"}`)
		require.Nil(t, err)
		require.False(t, res.Held)
		st, gerr := f.svc.GetSettings(ctx, f.editor.PersonID)
		require.NoError(t, gerr)
		require.Equal(t, workspace.Settings{WritePolicy: workspace.PolicyNeedsMe, Model: "deep", Effort: "low"}, st)

		for args, path := range map[string]string{
			`{"model":"huge"}`:                    "/model",
			`{"model":"small","effort":"high"}`:   "/effort",
			`{"writePolicy":"yolo"}`:              "/writePolicy",
			`{"role":"owner"}`:                    "",
			`{"connectedAppWrites":true}`:         "",
			`{"model":"deep","apiKey":"sk-live"}`: "",
			`{}`:                                  "",
		} {
			res, err := f.dispatch(t, f.env(f.owner, workspace.RoleOwner), tools.UpdateSettingsTool, args)
			require.NotNil(t, err, args)
			require.Equal(t, tools.CodeInvalidPayload, err.Code, "%s: %s", args, err.Message)
			if path != "" {
				require.Equal(t, path, err.Path, args)
			}
			require.False(t, res.Held, args)
		}
	})
}
