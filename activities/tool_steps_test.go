package activities

import (
	"testing"

	"github.com/stretchr/testify/require"

	"hub/chat"
)

// A tool call sees the turn's steps up to its own: after a reset to a
// point inside its step, the old run's later steps (read before the claim
// deleted them) are not the turn it replays.
func TestStepsThrough(t *testing.T) {
	steps := []chat.Step{{Step: 1}, {Step: 2}, {Step: 3}}
	require.Equal(t, steps[:2], stepsThrough(steps, 2))
	require.Equal(t, steps, stepsThrough(steps, 3))
	require.Empty(t, stepsThrough(steps, 0))
}
