//go:build e2e

package e2e

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"

	"hub/activities"
	"hub/fakemodel"
	"hub/hubtest"
	"hub/workflows"
)

// turnHistory reads a turn's workflow history as it is now.
func turnHistory(t *testing.T, s *hubtest.Stack, turnID string) []*historypb.HistoryEvent {
	t.Helper()
	it := s.Temporal.GetWorkflowHistory(context.Background(), workflows.TurnWorkflowID(turnID), "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var events []*historypb.HistoryEvent
	for it.HasNext() {
		e, err := it.Next()
		require.NoError(t, err)
		events = append(events, e)
	}
	return events
}

// handledSignal tells whether the workflow received the signal and
// completed a workflow task after it (its handler ran).
func handledSignal(events []*historypb.HistoryEvent, name string) bool {
	seen := false
	for _, e := range events {
		switch {
		case e.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED &&
			e.GetWorkflowExecutionSignaledEventAttributes().GetSignalName() == name:
			seen = true
		case seen && e.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
			return true
		}
	}
	return false
}

// holdFirstModelCall holds the turn's first model call at its start (a
// worker slow to pick it up) until release is closed; held is closed when
// the call got there.
func holdFirstModelCall() (fault func(string) error, held, release chan struct{}) {
	held, release = make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	return func(point string) error {
		if point == activities.FaultModelStart && calls.Add(1) == 1 {
			close(held)
			<-release
		}
		return nil
	}, held, release
}

// A pause and a resume that both reach the workflow before its model call
// has looked at the turn: the call was cancelled for the pause, so it must
// not reach the model (a cancellation that lands once the call streams
// would cut it and run it again); the resumed call answers, once, at once.
func TestPauseAndResumeBeforeTheModelCallStartsCallsTheModelOnce(t *testing.T) {
	t.Parallel()
	fault, held, release := holdFirstModelCall()
	script := `{"rules": [{"reply": {"text": "` + strings.Repeat("word ", 20) + `", "chunkSize": 5, "chunkDelay": "50ms"}}]}`
	s := hubtest.Start(t, hubtest.Options{Fault: fault, Script: fakemodel.MustParseScript(script)})
	st := s.Ask(t, s.Conversation(t), "tell me a story")
	select {
	case <-held:
	case <-time.After(30 * time.Second):
		t.Fatal("the model call never started")
	}
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()

	r := s.Do(t, s.Token, "POST", "/api/assistant/turns/"+st.TurnID+"/pause", nil)
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	require.Eventually(t, func() bool { return handledSignal(turnHistory(t, s, st.TurnID), workflows.PauseSignal) },
		30*time.Second, 20*time.Millisecond, "the workflow heard the pause (and cancelled the call)")
	r = s.Do(t, s.Token, "POST", "/api/assistant/turns/"+st.TurnID+"/resume", nil)
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	require.Eventually(t, func() bool { return handledSignal(turnHistory(t, s, st.TurnID), workflows.ResumeSignal) },
		30*time.Second, 20*time.Millisecond, "the workflow heard the resume")
	start := time.Now()
	close(release)

	events := s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "done", events[len(events)-1].Data["status"])
	require.Equal(t, strings.Repeat("word ", 20), hubtest.Text(events))
	require.Equal(t, 1, len(s.Model.Requests()), "the cancelled call never reached the model; the resumed one answered")
	for _, e := range turnHistory(t, s, st.TurnID) {
		if a := e.GetTimerStartedEventAttributes(); a != nil {
			require.NotEqual(t, 10*time.Second, a.GetStartToFireTimeout().AsDuration(),
				"the turn did not wait for the signal behind the interrupted call: it had heard it")
		}
	}
	t.Logf("answered %s after the held call was let go", time.Since(start).Round(time.Millisecond))
}
