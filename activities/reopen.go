package activities

import (
	"context"
	"errors"

	"go.temporal.io/sdk/temporal"

	"hub/chat"
	"hub/stream"
	"hub/workspace"
)

// claim makes this activity's run the owner of the turn before it writes
// to it (chat.Store.ClaimTurn): an operator's reset reopens a turn an
// earlier run ended, so what it saves and streams is its own. keep is the
// last model step the run has from before the reset point (-1: none). The
// new attempt of frames starts with what the run keeps (keptFrames).
func (a *Activities) claim(ctx context.Context, turn chat.Turn, keep int) error {
	runID := workflowRun(ctx)
	if runID == "" || turn.RunID == runID {
		return nil
	}
	var frames []stream.Draft
	if turn.RunID != "" || turn.FinishedAt != nil {
		var err error
		if frames, err = a.keptFrames(ctx, turn.ID, keep); err != nil {
			return err
		}
	}
	step := max(keep+1, 0) // the step the run goes on with
	if keep >= MaxSteps {
		step = turn.Step // FinishTurn: the step the turn ended at
	}
	_, err := a.Chat.ClaimTurn(ctx, turn.ID, runID, keep, func(ctx context.Context) error {
		return a.Frames.Reopen(ctx, turn.ID, step, frames)
	})
	if errors.Is(err, workspace.ErrConflict) {
		return temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeConflict, err)
	}
	return gone(err) // a claim whose answer was lost may have committed: Reopen woke the followers
}

// keptFrames are the frames a reopened turn's new attempt starts with,
// after its reset frame: the refs and the kept steps' text and outcomes.
func (a *Activities) keptFrames(ctx context.Context, turnID string, keep int) ([]stream.Draft, error) {
	if keep < 0 {
		return nil, nil // PrepareTurn runs again and sends the refs
	}
	var out []stream.Draft
	refs, ok, err := a.Frames.Last(ctx, turnID, stream.TypeRefs)
	if err != nil {
		return nil, err
	}
	if ok {
		out = append(out, stream.Draft{Type: stream.TypeRefs, Data: refs.Data})
	}
	steps, err := a.Chat.Steps(ctx, turnID, keep+1)
	if err != nil {
		return nil, err
	}
	sep := ""
	for _, st := range steps {
		if st.Text != "" {
			out = append(out, stream.Draft{Type: stream.TypeText, Data: map[string]string{"delta": sep + st.Text}})
			sep = "\n\n"
		}
		for _, c := range st.ToolCalls {
			if c.Final() {
				out = append(out, stream.Draft{Type: stream.TypeTool, Data: toolFrame(c, c.Status, c.Summary, c.Refs,
					map[string]string{"code": c.ErrorCode, "message": c.ErrorMessage})})
			}
		}
	}
	return out, nil
}
