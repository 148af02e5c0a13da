//go:build e2e

package e2e

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
	"hub/tools"
)

// readUntil reads events until one of type typ (it included), or until
// the stream breaks; err tells which.
func readUntil(es *hubtest.EventStream, typ string) (events []hubtest.Event, err error) {
	for {
		e, err := es.Next()
		if err != nil {
			return events, err
		}
		events = append(events, e)
		if e.Type == typ {
			return events, nil
		}
	}
}

// requireNumbered checks frames are numbered 1, 2, 3 … with no gap and no
// repeat.
func requireNumbered(t *testing.T, events []hubtest.Event) {
	t.Helper()
	for i, e := range events {
		require.Equal(t, int64(i+1), e.ID, "no gap and no repeat at event %d (%s)", i, e.Type)
	}
}

// stallingThenFast: the first model call streams a word a second (it
// outlasts the 10 s a stopping worker waits for running activities); the
// call run again answers at once.
var stallingThenFast = `{"rules": [
  {"times": 1, "reply": {"text": "` + strings.Repeat("slow ", 40) + `", "chunkSize": 5, "chunkDelay": "1s"}},
  {"reply": {"text": "` + strings.Repeat("word ", 40) + `", "chunkSize": 5}}]}`

func TestWorkerReplacedDuringAModelCall(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(stallingThenFast)})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conv := s.Conversation(t)
	st := s.Ask(t, conv, "tell me a long story")
	es := s.OpenEvents(ctx, t, s.URL+st.StreamURL, "", "")
	defer es.Close()
	var events []hubtest.Event
	for texts := 0; texts < 2; {
		e, err := es.Next()
		require.NoError(t, err)
		events = append(events, e)
		if e.Type == "text" {
			texts++
		}
	}

	// The worker goes away mid-call (it waits 10 s for the call, which
	// does not end, then cuts it off), and a new one takes over.
	s.StopWorker()
	awaitDisconnect(t, s, 1)
	s.StartWorker(t)

	rest, err := readUntil(es, "done")
	require.NoError(t, err)
	events = append(events, rest...)
	requireNumbered(t, events)
	require.Equal(t, "done", events[len(events)-1].Data["status"])
	discards := 0
	for _, e := range events {
		if e.Type == "status" && e.Data["discard"] == true {
			discards++
		}
	}
	require.Equal(t, 1, discards, "the client is told once to drop the cut-off text")
	want := strings.Repeat("word ", 40)
	require.Equal(t, want, hubtest.Text(events), "the reply is complete, once")
	require.Len(t, s.Model.Requests(), 2, "the model call ran again")

	msgs := s.Do(t, s.Token, "GET", "/api/assistant/conversations/"+conv+"/messages", nil).JSON(t)["messages"].([]any)
	require.Equal(t, want, msgs[1].(map[string]any)["text"], "the saved reply has no trace of the cut-off attempt")
}

func TestAPIRestartedMidTurnStreamResumesOnAnother(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(slowText)})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	first := s.StartAPI(t)
	st := s.Ask(t, s.Conversation(t), "tell me a long story")

	es := s.OpenEvents(ctx, t, first.URL+st.StreamURL, "", "")
	defer es.Close()
	var events []hubtest.Event
	for len(events) < 8 {
		e, err := es.Next()
		require.NoError(t, err)
		events = append(events, e)
	}
	// The api process serving the stream dies mid-turn; the client keeps
	// what reached it and reconnects to the other one.
	first.Kill()
	more, err := readUntil(es, "done")
	require.Error(t, err, "the stream broke before the turn ended")
	events = append(events, more...)
	last := events[len(events)-1].ID

	again := s.OpenEvents(ctx, t, s.URL+st.StreamURL, "", strconv.FormatInt(last, 10))
	defer again.Close()
	rest, err := readUntil(again, "done")
	require.NoError(t, err)
	events = append(events, rest...)
	requireNumbered(t, events)
	require.Equal(t, "done", events[len(events)-1].Data["status"])
	require.Equal(t, strings.Repeat("word ", 80), hubtest.Text(events))
}

// gate holds a write in its transaction until the test lets it go.
type gate struct {
	started chan struct{}
	release chan struct{}
}

type noArgs struct{}

// blockingWrite is a write tool that, once running (inside its
// transaction), waits for the test: a write that is committing.
func blockingWrite(g *gate) *tools.Definition {
	return tools.Define(tools.Spec{Name: "ledger_commit_batch", Area: "ledger", IsWrite: true,
		Description: "Commit the open batch of ledger entries to the ledger."},
		func(ctx context.Context, _ tools.Env, _ noArgs) (tools.Result, error) {
			close(g.started)
			select {
			case <-g.release:
				return tools.Result{Summary: "Committed the ledger batch"}, nil
			case <-ctx.Done():
				return tools.Result{}, ctx.Err()
			}
		})
}

