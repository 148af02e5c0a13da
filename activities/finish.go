package activities

import (
	"context"
	"strings"

	"hub/chat"
	"hub/stream"
	"hub/workspace"
)

// FinishTurn saves the reply (the text streamed so far, the records it
// names, the usage) and the turn's ending, then sends the error frames
// (turn_error and error) when it failed and the done frame, always last.
// Safe to retry: the turn keeps its run's first ending and frames are not
// repeated. A run started by an operator's reset reopens the turn first
// (claim), so the ending, reply, usage and done frame saved are that run's.
func (a *Activities) FinishTurn(ctx context.Context, in FinishInput) error {
	turn, err := a.Chat.GetTurn(ctx, in.TurnID)
	if err != nil {
		err = gone(err)
		return err
	}
	// A reset run whose reset point is right before this ending reopens
	// the turn here; its own retries find it theirs and keep its ending.
	if err := a.claim(ctx, turn, MaxSteps); err != nil {
		return err
	}
	steps, err := a.Chat.Steps(ctx, in.TurnID, MaxSteps+1)
	if err != nil {
		return err
	}
	var texts []string
	var usage chat.Usage
	var refs []workspace.Ref
	var held []map[string]string
	for _, st := range steps {
		if st.Text != "" {
			texts = append(texts, st.Text)
		}
		usage.InputTokens += st.Usage.InputTokens
		usage.OutputTokens += st.Usage.OutputTokens
		for _, c := range st.ToolCalls {
			refs = append(refs, c.Refs...)
			if c.Status == chat.CallHeld {
				p := map[string]string{"callId": c.ID, "tool": c.Tool, "preview": c.Summary}
				if c.SpaceID != "" {
					p["spaceId"] = c.SpaceID // acts in another of the turn's spaces
				}
				held = append(held, p)
			}
		}
	}
	ended, err := a.Chat.FinishTurn(ctx, in.TurnID, chat.Ending{
		Status: chat.Status(in.Status), ErrorCode: in.ErrorCode, ErrorMessage: in.ErrorMessage,
		Text: strings.Join(texts, "\n\n"), Refs: dedupeRefs(refs, maxTurnRefs), Usage: usage,
	})
	if err != nil {
		return err
	}
	if len(held) > 0 {
		// Held writes wait for Apply: the client shows them under the reply.
		if err := a.publishOnce(ctx, in.TurnID, stream.TypeProposal, map[string]any{"messageId": turn.ReplyMessageID, "calls": held}); err != nil {
			return err
		}
	}
	if ended.Status == chat.StatusError {
		// turn_error, then error for the clients that know only that name
		// (docs/api.md); done stays right after error.
		for _, typ := range []string{stream.TypeTurnError, stream.TypeError} {
			if err := a.publishOnce(ctx, in.TurnID, typ, map[string]string{"code": ended.ErrorCode, "message": ended.ErrorMessage}); err != nil {
				return err
			}
		}
	}
	return a.publishOnce(ctx, in.TurnID, stream.TypeDone, map[string]any{
		"status": string(ended.Status), "messageId": turn.ReplyMessageID,
		"usage": map[string]int{"inputTokens": ended.Usage.InputTokens, "outputTokens": ended.Usage.OutputTokens},
	})
}

// SetTurnStatus records a running turn's state (paused, working) for the
// top bar.
func (a *Activities) SetTurnStatus(ctx context.Context, in StatusInput) error {
	if err := a.claimID(ctx, in.TurnID, in.Step-1); err != nil {
		return err
	}
	return a.Chat.SetTurnStatus(ctx, in.TurnID, chat.Status(in.Status), in.Step)
}

// InterruptWhenStopped is what a worker does with an interrupt announced
// from another process: close the turn's model calls here, if the turn is
// stopping or paused now. Announcements arrive late; one that arrives
// after a Resume must not close the call the Resume started, neither when
// it reads the turn after the Resume nor when the Resume and its call come
// between that read and the interrupt (only calls registered before the
// read are closed, stream.Interrupts.InterruptIf). (A function, not a
// method: every method of Activities is registered as an activity.)
func InterruptWhenStopped(chats *chat.Store, interrupts *stream.Interrupts) func(turnID string) int {
	return func(turnID string) int {
		return interrupts.InterruptIf(turnID, func() bool {
			t, err := chats.GetTurn(context.Background(), turnID)
			return err == nil && (t.Status == chat.StatusStopping || t.Status == chat.StatusPaused)
		})
	}
}
