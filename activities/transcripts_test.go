package activities

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/chat"
)

// Kept transcripts are bounded, found by their key only, and dropped
// with their turn.
func TestTranscriptsAreBoundedAndForgotten(t *testing.T) {
	var c transcripts
	for i := range maxTranscripts + 10 {
		c.put(fmt.Sprintf("turn_%d/msg/run", i), transcript{user: chat.Message{ID: fmt.Sprint(i)}})
	}
	require.Len(t, c.byKey, maxTranscripts)
	_, ok := c.get("turn_0/msg/run")
	require.False(t, ok, "the oldest went first")
	got, ok := c.get("turn_20/msg/run")
	require.True(t, ok)
	require.Equal(t, "20", got.user.ID)
	_, ok = c.get("turn_20/msg/another-run")
	require.False(t, ok, "a reset's new run reads afresh")

	c.put("turn_2/msg/run2", transcript{})
	c.forget("turn_2")
	_, ok = c.get("turn_2/msg/run2")
	require.False(t, ok)
	got, ok = c.get("turn_20/msg/run")
	require.True(t, ok, "forgetting turn_2 leaves turn_20")
	require.Equal(t, "20", got.user.ID)
	require.Len(t, c.order, len(c.byKey))
}
