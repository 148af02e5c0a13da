//go:build e2e

package e2e

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
)

// Deleting a conversation while its turn runs ends the turn's event
// streams, in the api that took the delete and in another api process,
// with a done event that says the turn stopped because it was deleted
// (docs/decisions.md), numbered after the turn's last frame; then the
// response ends. A reconnect finds no turn.
func TestDeletingAConversationEndsItsTurnStreams(t *testing.T) {
	t.Parallel()
	// The model never answers: nothing is published after the delete.
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"fault": {"kind": "hang"}}}]}`)})
	other := s.StartAPI(t)
	conv := s.Conversation(t)
	st := s.Ask(t, conv, "hello")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	streams := map[string]*hubtest.EventStream{
		"this api":    s.OpenEvents(ctx, t, s.URL+st.StreamURL, "", ""),
		"another api": s.OpenEvents(ctx, t, other.URL+st.StreamURL, "", ""),
	}
	for _, es := range streams {
		t.Cleanup(es.Close)
	}
	_, err := s.Model.Await(ctx, func(r []fakemodel.RecordedRequest) bool { return len(r) == 1 && r[0].HeadersAt != nil })
	require.NoError(t, err, "the turn is running")

	r := s.Do(t, s.Token, "DELETE", "/api/assistant/conversations/"+conv, nil)
	require.Equal(t, http.StatusNoContent, r.Status)
	for where, es := range streams {
		var events []hubtest.Event
		for {
			e, err := es.Next()
			require.NoError(t, err, where)
			events = append(events, e)
			if e.Type == "done" {
				break
			}
		}
		for i, e := range events {
			require.EqualValues(t, i+1, e.ID, "%s: numbered on from the turn's frames", where)
		}
		done := events[len(events)-1].Data
		require.Equal(t, "stopped", done["status"], where)
		require.Equal(t, true, done["deleted"], where)
		require.Equal(t, st.ReplyMessageID, done["messageId"], where)
		require.Equal(t, map[string]any{"inputTokens": 0.0, "outputTokens": 0.0}, done["usage"], where)
		_, err := es.Next()
		require.ErrorIs(t, err, io.EOF, "%s: the response ends", where)
	}
	r = s.Do(t, "", "GET", st.StreamURL, nil)
	require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Body)
}
