//go:build e2e

package e2e

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"hub/fakemodel"
	"hub/hubtest"
	"hub/workflows"
)

func TestExpiredProposalIsNotApplied(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(proposeTwo)})
	conv, reply := proposeTasks(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	es := activityStream(ctx, t, s, s.Token, "")
	require.Len(t, next(t, es).Data["activities"], 1, "the snapshot shows the Apply waiting")
	n, err := s.Chat.ExpireHeld(context.Background(), time.Now().Add(time.Minute))
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	require.Empty(t, s.Do(t, s.Token, "GET", "/api/assistant/needs-me", nil).JSON(t)["items"])
	// The top bar hears that nothing waits any more.
	ended := activity(t, next(t, es))
	require.Equal(t, "apply:"+reply, ended["id"])
	require.Equal(t, true, ended["ended"])
	require.Empty(t, s.Do(t, s.Token, "GET", "/api/agent/state", nil).JSON(t)["activities"])

	r := s.Do(t, s.Token, "POST", "/api/assistant/apply", map[string]any{"conversationId": conv, "messageId": reply})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var res struct {
		Receipts []struct {
			Status string
			Error  struct{ Code, Message string }
		}
	}
	r.Decode(t, &res)
	for _, rc := range res.Receipts {
		require.Equal(t, "failed", rc.Status)
		require.Equal(t, "expired", rc.Error.Code)
		require.Contains(t, rc.Error.Message, "expired")
	}
	require.Empty(t, s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil).JSON(t)["tasks"])
}

func TestDeletingAConversationEndsItsApply(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(proposeTwo)})
	conv, reply := proposeTasks(t, s)
	r := s.Do(t, s.Token, "POST", "/api/assistant/apply", map[string]any{"conversationId": conv, "messageId": reply})
	require.Equal(t, http.StatusOK, r.Status)
	// The Apply workflow stays open for a Retry …
	desc, err := s.Temporal.DescribeWorkflowExecution(context.Background(), workflows.ApplyWorkflowID(reply), "")
	require.NoError(t, err)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, desc.WorkflowExecutionInfo.Status)
	// … until the conversation is deleted.
	r = s.Do(t, s.Token, "DELETE", "/api/assistant/conversations/"+conv, nil)
	require.Equal(t, http.StatusNoContent, r.Status)
	require.Eventually(t, func() bool {
		desc, err := s.Temporal.DescribeWorkflowExecution(context.Background(), workflows.ApplyWorkflowID(reply), "")
		return err == nil && desc.WorkflowExecutionInfo.Status != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	}, 10*time.Second, 20*time.Millisecond)
}
