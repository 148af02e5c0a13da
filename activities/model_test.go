package activities_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/activities"
	"hub/chat"
	"hub/dbtest"
	"hub/llm"
	"hub/storage"
	"hub/stream"
	"hub/usage"
)

// scripted is a model that answers each request with the next of its
// replies, streaming each reply's chunks first.
type scripted struct {
	mu      sync.Mutex
	replies []scriptedReply
	n       int
}

type scriptedReply struct {
	chunks []string
	res    llm.Result
}

func (s *scripted) Stream(ctx context.Context, _ llm.Request, onChunk func(llm.Chunk) error) (llm.Result, error) {
	s.mu.Lock()
	r := s.replies[min(s.n, len(s.replies)-1)]
	s.n++
	s.mu.Unlock()
	for _, c := range r.chunks {
		if err := onChunk(llm.Chunk{TextDelta: c}); err != nil {
			return llm.Result{}, err
		}
	}
	return r.res, ctx.Err()
}

func (s *scripted) Model() string { return "scripted" }

// withModel gives the fixture's activities a scripted model and a usage
// store, so a model call reserves and settles.
func (f *fixture) withModel(replies ...scriptedReply) {
	f.acts.Model, f.acts.ModelConfigured = &scripted{replies: replies}, true
	f.acts.Usage = usage.NewStore(f.db)
}

var (
	listCall = scriptedReply{res: llm.Result{FinishReason: "tool_calls", Usage: llm.Usage{InputTokens: 100, OutputTokens: 5},
		ToolCalls: []llm.ToolCall{{ID: "c1", Name: "hub_list_tasks", Arguments: `{}`}}}}
	answer = scriptedReply{chunks: []string{"You have no tasks."},
		res: llm.Result{Text: "You have no tasks.", FinishReason: "stop", Usage: llm.Usage{InputTokens: 120, OutputTokens: 6}}}
)

// TestCallModelSettlesEachRequest: two model calls of a turn, the first
// with a tool call, the second with the answer: each request is settled
// once with what the provider reported, nothing is left reserved, and the
// frames tell each step working and carry the text as saved.
func TestCallModelSettlesEachRequest(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		f.withModel(listCall, answer)
		ctx := context.Background()

		ms, err := f.acts.CallModel(ctx, activities.CallModelInput{TurnID: f.turn.ID, Step: 1})
		require.NoError(t, err)
		require.Len(t, ms.ToolCalls, 1)
		_, err = f.acts.RunTool(ctx, activities.RunToolInput{TurnID: f.turn.ID, CallID: ms.ToolCalls[0].ID})
		require.NoError(t, err)
		ms, err = f.acts.CallModel(ctx, activities.CallModelInput{TurnID: f.turn.ID, Step: 2})
		require.NoError(t, err)
		require.Empty(t, ms.ToolCalls)

		// What was used is settled, once a request, and nothing is left
		// reserved.
		calls, err := f.acts.Usage.TurnCalls(ctx, f.turn.ID)
		require.NoError(t, err)
		require.Len(t, calls, 2)
		for _, c := range calls {
			require.Equal(t, usage.StatusSettled, c.Status, c.ID)
		}
		require.EqualValues(t, 100, calls[0].InputTokens)
		var spend storage.SpaceSpend
		require.NoError(t, f.db.Take(&spend, "space_id = ?", f.space).Error)
		require.Zero(t, spend.ReservedMicros)

		// The status frames of both steps, and the text as saved.
		frames, err := f.acts.Frames.Frames(ctx, f.turn.ID, 0)
		require.NoError(t, err)
		var text strings.Builder
		working := 0
		for _, fr := range frames {
			var d struct {
				Status string
				Delta  string
			}
			require.NoError(t, json.Unmarshal(fr.Data, &d))
			switch fr.Type {
			case stream.TypeText:
				text.WriteString(d.Delta)
			case stream.TypeStatus:
				if d.Status == stream.StatusWorking {
					working++
				}
			}
		}
		require.Equal(t, "You have no tasks.", text.String())
		require.GreaterOrEqual(t, working, 2)
	})
}

