//go:build e2e

package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// onlyAfterAFailure are series the dashboard shows that exist only once
// something happened that the test's one turn does not do: a model call
// failed, an Apply ran.
var onlyAfterAFailure = []string{"hub_model_errors_total", "hub_apply_receipts_total"}

// Every series Hub's Grafana dashboard reads is one a running Hub serves
// on /metrics (the api's and, in `hub dev`, the worker's and the Temporal
// SDK's), so a renamed metric breaks this test, not an operator's board.
func TestDashboardReadsWhatHubServes(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("..", "deploy", "grafana", "dashboards", "hub.json"))
	require.NoError(t, err)
	var board struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	require.NoError(t, json.Unmarshal(raw, &board))
	require.NotEmpty(t, board.Panels)
	wanted := map[string]string{} // family → panel
	name := regexp.MustCompile(`\b((?:hub|temporal|go|process)_[a-z0-9_]+)\b`)
	for _, p := range board.Panels {
		require.NotEmpty(t, p.Targets, p.Title)
		for _, target := range p.Targets {
			for _, m := range name.FindAllString(target.Expr, -1) {
				for _, suffix := range []string{"_bucket", "_count", "_sum"} {
					if strings.HasSuffix(m, suffix) && (strings.HasSuffix(strings.TrimSuffix(m, suffix), "_seconds") || strings.HasSuffix(strings.TrimSuffix(m, suffix), "_bytes")) {
						m = strings.TrimSuffix(m, suffix)
					}
				}
				wanted[m] = p.Title
			}
		}
	}

	dir, url := sharedDev(t)
	s := devStack(t, url, filepath.Join(dir, ".hub"))
	st := s.Ask(t, s.Conversation(t), "add a task called Call Mira")
	events := s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "done", events[len(events)-1].Data["status"])

	// The workflow's completion is counted just after its last frame.
	missing := func() []string {
		resp, err := http.Get(url + "/metrics")
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		require.NoError(t, err)
		served := map[string]bool{}
		for _, m := range regexp.MustCompile(`(?m)^# TYPE (\S+) `).FindAllStringSubmatch(string(body), -1) {
			served[m[1]] = true
		}
		var out []string
		for family, panel := range wanted {
			if !served[family] && !slices.Contains(onlyAfterAFailure, family) {
				out = append(out, panel+": "+family)
			}
		}
		return out
	}
	require.Eventually(t, func() bool { return len(missing()) == 0 }, 10*time.Second, 50*time.Millisecond,
		"series the dashboard reads and /metrics does not serve: %v", missing())
	require.Greater(t, len(wanted), 10, "%v", wanted)
}
