//go:build e2e

package e2e

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/hubtest"
	"hub/notify"
	"hub/storage"
	"hub/stream"
)

// A frame published right between the api's read of a stream (the turn,
// its access and its first frames, one statement) and its follower's
// start is sent once, in its place: the follower was registered before
// the read (stream.Follower). The frames are published from inside the
// read's statement callback, after its rows came back and before the api
// calls Follow: in this process (handed over in memory) and, on Postgres,
// from another process's bus (its notification carries it); the last is
// the done frame, so the turn ends meanwhile too. No worker runs the turn
// and the api's poll is an hour, so a frame that fell between the read
// and the follower would never come: the stream would not end.
func TestAFrameBetweenTheStreamsReadAndItsFollowIsSentOnce(t *testing.T) {
	t.Parallel()
	onBothEngines(t, func(t *testing.T, sqlite bool) {
		s := hubtest.Start(t, hubtest.Options{SQLite: sqlite})
		here := s.Activities.Frames // the api's bus too: one process
		s.Notifier.SetPollInterval(time.Hour)
		s.StopWorker()
		st := s.Ask(t, s.Conversation(t), "hello")

		type publish struct {
			bus  *stream.Bus
			typ  string
			data map[string]any
		}
		status := func(n int) map[string]any { return map[string]any{"status": "working", "step": 0, "between": n} }
		done := map[string]any{"status": "done"}
		between := []publish{{here, stream.TypeStatus, status(1)}, {here, stream.TypeDone, done}}
		if !sqlite {
			// Another process: a bus of its own, with a notifier of its own.
			otherNotifier := notify.New(s.DB)
			t.Cleanup(otherNotifier.Close)
			other := stream.NewBus(s.DB, otherNotifier)
			t.Cleanup(other.Close)
			between = []publish{{here, stream.TypeStatus, status(1)}, {other, stream.TypeStatus, status(2)}, {other, stream.TypeDone, done}}
		}

		var mu sync.Mutex // the callback runs in the api's request
		var published []int64
		name := "e2e:between-read-and-follow"
		remove, err := s.DB.Observe(name, storage.Observer{After: func(_ any, q storage.Statement) {
			sql := q.SQL
			if q.Err != nil || !strings.Contains(sql, "done_seq") || !strings.Contains(sql, "LEFT JOIN frames") {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if published != nil {
				return // the resumed stream's read, below
			}
			published = []int64{}
			for _, p := range between {
				seq, err := p.bus.Publish(context.Background(), st.TurnID, p.typ, p.data)
				if err != nil {
					t.Errorf("publish between the read and the follow: %v", err)
					return
				}
				published = append(published, seq)
			}
		}})
		require.NoError(t, err)
		t.Cleanup(remove)

		events := s.Stream(t, st.StreamURL, 0, 0)
		mu.Lock()
		want := published
		mu.Unlock()
		require.Len(t, want, len(between), "the frames were published in the read's callback")
		var ids []int64
		for _, e := range events {
			ids = append(ids, e.ID)
		}
		require.Equal(t, want, ids, "each frame once, in order, and nothing else")
		for i, e := range events {
			require.Equal(t, between[i].typ, e.Type)
		}
		require.Equal(t, float64(1), events[0].Data["between"])

		// And from Last-Event-ID, now that the turn has ended.
		resumed := s.Stream(t, st.StreamURL, ids[0], 0)
		require.Equal(t, events[1:], resumed, "after %s", strconv.FormatInt(ids[0], 10))
	})
}
