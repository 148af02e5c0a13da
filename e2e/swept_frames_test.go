//go:build e2e

package e2e

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
	"hub/storage"
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

	// The turn ended longer ago than frames are kept, and the stack's
	// sweeper ran (the one `hub worker` runs).
	ctx := context.Background()
	long := time.Now().Add(-stream.Retention - time.Minute).UTC()
	require.NoError(t, s.DB.WithContext(ctx).Model(&storage.Turn{}).Where("id = ?", st.TurnID).Update("finished_at", long).Error)
	s.Sweep(t, time.Now())
	var frames int64
	require.NoError(t, s.DB.WithContext(ctx).Model(&storage.Frame{}).Where("log = ?", st.TurnID).Count(&frames).Error)
	require.Zero(t, frames, "the sweep deleted the turn's frames")

	// The saved ending stands in for the done frame, with the done frame's
	// number: a client that reconnects after it (an EventSource) gets 204,
	// not a fresh done frame every time.
	for _, after := range []int64{0, 2, last.ID - 1} {
		got := s.Stream(t, st.StreamURL, after, 0)
		require.Len(t, got, 1, "after %d", after)
		done := got[0]
		require.Equal(t, "done", done.Type)
		require.Equal(t, last.ID, done.ID)
		require.Equal(t, "done", done.Data["status"])
		require.Equal(t, st.ReplyMessageID, done.Data["messageId"])
		require.Equal(t, last.Data["usage"], done.Data["usage"], "the usage the turn saved")
		require.Nil(t, done.Data["deleted"])
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for _, from := range []string{"", "1", strconv.FormatInt(last.ID-1, 10)} {
		run := s.EventSource(ctx, t, st.StreamURL, from, 3)
		require.Equal(t, []int{http.StatusOK, http.StatusNoContent}, run.Statuses, "from %q", from)
		require.Len(t, run.Events, 1)
		require.Equal(t, last.ID, run.Events[0].ID)
	}
	for _, from := range []int64{last.ID, last.ID + 1, math.MaxInt64} {
		status, body := getStream(t, s, st.StreamURL, strconv.FormatInt(from, 10))
		require.Equal(t, http.StatusNoContent, status, "after %d: %s", from, body)
	}
}
