//go:build e2e

package e2e

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"hub/dbtest"
	"hub/hubtest"
)

// startSpy calls onStart when the api starts a turn's workflow: what was
// run on the database before it is the api's start of the turn (no worker
// runs the turn yet).
type startSpy struct {
	client.Client
	onStart func()
}

func (s *startSpy) ExecuteWorkflow(ctx context.Context, o client.StartWorkflowOptions, wf any, args ...any) (client.WorkflowRun, error) {
	s.onStart()
	return s.Client.ExecuteWorkflow(ctx, o, wf, args...)
}

// The api's start of a turn and a stream's reads before its first frame,
// in statements (docs/benchmarks.md, "Where a turn's commits go"). The
// start reads the token with its person once and stores the turn's stream
// token before the workflow starts. A stream: the token with its person,
// then the turn with the access, where its frames stand and its frames, in
// one query (its follower registered before it, stream.Follower).
func TestATurnsStartAndStreamReadOnce(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var rec *dbtest.Statements
	var atStart []string
	spy := &startSpy{onStart: func() {
		mu.Lock()
		defer mu.Unlock()
		atStart = rec.Take()
	}}
	s := hubtest.Start(t, hubtest.Options{APITemporal: func(c client.Client) client.Client { spy.Client = c; return spy }})
	conv := s.Conversation(t)
	mu.Lock()
	rec = dbtest.Record(t, s.DB)
	mu.Unlock()

	st := s.Ask(t, conv, "hello")
	mu.Lock()
	start := atStart
	mu.Unlock()
	t.Logf("the start's statements:\n%s", strings.Join(start, "\n"))
	require.Equal(t, 1, dbtest.Matching(start, "api_tokens", "JOIN people"), "the token and its person, once")
	require.Equal(t, 1, dbtest.Matching(start, "INSERT INTO api_tokens"), "the stream token is stored before the workflow starts")

	events := s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "done", events[len(events)-1].Data["status"])
	s.AwaitStatus(t, st.TurnID)

	// The whole stream again, from the start, of the ended turn: nothing
	// else runs now.
	rec.Take()
	again := s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, len(events), len(again))
	stream := rec.Take()
	t.Logf("the stream's statements:\n%s", strings.Join(stream, "\n"))
	require.Len(t, stream, 2, "token; turn with its access, frames' end and frames")
	require.Equal(t, 1, dbtest.Matching(stream, "api_tokens", "JOIN people"))
	require.Equal(t, 1, dbtest.Matching(stream, "FROM", "turns", "memberships", "done_seq", "LEFT JOIN turn_frames"))
}
