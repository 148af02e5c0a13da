package assistant

import (
	"testing"

	"github.com/stretchr/testify/require"

	"hub/tools"
)

// hub_read_skill is in the offer exactly when the instructions list
// skills: reserved then, so a large registry never crowds it out, and
// absent otherwise (it would have nothing to read).
func TestReadSkillIsOfferedOnlyWithListedSkills(t *testing.T) {
	t.Parallel()
	all := shippedPlaybooks(t)
	for _, extra := range []int{0, 1500} {
		reg := EvalRegistry(all, extra)
		in := owner(reg, all, "move the launch tasks to done and tell me which ones are left")
		require.NotContains(t, BuildOffer(in).Tools, tools.ReadSkillTool, "no skills listed, %d extra tools", extra)
		in.Skills = true
		got := BuildOffer(in).Tools
		require.Contains(t, got, tools.ReadSkillTool, "%d extra tools", extra)
		require.LessOrEqual(t, len(got), MaxOfferedTools)
		require.Contains(t, got, "hub_update_tasks", "the request's own tool still fits")
		requireNoDuplicates(t, got)
	}
}
