//go:build e2e

package e2e

import (
	"context"
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

// A turn's stream token is stored before its workflow starts, so the
// stream URL the start answers works at once; the whole stream of an ended
// turn reads again from the start, the same.
func TestATurnsStreamTokenIsStoredBeforeItsWorkflowStarts(t *testing.T) {
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
	require.Equal(t, 1, dbtest.Matching(start, "INSERT INTO api_tokens"), "the stream token is stored before the workflow starts")

	events := s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "done", events[len(events)-1].Data["status"])
	s.AwaitStatus(t, st.TurnID)
	again := s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, events, again)
}
