package workspace_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/dbtest"
	"hub/workspace"
)

// catalog is a model catalog a test edits: model id → efforts it takes;
// the default is def.
type catalog struct {
	models map[string][]string
	def    string
}

func (c *catalog) CheckChoice(model, effort string) (string, string) {
	if model == "" {
		model = c.def
	}
	efforts, ok := c.models[model]
	if !ok {
		return "model", "no such model"
	}
	if effort != "" && !slices.Contains(efforts, effort) {
		return "effort", "not taken"
	}
	return "", ""
}

func (c *catalog) DefaultModel() string { return c.def }

func (c *catalog) TierModel(string, string) (string, string) { return "", "no tiers" } // tiers: e2e/models_test.go

// A turn runs what it names, else the person's default, else the
// catalog's; an effort goes only with a model that takes it; a default
// whose model the operator removed falls back to the catalog's default.
func TestTurnModelFallsBackToTheCatalogDefault(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		me := f.editor.PersonID
		cat := &catalog{models: map[string][]string{"small": nil, "deep": {"low", "high"}}, def: "small"}
		f.svc.SetModels(cat)
		turn := func(model, effort string) (string, string) {
			t.Helper()
			m, e, err := f.svc.TurnModel(ctx, me, model, effort)
			require.NoError(t, err)
			return m, e
		}
		m, e := turn("", "")
		require.Equal(t, []string{"small", ""}, []string{m, e}, "nothing chosen: the catalog's default")

		_, err := f.svc.UpdateSettings(ctx, me, workspace.SettingsPatch{Model: ptr("deep"), Effort: ptr("high")})
		require.NoError(t, err)
		m, e = turn("", "")
		require.Equal(t, []string{"deep", "high"}, []string{m, e}, "the person's defaults")
		m, e = turn("", "low")
		require.Equal(t, []string{"deep", "low"}, []string{m, e}, "the turn's effort with the default model")
		m, e = turn("small", "")
		require.Equal(t, []string{"small", ""}, []string{m, e}, "the default effort only where the model takes it")

		for _, c := range []struct{ model, effort, path string }{
			{"huge", "", "/model"}, {"small", "high", "/effort"}, {"deep", "medium", "/effort"},
		} {
			_, _, err := f.svc.TurnModel(ctx, me, c.model, c.effort)
			var inv *workspace.InvalidError
			require.ErrorAs(t, err, &inv, "%+v", c)
			require.Equal(t, c.path, inv.Path)
		}

		// The operator removes deep: turns run the catalog's default and
		// a patch of the effort alone is checked against it.
		delete(cat.models, "deep")
		m, e = turn("", "")
		require.Equal(t, []string{"small", ""}, []string{m, e})
		_, err = f.svc.UpdateSettings(ctx, me, workspace.SettingsPatch{Effort: ptr("low")})
		var inv *workspace.InvalidError
		require.ErrorAs(t, err, &inv)
		require.Equal(t, "/effort", inv.Path, "small takes no effort")
		st, err := f.svc.UpdateSettings(ctx, me, workspace.SettingsPatch{Effort: ptr("")})
		require.NoError(t, err)
		require.Equal(t, workspace.Settings{WritePolicy: workspace.PolicyImmediate}, st, "the removed model is forgotten with the patch")

		// A new model alone drops a saved effort it does not take.
		cat.models["deep"] = []string{"low", "high"}
		_, err = f.svc.UpdateSettings(ctx, me, workspace.SettingsPatch{Model: ptr("deep"), Effort: ptr("high")})
		require.NoError(t, err)
		st, err = f.svc.UpdateSettings(ctx, me, workspace.SettingsPatch{Model: ptr("small")})
		require.NoError(t, err)
		require.Equal(t, "small", st.Model)
		require.Empty(t, st.Effort)
	})
}

// What a turn's model check costs before anything is spent: the person's
// settings read on Postgres and the catalog checked.
func BenchmarkTurnModel(b *testing.B) {
	db := dbtest.Open(b, dbtest.Postgres(b))
	svc := workspace.NewService(db)
	svc.SetModels(&catalog{models: map[string][]string{"small": nil, "deep": {"low", "high"}}, def: "small"})
	ctx := b.Context()
	_, person, err := svc.EnsureMember(ctx, "Acme", "Olive Owner", workspace.RoleOwner)
	require.NoError(b, err)
	_, err = svc.UpdateSettings(ctx, person, workspace.SettingsPatch{Model: ptr("deep"), Effort: ptr("high")})
	require.NoError(b, err)
	for b.Loop() {
		if _, _, err := svc.TurnModel(ctx, person, "", "low"); err != nil {
			b.Fatal(err)
		}
	}
}
