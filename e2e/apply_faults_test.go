//go:build e2e

package e2e

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"

	"hub/activities"
	"hub/fakemodel"
	"hub/hubtest"
	"hub/workflows"
)

// faultOnce fails the given point the first `times` times it is reached.
func faultOnce(point string, times int) func(string) error {
	var mu sync.Mutex
	left := times
	return func(p string) error {
		mu.Lock()
		defer mu.Unlock()
		if p == point && left > 0 {
			left--
			return errors.New("injected fault at " + p + " (the worker died here)")
		}
		return nil
	}
}

type applyAnswer struct {
	Receipts []struct {
		CallID, Status string
		Error          struct{ Code, Message string }
	}
}

func applyOnce(t *testing.T, s *hubtest.Stack, conv, reply string, extra map[string]any) applyAnswer {
	t.Helper()
	body := map[string]any{"conversationId": conv, "messageId": reply}
	for k, v := range extra {
		body[k] = v
	}
	r := s.Do(t, s.Token, "POST", "/api/assistant/apply", body)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var a applyAnswer
	r.Decode(t, &a)
	return a
}

// TestApplyFaultsInTheHubTransaction: the activity dies inside the
// transaction (before commit) or right after it committed (before it
// reported): either way each write happened exactly once.
func TestApplyFaultsInTheHubTransaction(t *testing.T) {
	t.Parallel()
	for _, point := range []string{activities.FaultBeforeCommit, activities.FaultAfterCommit} {
		t.Run(point, func(t *testing.T) {
			t.Parallel()
			s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(proposeTwo), Fault: faultOnce(point, 2)})
			conv, reply := proposeTasks(t, s)
			a := applyOnce(t, s, conv, reply, nil)
			for _, r := range a.Receipts {
				require.Equal(t, "succeeded", r.Status)
			}
			require.Len(t, s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil).JSON(t)["tasks"], 2, "exactly once")
		})
	}
}

// TestApplyDatabaseFaultsEndInAClearFailure: a fault on every attempt
// (the database keeps dropping the connection) ends in failed receipts
// with a clear message after bounded retries, and nothing of the space is
// written.
func TestApplyDatabaseFaultsEndInAClearFailure(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(proposeTwo), Fault: faultOnce(activities.FaultBeforeCommit, 1000)})
	conv, reply := proposeTasks(t, s)
	a := applyOnce(t, s, conv, reply, nil)
	for _, r := range a.Receipts {
		require.Equal(t, "failed", r.Status)
		require.Contains(t, r.Error.Message, "nothing in this space was changed")
	}
	require.Empty(t, s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil).JSON(t)["tasks"], "never a partial space")
}

// webhookApp is a connected app that counts posts.
func webhookApp(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var posts atomic.Int32
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if !hubPost(r) {
			http.NotFound(w, r)
			return
		}
		posts.Add(1)
	}))
	t.Cleanup(app.Close)
	return app, &posts
}

// hubPost tells a post Hub made to a connected app (proposePost's URL ends
// in /hook; Hub always sends its call id as the Idempotency-Key) from
// anything else that reaches the test server's port. Something else does:
// an embedded Temporal server that a finished test stopped leaves gRPC
// connections redialing its old frontend port (temporalio/temporal#11289),
// and when the kernel hands that port to a new httptest server, each redial
// arrives as a "PRI * HTTP/2.0" request, which an HTTP/1 server passes to
// its handler. Counted as posts, they made an Apply that sent nothing look
// as if it had sent.
func hubPost(r *http.Request) bool {
	return r.Method == http.MethodPost && r.URL.Path == "/hook" && r.Header.Get("Idempotency-Key") != ""
}

// TestWebhookAppCountsOnlyHubsPosts: a redial of a leaked gRPC connection
// (the HTTP/2 preface) or any other stray request to the app's port is not
// a post.
func TestWebhookAppCountsOnlyHubsPosts(t *testing.T) {
	t.Parallel()
	app, posts := webhookApp(t)
	conn, err := net.Dial("tcp", app.Listener.Addr().String())
	require.NoError(t, err)
	_, err = conn.Write([]byte("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")) // what a gRPC client sends first
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, conn) // the server answers and closes
	require.NoError(t, conn.Close())
	resp, err := http.Get(app.URL + "/hook")
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Zero(t, posts.Load())

	req, err := http.NewRequest(http.MethodPost, app.URL+"/hook", strings.NewReader(`{"text":"Shipped"}`))
	require.NoError(t, err)
	req.Header.Set("Idempotency-Key", "call_1")
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.EqualValues(t, 1, posts.Load())
}

func proposePost(t *testing.T, s *hubtest.Stack, appURL string) (conv, reply string) {
	t.Helper()
	r := s.Do(t, s.Token, "POST", "/api/spaces/"+s.SpaceID+"/connections", map[string]any{"kind": "webhook", "name": "Team updates", "url": appURL + "/hook"})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	s.Model.SetScript(fakemodel.MustParseScript(`{"rules": [
	  {"times": 1, "reply": {"toolCalls": [{"name": "apps_post_update", "arguments": {"connectionId": "` + r.JSON(t)["id"].(string) + `", "text": "Shipped"}}]}},
	  {"reply": {"text": "Proposed."}}]}`))
	r = s.Do(t, s.Token, "PATCH", "/api/me/settings", map[string]any{"connectedAppWrites": true})
	require.Equal(t, http.StatusOK, r.Status)
	conv = s.Conversation(t)
	st := s.Ask(t, conv, "tell the team we shipped")
	s.Stream(t, st.StreamURL, 0, 0)
	return conv, st.ReplyMessageID
}

