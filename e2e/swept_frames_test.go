package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
	"hub/models"
	"hub/stream"
)

// A client that comes back to a turn that ended so long ago that its frames
// were swept gets the turn's ending as a done event, instead of a stream
// that waits for ever.
func TestStreamOfASweptTurnEndsWithItsEnding(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "Hello."}}]}`)})
	st := s.Ask(t, s.Conversation(t), "hello")
	events := s.Stream(t, st.StreamURL, 0, 0)
	last := events[len(events)-1]
	require.Equal(t, "done", last.Type)

	// The turn ended longer ago than frames are kept, and the sweep ran.
	ctx := context.Background()
	long := time.Now().Add(-stream.Retention - time.Minute).UTC()
	require.NoError(t, s.DB.WithContext(ctx).Model(&models.Turn{}).Where("id = ?", st.TurnID).Update("finished_at", long).Error)
	sweeper := stream.NewBus(s.DB) // Sweep needs no listener
	t.Cleanup(sweeper.Close)
	n, err := sweeper.Sweep(ctx, time.Now().Add(-stream.Retention))
	require.NoError(t, err)
	require.Positive(t, n)

	for _, after := range []int64{0, last.ID} {
		got := s.Stream(t, st.StreamURL, after, 0)
		require.Len(t, got, 1, "after %d", after)
		done := got[0]
		require.Equal(t, "done", done.Type)
		require.Equal(t, after+1, done.ID)
		require.Equal(t, "done", done.Data["status"])
		require.Equal(t, st.ReplyMessageID, done.Data["messageId"])
		require.Equal(t, last.Data["usage"], done.Data["usage"], "the usage the turn saved")
		require.Nil(t, done.Data["deleted"])
	}
}
