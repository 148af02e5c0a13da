//go:build e2e

package e2e

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"hub/activities"
	"hub/fakemodel"
	"hub/hubtest"
	"hub/workflows"
)

// lostAnswer is the api's Temporal client with one answer lost: the first
// Apply update runs to the end, but the api is told the workflow service
// was unavailable, as when the connection drops after the update reached
// the workflow.
type lostAnswer struct {
	client.Client
	mu  sync.Mutex
	ids []string // the update id of each Update-with-Start
}

func (l *lostAnswer) UpdateWithStartWorkflow(ctx context.Context, o client.UpdateWithStartWorkflowOptions) (client.WorkflowUpdateHandle, error) {
	h, err := l.Client.UpdateWithStartWorkflow(ctx, o)
	l.mu.Lock()
	l.ids = append(l.ids, o.UpdateOptions.UpdateID)
	first := len(l.ids) == 1
	l.mu.Unlock()
	if err != nil || !first {
		return h, err
	}
	var res workflows.ApplyResult
	if err := h.Get(ctx, &res); err != nil {
		return nil, err
	}
	return nil, serviceerror.NewUnavailable("injected: the answer was lost on the way")
}

// TestApplyRetryAfterALostAnswerJoinsTheSameUpdate: the api tries an Apply
// again after a transient error with the same update id, so Temporal
// answers with the update that already ran instead of running the Apply a
// second time within one request. (The first run stops before the outside
// write, unattempted; a second run would send it.)
func TestApplyRetryAfterALostAnswerJoinsTheSameUpdate(t *testing.T) {
	t.Parallel()
	app, posts := webhookApp(t)
	lost := &lostAnswer{}
	s := hubtest.Start(t, hubtest.Options{AppsAllow: []string{strings.TrimPrefix(app.URL, "http://")},
		Script: fakemodel.MustParseScript(`{"rules": []}`), Fault: faultOnce(activities.FaultBeforeOutside, 1),
		APITemporal: func(c client.Client) client.Client { lost.Client = c; return lost }})
	conv, reply := proposePost(t, s, app.URL)
	a := applyOnce(t, s, conv, reply, nil)
	lost.mu.Lock()
	ids := lost.ids
	lost.mu.Unlock()
	require.Len(t, ids, 2, "the api tried again")
	require.NotEmpty(t, ids[0])
	require.Equal(t, ids[0], ids[1], "with the same update id")
	require.Equal(t, "unattempted", a.Receipts[0].Status, "the answer of the update that ran")
	require.Zero(t, posts.Load(), "the Apply ran once")

	it := s.Temporal.GetWorkflowHistory(context.Background(), workflows.ApplyWorkflowID(reply), "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	updates, outside := 0, 0
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		switch {
		case ev.EventType == enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
			updates++
		case ev.EventType == enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED &&
			ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName() == "ApplyOutside":
			outside++
		}
	}
	require.Equal(t, 1, updates, "one update in the workflow")
	require.Equal(t, 1, outside, "one ApplyOutside")

	// The next Apply sends it, once.
	a = applyOnce(t, s, conv, reply, nil)
	require.Equal(t, "succeeded", a.Receipts[0].Status)
	require.EqualValues(t, 1, posts.Load())
}