// TestAFailedStepSaveSettlesTheRequestAlone: what ends a model call — its
// step and calls, its settle, its frames — commits in one transaction or
// not at all; when that transaction fails the step is not saved and the
// request is settled alone (what was used was used, and the reservation
// does not wait for a release), and the retried attempt saves the step and
// settles its own request: each request once.
func TestAFailedStepSaveSettlesTheRequestAlone(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		f.withModel(listCall)
		ctx := context.Background()
		lost := errors.New("the step could not be saved")
		dbtest.FailOnce(t, f.db, "create", "turn_steps", lost)

		_, err := f.acts.CallModel(ctx, activities.CallModelInput{TurnID: f.turn.ID, Step: 1})
		require.ErrorIs(t, err, lost)
		steps, err := f.chat.Steps(ctx, f.turn.ID, 2)
		require.NoError(t, err)
		require.Empty(t, steps, "the step went with what failed")
		var pending int64
		require.NoError(t, f.db.Model(&storage.ToolCall{}).Where("turn_id = ?", f.turn.ID).Count(&pending).Error)
		require.Zero(t, pending, "and its calls")
		calls, err := f.acts.Usage.TurnCalls(ctx, f.turn.ID)
		require.NoError(t, err)
		require.Len(t, calls, 1)
		require.Equal(t, usage.StatusSettled, calls[0].Status, "the request is settled alone")

		// The retry (outside Temporal every attempt is a new request).
		ms, err := f.acts.CallModel(ctx, activities.CallModelInput{TurnID: f.turn.ID, Step: 1})
		require.NoError(t, err)
		require.Len(t, ms.ToolCalls, 1)
		calls, err = f.acts.Usage.TurnCalls(ctx, f.turn.ID)
		require.NoError(t, err)
		require.Len(t, calls, 2)
		var cost int64
		for _, c := range calls {
			require.Equal(t, usage.StatusSettled, c.Status, c.ID)
			cost += c.InputTokens
		}
		require.EqualValues(t, 200, cost, "each request once")
		steps, err = f.chat.Steps(ctx, f.turn.ID, 2)
		require.NoError(t, err)
		require.Len(t, steps, 1)
		require.Len(t, steps[0].ToolCalls, 1)
		require.Equal(t, chat.CallPending, steps[0].ToolCalls[0].Status)
	})
}

// TestRetriedToolCallStartsOnce: a Hub tool's started frame commits with
// its outcome, so an attempt that failed before its outcome committed
// leaves no started frame behind, and the retry's call has one started
// and one done frame.
func TestRetriedToolCallStartsOnce(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		calls := f.step(t, 1, chat.ToolCall{Tool: "hub_list_tasks", Arguments: `{}`})
		ctx := context.Background()
		killed := errors.New("killed before the outcome committed")
		dbtest.FailOnce(t, f.db, "update", "tool_calls", killed)

		in := activities.RunToolInput{TurnID: f.turn.ID, CallID: calls[0].ID}
		_, err := f.acts.RunTool(ctx, in)
		require.ErrorIs(t, err, killed)
		out, err := f.acts.RunTool(ctx, in)
		require.NoError(t, err)
		require.Equal(t, chat.CallDone, out.Status)

		frames, err := f.acts.Frames.Frames(ctx, f.turn.ID, 0)
		require.NoError(t, err)
		var phases []string
		for _, fr := range frames {
			var d struct{ CallID, Phase string }
			require.NoError(t, json.Unmarshal(fr.Data, &d))
			if fr.Type == stream.TypeTool && d.CallID == calls[0].ID {
				phases = append(phases, d.Phase)
			}
		}
		require.Equal(t, []string{stream.PhaseStarted, stream.PhaseDone}, phases)
	})
}

// TestPrepareTurnWritesOnce: PrepareTurn saves the run record and marks
// the turn working, and a retried PrepareTurn (its worker died after the
// commit) writes them again without a second refs frame.
func TestPrepareTurnWritesOnce(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		ctx := context.Background()
		conv, err := f.chat.CreateConversation(ctx, f.actor.PersonID, f.space, "", "")
		require.NoError(t, err)
		turn, err := f.chat.StartTurn(ctx, chat.NewTurn{ConversationID: conv.ID, PersonID: f.actor.PersonID, Text: "list my tasks"})
		require.NoError(t, err)
		for range 2 {
			_, err = f.acts.PrepareTurn(ctx, activities.TurnRef{TurnID: turn.ID})
			require.NoError(t, err)
		}
		_, rec, err := f.chat.GetTurn(ctx, turn.ID)
		require.NoError(t, err)
		require.NotEmpty(t, rec.Instructions, "the run record")
		require.NotEmpty(t, rec.OfferedTools)
		got, _, err := f.chat.GetTurn(ctx, turn.ID)
		require.NoError(t, err)
		require.Equal(t, chat.StatusWorking, got.Status)
		frames, err := f.acts.Frames.Frames(ctx, turn.ID, 0)
		require.NoError(t, err)
		refs := 0
		for _, fr := range frames {
			if fr.Type == stream.TypeRefs {
				refs++
			}
		}
		require.Equal(t, 1, refs, "one refs frame for the attempt")
	})
}

// TestPrepareTurnOfAMissingMessageIsGone: a turn whose person's message
// is gone (its conversation is being deleted) ends as before: the read
// with the turn finds no message, and the activity says the turn is gone.
func TestPrepareTurnOfAMissingMessageIsGone(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		ctx := context.Background()
		conv, err := f.chat.CreateConversation(ctx, f.actor.PersonID, f.space, "", "")
		require.NoError(t, err)
		turn, err := f.chat.StartTurn(ctx, chat.NewTurn{ConversationID: conv.ID, PersonID: f.actor.PersonID, Text: "list my tasks"})
		require.NoError(t, err)
		require.NoError(t, f.db.Delete(&storage.Message{}, "id = ?", turn.UserMessageID).Error)
		_, err = f.acts.PrepareTurn(ctx, activities.TurnRef{TurnID: turn.ID})
		require.Error(t, err)
		require.Contains(t, err.Error(), "message")
	})
}
