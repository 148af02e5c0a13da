package hubtest_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"

	"hub/fakemodel"
	"hub/hubtest"
	"hub/workflows"
)

// Under Main the stacks of a test process share one Temporal server, each
// on a task queue of its own: the api starts turns on its stack's queue,
// and only that stack's worker takes them. A stack that asks for its own
// server sees none of the others' workflows.
func TestStacksShareOneTemporalServerOnQueuesOfTheirOwn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	script := fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`)
	a := hubtest.Start(t, hubtest.Options{SQLite: true, Script: script})
	b := hubtest.Start(t, hubtest.Options{SQLite: true, Script: script})
	require.NotEqual(t, a.Config().TaskQueue, b.Config().TaskQueue)

	b.StopWorker()
	stB := b.Ask(t, b.Conversation(t), "hi")
	stA := a.Ask(t, a.Conversation(t), "hi")
	require.Equal(t, "done", a.AwaitStatus(t, stA.TurnID)["status"])
	r := b.Do(t, b.Token, "GET", "/api/assistant/turns/"+stB.TurnID, nil)
	require.Equal(t, http.StatusOK, r.Status)
	require.Equal(t, "queued", r.JSON(t)["status"], "a's worker does not take b's turn")
	b.StartWorker(t)
	require.Equal(t, "done", b.AwaitStatus(t, stB.TurnID)["status"])

	// One server: a's client finds b's workflow, on b's queue.
	desc, err := a.Temporal.DescribeWorkflowExecution(ctx, workflows.TurnWorkflowID(stB.TurnID), "")
	require.NoError(t, err)
	require.Equal(t, b.Config().TaskQueue, desc.GetExecutionConfig().GetTaskQueue().GetName())

	own := hubtest.Start(t, hubtest.Options{SQLite: true, NoModel: true, OwnTemporal: true})
	require.Equal(t, workflows.DefaultTaskQueue, own.Config().TaskQueue)
	_, err = own.Temporal.DescribeWorkflowExecution(ctx, workflows.TurnWorkflowID(stB.TurnID), "")
	var notFound *serviceerror.NotFound
	require.True(t, errors.As(err, &notFound), "a server of its own: %v", err)
}