// TestApplyOutsideWriteFaults: the worker dies between the Hub transaction
// and the outside write (nothing was sent: unattempted, sent by the next
// Apply), or after the request went out (unknown: not resent unless the
// person says so).
func TestApplyOutsideWriteFaults(t *testing.T) {
	t.Parallel()
	t.Run("before sending", func(t *testing.T) {
		t.Parallel()
		app, posts := webhookApp(t)
		s := hubtest.Start(t, hubtest.Options{AppsAllow: []string{strings.TrimPrefix(app.URL, "http://")},
			Script: fakemodel.MustParseScript(`{"rules": []}`), Fault: faultOnce(activities.FaultBeforeOutside, 1)})
		conv, reply := proposePost(t, s, app.URL)
		a := applyOnce(t, s, conv, reply, nil)
		require.Equal(t, "unattempted", a.Receipts[0].Status)
		require.Zero(t, posts.Load())
		a = applyOnce(t, s, conv, reply, nil)
		require.Equal(t, "succeeded", a.Receipts[0].Status)
		require.EqualValues(t, 1, posts.Load())
	})
	t.Run("after sending", func(t *testing.T) {
		t.Parallel()
		app, posts := webhookApp(t)
		s := hubtest.Start(t, hubtest.Options{AppsAllow: []string{strings.TrimPrefix(app.URL, "http://")},
			Script: fakemodel.MustParseScript(`{"rules": []}`), Fault: faultOnce(activities.FaultAfterSend, 1)})
		conv, reply := proposePost(t, s, app.URL)
		a := applyOnce(t, s, conv, reply, nil)
		require.Equal(t, "unknown", a.Receipts[0].Status)
		require.EqualValues(t, 1, posts.Load())
		a = applyOnce(t, s, conv, reply, nil)
		require.Equal(t, "unknown", a.Receipts[0].Status, "Retry does not resend an unknown write")
		require.EqualValues(t, 1, posts.Load())
		a = applyOnce(t, s, conv, reply, map[string]any{"resendUnknown": true})
		require.Equal(t, "succeeded", a.Receipts[0].Status, "only when the person says so")
		require.EqualValues(t, 2, posts.Load())
	})
}

// TestApplyResetFromTheFirstEventWritesNothingTwice: an operator resets
// the Apply workflow to its first workflow task; the new run applies
// nothing again.
func TestApplyResetFromTheFirstEventWritesNothingTwice(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(proposeTwo)})
	conv, reply := proposeTasks(t, s)
	first := applyOnce(t, s, conv, reply, nil)
	ctx := context.Background()
	id := workflows.ApplyWorkflowID(reply)
	it := s.Temporal.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var firstTask int64
	for it.HasNext() && firstTask == 0 {
		ev, err := it.Next()
		require.NoError(t, err)
		if ev.EventType == enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED {
			firstTask = ev.EventId
		}
	}
	require.NotZero(t, firstTask)
	desc, err := s.Temporal.DescribeWorkflowExecution(ctx, id, "")
	require.NoError(t, err)
	_, err = s.Temporal.ResetWorkflowExecution(ctx, &workflowservice.ResetWorkflowExecutionRequest{
		Namespace: "default", WorkflowExecution: desc.WorkflowExecutionInfo.Execution,
		Reason: "operator reset in a test", WorkflowTaskFinishEventId: firstTask, RequestId: "reset-2",
	})
	require.NoError(t, err)
	again := applyOnce(t, s, conv, reply, nil)
	require.Equal(t, first.Receipts, again.Receipts)
	require.Len(t, s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil).JSON(t)["tasks"], 2, "no write twice")
}

// TestApplySurvivesADroppedDatabaseConnection: Postgres drops the
// connection of the space's transaction just before it commits (a real
// pg_terminate_backend, not a simulated error). The commit fails, the
// activity is retried on a fresh connection, and every write happens once.
func TestApplySurvivesADroppedDatabaseConnection(t *testing.T) {
	t.Parallel()
	var s *hubtest.Stack
	var dropped atomic.Bool
	s = hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(proposeTwo), Fault: func(point string) error {
		if point != activities.FaultBeforeCommit || dropped.Swap(true) {
			return nil
		}
		// Every other session of this database: the transaction's among them.
		return s.DB.Exec(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
			WHERE datname = current_database() AND pid <> pg_backend_pid()`).Error
	}})
	if s.DB.Dialect != "postgres" {
		t.Skip("a Postgres fault")
	}
	conv, reply := proposeTasks(t, s)
	a := applyOnce(t, s, conv, reply, nil)
	require.True(t, dropped.Load(), "the connection was dropped mid-transaction")
	for _, r := range a.Receipts {
		require.Equal(t, "succeeded", r.Status)
	}
	require.Len(t, s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil).JSON(t)["tasks"], 2, "exactly once")
}
