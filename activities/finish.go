package activities

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"

	"hub/assistant"
	"hub/chat"
	"hub/stream"
	"hub/tools"
	"hub/workspace"
)

// FinishTurn saves the reply and the turn's ending with its last frames
// (lastFrames) in one transaction. Safe to retry, also beside an attempt
// still running: the turn keeps its run's first ending and frames are not
// repeated. A reset's run reopens the turn first (claim).
func (a *Activities) FinishTurn(ctx context.Context, in FinishInput) error {
	turn, _, steps, err := a.turnAndSteps(ctx, in.TurnID, MaxSteps+1)
	if err != nil {
		return gone(err)
	}
	if err := a.claim(ctx, turn, MaxSteps); err != nil {
		return err
	}
	var texts []string
	var usage chat.Usage
	var refs []workspace.Ref
	var held []map[string]string
	searched := false
	for _, st := range steps {
		if st.Text != "" && !discarded(st) {
			texts = append(texts, st.Text)
		}
		usage.InputTokens += st.Usage.InputTokens
		usage.OutputTokens += st.Usage.OutputTokens
		for _, c := range st.ToolCalls {
			refs = append(refs, c.Refs...)
			searched = searched || c.Tool == tools.SearchFilesTool || c.Tool == tools.FindPhraseTool
			if c.Status == chat.CallHeld {
				p := map[string]string{"callId": c.ID, "tool": c.Tool, "preview": c.Summary}
				if c.SpaceID != "" {
					p["spaceId"] = c.SpaceID // acts in another of the turn's spaces
				}
				held = append(held, p)
			}
		}
	}
	text := strings.Join(texts, "\n\n")
	named, err := a.namedRefs(ctx, turn, text, refs)
	if err != nil {
		return err
	}
	var ended chat.Turn
	err = a.Workspace.InTx(ctx, func(ctx context.Context) error {
		var err error
		ended, err = a.Chat.FinishTurn(ctx, in.TurnID, chat.Ending{
			Status: chat.Status(in.Status), ErrorCode: in.ErrorCode, ErrorMessage: in.ErrorMessage,
			Text: text, Refs: dedupeRefs(refs, maxTurnRefs), Named: named, Usage: usage,
		})
		if err != nil {
			return err
		}
		if searched && a.Retrieval != nil {
			if err := a.Retrieval.MarkCited(ctx, turn.ID, text); err != nil {
				return err
			}
		}
		return a.lastFrames(ctx, turn, ended, held, named)
	})
	if err != nil {
		return err
	}
	ms := int64(0)
	if ended.FinishedAt != nil {
		ms = ended.FinishedAt.Sub(ended.CreatedAt).Milliseconds()
	}
	a.Work.turnEnded(string(ended.Status), time.Duration(ms)*time.Millisecond)
	logTurn(ctx, "turn ended", "turn", turn.ID, "conversation", turn.ConversationID, "space", turn.SpaceID, "person", turn.PersonID,
		"status", string(ended.Status), "errorCode", ended.ErrorCode, "ms", ms, "steps", len(steps),
		"inputTokens", ended.Usage.InputTokens, "outputTokens", ended.Usage.OutputTokens, "held", len(held))
	a.transcripts.forget(in.TurnID)
	return nil
}

// lastFrames publishes what a turn's stream ends with, each once per
// attempt: the held writes (proposal), the error (turn_error, then error
// for older clients, docs/api.md) and the done frame, always last.
func (a *Activities) lastFrames(ctx context.Context, turn, ended chat.Turn, held []map[string]string, named []workspace.Ref) error {
	send := func(typ string, data any) error {
		if _, err := a.Frames.PublishFirst(ctx, turn.ID, typ, data); err != nil {
			return fmt.Errorf("publish %s: %w", typ, err)
		}
		return nil
	}
	if len(held) > 0 {
		if err := send(stream.TypeProposal, map[string]any{"messageId": turn.ReplyMessageID, "calls": held}); err != nil {
			return err
		}
	}
	if ended.Status == chat.StatusError {
		for _, typ := range []string{stream.TypeTurnError, stream.TypeError} {
			if err := send(typ, map[string]string{"code": ended.ErrorCode, "message": ended.ErrorMessage}); err != nil {
				return err
			}
		}
	}
	return send(stream.TypeDone, map[string]any{
		"status": string(ended.Status), "messageId": turn.ReplyMessageID,
		"usage": map[string]int{"inputTokens": ended.Usage.InputTokens, "outputTokens": ended.Usage.OutputTokens},
		"refs":  nonNilRefs(named),
	})
}

// discarded tells a step whose text the answer check sent back: the
// client dropped it and the reply leaves it out.
func discarded(st chat.Step) bool { return st.NudgeKind == chat.NudgeAnswer }

// namedRefs are the records the reply's text names by id among those the
// turn knew (mentions, earlier replies, the page, this turn's tool
// results): at most chat.MaxNamedRefs, in the order the turn knew them.
func (a *Activities) namedRefs(ctx context.Context, turn chat.Turn, text string, callRefs []workspace.Ref) ([]workspace.Ref, error) {
	if text == "" {
		return nil, nil
	}
	user, history, err := a.turnMessages(ctx, turn)
	if err != nil {
		return nil, err
	}
	known := knownRefs(user, history)
	// The page's records are a nicety: a failure to resolve them (lost access) leaves them out.
	actor := workspace.Actor{PersonID: turn.PersonID, Via: workspace.ViaAssistant}
	if screen, err := assistant.ResolveScreen(ctx, a.Workspace, actor, turn.SpaceID, user.PageContext); err == nil {
		known = append(known, screen.Refs...)
	}
	known = append(known, callRefs...)
	var out []workspace.Ref
	for _, r := range dedupeRefs(known, len(known)+1) {
		if strings.Contains(text, r.ID) {
			out = append(out, r)
			if len(out) == chat.MaxNamedRefs {
				break
			}
		}
	}
	return out, nil
}

// SetTurnStatus records a running turn's state (paused, working).
func (a *Activities) SetTurnStatus(ctx context.Context, in StatusInput) error {
	if activity.IsActivity(ctx) {
		turn, _, err := a.Chat.GetTurn(ctx, in.TurnID)
		if err != nil {
			return gone(err)
		}
		if err := a.claim(ctx, turn, in.Step-1); err != nil {
			return err
		}
	}
	return a.Chat.SetTurnStatus(ctx, in.TurnID, chat.Status(in.Status), in.Step)
}

// InterruptWhenStopped is what a worker does with an interrupt announced
// from another process: close the model calls of the turn (or completion:
// CompletionKey) here if it is stopping or paused now. A late announcement
// must not close the call a Resume started (stream.Interrupts.InterruptIf).
// A function, not a method: every method of Activities is registered as an
// activity.
func InterruptWhenStopped(chats *chat.Store, interrupts *stream.Interrupts) func(key string) int {
	return func(key string) int {
		return interrupts.InterruptIf(key, func() bool {
			var status chat.Status
			if id, ok := strings.CutPrefix(key, completionKeyPrefix); ok {
				c, err := chats.GetCompletion(context.Background(), id)
				if err != nil {
					return false
				}
				status = c.Status
			} else {
				t, _, err := chats.GetTurn(context.Background(), key)
				if err != nil {
					return false
				}
				status = t.Status
			}
			return status == chat.StatusStopping || status == chat.StatusPaused
		})
	}
}