const commitThenAnswer = `{"rules": [
  {"match": {"afterToolResult": false}, "reply": {"toolCalls": [{"name": "ledger_commit_batch", "arguments": {}}]}},
  {"reply": {"text": "Committed."}}]}`

// startCommitting starts a turn whose write is running when it returns.
func startCommitting(t *testing.T) (*hubtest.Stack, *gate, hubtest.Started) {
	t.Helper()
	g := &gate{started: make(chan struct{}), release: make(chan struct{})}
	s := hubtest.Start(t, hubtest.Options{ExtraTools: []*tools.Definition{blockingWrite(g)},
		Script: fakemodel.MustParseScript(commitThenAnswer)})
	st := s.Ask(t, s.Conversation(t), "commit the ledger batch")
	select {
	case <-g.started:
	case <-time.After(30 * time.Second):
		t.Fatal("the write never started")
	}
	return s, g, st
}

// requireWriteReported checks the write finished and was reported before
// the end.
func requireWriteReported(t *testing.T, events []hubtest.Event) {
	t.Helper()
	for _, e := range events {
		if e.Type == "tool" && e.Data["tool"] == "ledger_commit_batch" && e.Data["phase"] == "done" {
			require.Equal(t, "Committed the ledger batch", e.Data["summary"])
			return
		}
	}
	t.Fatalf("no tool frame reports the write done: %v", events)
}

func TestStopWhileAWriteCommitsLetsItFinish(t *testing.T) {
	t.Parallel()
	s, g, st := startCommitting(t)
	r := s.Do(t, s.Token, "POST", "/api/assistant/turns/"+st.TurnID+"/stop", nil)
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	require.Equal(t, "stopping", r.JSON(t)["status"])
	close(g.release)

	events := s.Stream(t, st.StreamURL, 0, 0)
	requireWriteReported(t, events)
	require.Equal(t, "stopped", events[len(events)-1].Data["status"])
	require.Len(t, s.Model.Requests(), 1, "no model call after the stop")
	turn := s.AwaitStatus(t, st.TurnID)
	require.Equal(t, "stopped", turn["status"])
	msgs := s.Do(t, s.Token, "GET", "/api/assistant/conversations/"+turn["conversationId"].(string)+"/messages", nil).JSON(t)["messages"].([]any)
	calls := msgs[1].(map[string]any)["toolCalls"].([]any)
	require.Len(t, calls, 1)
	require.Equal(t, "done", calls[0].(map[string]any)["status"], "the write committed and its receipt is kept")
}

func TestPauseWhileAWriteCommitsLetsItFinishThenWaits(t *testing.T) {
	t.Parallel()
	s, g, st := startCommitting(t)
	r := s.Do(t, s.Token, "POST", "/api/assistant/turns/"+st.TurnID+"/pause", nil)
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	close(g.release)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	es := s.OpenEvents(ctx, t, s.URL+st.StreamURL, "", "")
	defer es.Close()
	events, err := readUntil(es, "tool")
	require.NoError(t, err)
	for events[len(events)-1].Data["phase"] != "done" {
		more, err := readUntil(es, "tool")
		require.NoError(t, err)
		events = append(events, more...)
	}
	requireWriteReported(t, events)
	// The turn then waits, paused, before its next model step.
	require.Eventually(t, func() bool {
		return s.Do(t, s.Token, "GET", "/api/assistant/turns/"+st.TurnID, nil).JSON(t)["status"] == "paused"
	}, 10*time.Second, 20*time.Millisecond)
	require.Len(t, s.Model.Requests(), 1, "nothing runs while paused")

	r = s.Do(t, s.Token, "POST", "/api/assistant/turns/"+st.TurnID+"/resume", nil)
	require.Equal(t, http.StatusAccepted, r.Status)
	rest, err := readUntil(es, "done")
	require.NoError(t, err)
	events = append(events, rest...)
	requireNumbered(t, events)
	require.Equal(t, "done", events[len(events)-1].Data["status"])
	require.Equal(t, "Committed.", hubtest.Text(events))
	require.Len(t, s.Model.Requests(), 2)
}

func TestTurnPastItsWallTimeEndsAsTimeout(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(endlessText), TurnTimeout: 4 * time.Second})
	st := s.Ask(t, s.Conversation(t), "tell me a long story")
	s.Stream(t, st.StreamURL, 0, 3)
	r := s.Do(t, s.Token, "POST", "/api/assistant/turns/"+st.TurnID+"/pause", nil)
	require.Equal(t, http.StatusAccepted, r.Status)

	events := s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "error", events[len(events)-1].Data["status"])
	errFrame := events[len(events)-2]
	require.Equal(t, "error", errFrame.Type)
	require.Equal(t, "timeout", errFrame.Data["code"])
	require.Equal(t, "This turn stayed paused past its time limit of 4 seconds, so it ended. Ask again to continue.", errFrame.Data["message"])
	turn := s.AwaitStatus(t, st.TurnID)
	require.Equal(t, "timeout", turn["error"].(map[string]any)["code"])
}
