package chat_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestGetMessage(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		turn := f.exchange(t, "Plan the week", "Here is a plan.")
		m, err := f.store.GetMessage(ctx, turn.UserMessageID)
		require.NoError(t, err)
		require.Equal(t, "Plan the week", m.Text)
		require.Equal(t, "user", m.Role)

		// A missing message is not found, like a missing conversation or
		// turn, so callers map it as they map those.
		_, err = f.store.GetMessage(ctx, "msg_missing")
		requireNotFound(t, err, "message")
		require.Contains(t, err.Error(), `"msg_missing"`)
	})
}
