package assistant

import (
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/workspace"
)

// updateOfferBaseline rewrites testdata/offer_eval_baseline.json with the
// recall measured now:
//
//	go test ./assistant -run TestOfferRecallHoldsItsBaseline -update-offer-baseline
var updateOfferBaseline = flag.Bool("update-offer-baseline", false, "record the current offer recall as the baseline")

const offerBaselineFile = "testdata/offer_eval_baseline.json"

// offerEvalConfigs are the registries the recall is held on: Hub's own
// tools, and Hub's among 1,500 synthetic tools of other apps.
var offerEvalConfigs = []struct {
	name        string
	distractors int
}{{"hub", 0}, {"hub+1500", 1500}}

// baselineEntry is one configuration's recorded recall.
type baselineEntry struct {
	Hits    int     `json:"hits"`
	Counted int     `json:"counted"`
	Recall  float64 `json:"recall"`
}

func TestOfferEvalSetIsWellFormed(t *testing.T) {
	set, err := OfferEvalSet()
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(set.Cases), 60)
	all := shippedPlaybooks(t)
	reg := EvalRegistry(all, 0)
	perTool := map[string]int{}
	var mentions, apps, notes int
	for _, c := range set.Cases {
		for _, e := range c.Expect {
			perTool[e]++
			if _, ok := reg.Get(e); !ok {
				require.Equal(t, "hub_run_workflow", e, "%q expects an unknown tool", c.Request)
			}
		}
		if len(c.Mentions) > 0 {
			mentions++
		}
		if len(c.Apps) > 0 {
			apps++
		}
		if c.Note != "" {
			notes++
		}
	}
	for _, d := range reg.Granted(workspace.RoleOwner) {
		require.GreaterOrEqual(t, perTool[d.Name], 2, "%s needs several phrasings in the set", d.Name)
	}
	require.GreaterOrEqual(t, mentions, 3)
	require.GreaterOrEqual(t, apps, 5)
	require.GreaterOrEqual(t, notes, 10, "hard and ambiguous requests are marked")

	_, err = ParseEvalSet([]byte(`{"cases":[{"request":"x"}]}`))
	require.ErrorContains(t, err, "case 1 needs a request and an expected tool")
}

// TestOfferRecallHoldsItsBaseline is the tool-selection regression test:
// recall@24 of the labelled set may not drop below the recorded baseline on
// either registry. A change that raises it should record the new baseline
// (see updateOfferBaseline) so the gain is kept.
func TestOfferRecallHoldsItsBaseline(t *testing.T) {
	set, err := OfferEvalSet()
	require.NoError(t, err)
	all := shippedPlaybooks(t)
	baseline := map[string]baselineEntry{}
	raw, err := os.ReadFile(offerBaselineFile)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &baseline))

	now := map[string]baselineEntry{}
	for _, cfg := range offerEvalConfigs {
		rep := EvalOffer(set.Cases, EvalRegistry(all, cfg.distractors), all)
		now[cfg.name] = baselineEntry{Hits: rep.Hits, Counted: rep.Counted, Recall: rep.Recall()}
		for _, row := range rep.Rows {
			if row.Position == 0 {
				t.Logf("%s: %s not offered for %q", cfg.name, row.Expected, row.Request)
			}
		}
		t.Logf("%s: recall@%d %.3f (%d/%d, %d skipped)", cfg.name, MaxOfferedTools, rep.Recall(), rep.Hits, rep.Counted, rep.Skipped)
	}
	if *updateOfferBaseline {
		out, err := json.MarshalIndent(now, "", "  ")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(offerBaselineFile, append(out, '\n'), 0o644))
		return
	}
	for _, cfg := range offerEvalConfigs {
		base, ok := baseline[cfg.name]
		require.True(t, ok, "no baseline for %s: run with -update-offer-baseline", cfg.name)
		require.GreaterOrEqual(t, now[cfg.name].Recall, base.Recall-1e-9,
			"%s: recall@%d fell from %.3f to %.3f", cfg.name, MaxOfferedTools, base.Recall, now[cfg.name].Recall)
		if now[cfg.name].Recall > base.Recall+1e-9 {
			t.Logf("%s: recall rose above the baseline; record it with -update-offer-baseline", cfg.name)
		}
	}
}
