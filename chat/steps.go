package chat

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"hub/storage"
	"hub/workspace"
)

// Tool call statuses.
const (
	CallPending = "pending"
	CallDone    = "done"
	CallFailed  = "failed"
	CallHeld    = "held"
)

// FinishReasons of our own (others are llm.Result.FinishReason's); the
// step's text is what had streamed.
const (
	// FinishInterrupted: the model call was stopped, paused or cancelled.
	FinishInterrupted = "interrupted"
	// FinishInterruptedInToolCalls: interrupted while sending tool calls,
	// so a resumed call starts the step over.
	FinishInterruptedInToolCalls = "interrupted_tool_calls"
	// FinishTimeout: the call passed the model limit (HUB_MODEL_TIMEOUT).
	FinishTimeout = "timeout"
)

// Step is one model request of a turn and what the model answered.
type Step struct {
	Step         int
	Attempt      int
	Text         string
	ToolCalls    []ToolCall
	FinishReason string
	Usage        Usage
	// Nudge is the note the answer went back to the model with, as the
	// person's next message; NudgeKind says which check sent it.
	Nudge     string
	NudgeKind NudgeKind
	// PartsLevel is how many times the provider refused the attached files
	// before the call went through with fewer; the next step starts there.
	PartsLevel int
}

// NudgeKind is which check sent an answer back to the model.
type NudgeKind string

// The kinds of nudge.
const (
	NudgeAnswer NudgeKind = "answer" // the answer check, at most once a turn
	NudgeVerify NudgeKind = "verify" // a round of the surface's verify hook
)

// ToolCall is one call the model asked for and what became of it.
type ToolCall struct {
	ID             string          `json:"id"`
	TurnID         string          `json:"-"`
	Step           int             `json:"-"`
	Idx            int             `json:"-"` // its place among the step's calls
	ProviderCallID string          `json:"providerCallId"`
	Tool           string          `json:"tool"`
	Arguments      string          `json:"arguments"`
	Status         string          `json:"status"`
	Result         string          `json:"-"`
	Summary        string          `json:"summary,omitempty"`
	Refs           []workspace.Ref `json:"refs,omitempty"`
	ErrorCode      string          `json:"errorCode,omitempty"`
	ErrorMessage   string          `json:"errorMessage,omitempty"`
	Input          string          `json:"-"`
	HeldFor        string          `json:"-"`
	UndoGroupID    string          `json:"-"`
	SpaceID        string          `json:"-"` // the space it named; "": its turn's
	// Receipt is what Apply made of a held call (Messages and History only).
	Receipt *Receipt `json:"-"`
}

// Final tells whether the call has an outcome.
func (c ToolCall) Final() bool { return c.Status != CallPending }

func toToolCall(r storage.ToolCall) ToolCall {
	return ToolCall{ID: r.ID, TurnID: r.TurnID, Step: r.Step, Idx: r.Idx, ProviderCallID: r.ProviderCallID, Tool: r.Tool,
		Arguments: r.Arguments, Status: r.Status, Result: r.Result, Summary: r.Summary,
		Refs: unmarshal[[]workspace.Ref](r.Refs), ErrorCode: r.ErrorCode, ErrorMessage: r.ErrorMessage,
		Input: r.Input, HeldFor: r.HeldFor, UndoGroupID: r.UndoGroupID, SpaceID: r.SpaceID}
}

// ToolCallID is the stable id of the idx-th call of a turn's step: a retried
// or replayed activity finds the row it wrote before instead of a new one.
func ToolCallID(turnID string, step, idx int) string {
	return turnID + "." + strconv.Itoa(step) + "." + strconv.Itoa(idx)
}

// SaveStep stores a model step and its tool calls as pending, replacing an
// earlier attempt of the same step, in the transaction ctx carries if any.
// A call that already has an outcome and is asked again identically (a
// step replayed after a reset) keeps it, so it is not run twice.
func (s *Store) SaveStep(ctx context.Context, turnID string, st Step) ([]ToolCall, error) {
	// A verify hook's note may hold a NUL, which Postgres refuses.
	st.Text, st.Nudge = workspace.CleanText(st.Text), workspace.CleanText(st.Nudge)
	calls := make([]ToolCall, len(st.ToolCalls))
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		tx := s.q(ctx)
		row := storage.TurnStep{TurnID: turnID, Step: st.Step, Attempt: st.Attempt, Text: st.Text, Nudge: st.Nudge,
			NudgeKind: string(st.NudgeKind), PartsLevel: st.PartsLevel, FinishReason: st.FinishReason, InputTokens: st.Usage.InputTokens, OutputTokens: st.Usage.OutputTokens}
		var existing []storage.ToolCall
		if err := tx.Where("turn_id = ? AND step = ?", turnID, st.Step).Find(&existing).Error; err != nil {
			return err
		}
		kept := map[string]storage.ToolCall{}
		for _, e := range existing {
			kept[e.ID] = e
		}
		for i, c := range st.ToolCalls {
			id := ToolCallID(turnID, st.Step, i)
			if e, ok := kept[id]; ok && e.Status != CallPending && e.Tool == c.Tool && e.Arguments == c.Arguments {
				calls[i] = toToolCall(e)
				delete(kept, id)
				continue
			}
			calls[i] = ToolCall{ID: id, TurnID: turnID, Step: st.Step, Idx: i, ProviderCallID: c.ProviderCallID,
				Tool: c.Tool, Arguments: c.Arguments, Status: CallPending}
		}
		// Rows of an earlier attempt that this answer does not repeat go.
		for id := range kept {
			if err := tx.Delete(&storage.ToolCall{}, "id = ?", id).Error; err != nil {
				return err
			}
		}
		for i, c := range calls {
			if c.Status != CallPending {
				continue
			}
			r := storage.ToolCall{ID: c.ID, TurnID: turnID, Step: st.Step, Idx: i, ProviderCallID: c.ProviderCallID,
				Tool: c.Tool, Arguments: c.Arguments, Status: CallPending, Refs: "[]"}
			if err := tx.Create(&r).Error; err != nil {
				return err
			}
		}
		row.ToolCalls = marshal(calls)
		return tx.Clauses(clause.OnConflict{UpdateAll: true}).Create(&row).Error
	})
	if err != nil {
		return nil, fmt.Errorf("save step %d of %s: %w", st.Step, turnID, err)
	}
	return calls, nil
}

// Steps returns a turn's model steps before the given one, with each call's
// current outcome, oldest first, in one query.
func (s *Store) Steps(ctx context.Context, turnID string, before int) ([]Step, error) {
	if before <= 1 {
		return []Step{}, nil // steps count from 1: a turn's first model call has none before it
	}
	var rows []stepCallRow
	if err := s.q(ctx).Raw(stepsSQL, turnID, before).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("steps of %s: %w", turnID, err)
	}
	out := []Step{}
	for _, r := range rows {
		if len(out) == 0 || out[len(out)-1].Step != r.Step {
			out = append(out, toStep(r.TurnStep))
		}
		if r.Call.ID == "" {
			continue // a step without calls
		}
		st := &out[len(out)-1]
		st.ToolCalls = append(st.ToolCalls, toToolCall(r.Call))
	}
	return out, nil
}

func toStep(r storage.TurnStep) Step {
	return Step{Step: r.Step, Attempt: r.Attempt, Text: r.Text, FinishReason: r.FinishReason, Nudge: r.Nudge,
		NudgeKind: NudgeKind(r.NudgeKind), PartsLevel: r.PartsLevel,
		Usage: Usage{InputTokens: r.InputTokens, OutputTokens: r.OutputTokens}}
}

// stepsSQL reads a turn's steps before one with their calls (none: one
// row with the call's columns empty).
const stepsSQL = `SELECT s.step, s.attempt, s.text, s.finish_reason, s.nudge, s.nudge_kind, s.parts_level,
		s.input_tokens, s.output_tokens,
		` + callColumns + `
	FROM turn_steps s LEFT JOIN tool_calls c ON c.turn_id = s.turn_id AND c.step = s.step
	WHERE s.turn_id = ? AND s.step < ?
	ORDER BY s.step, c.idx`

// callColumns are a tool call's columns (of c, left joined; none: all
// empty) as stepCallRow.Call's.
const callColumns = `COALESCE(c.id, '') AS c_id, COALESCE(c.turn_id, '') AS c_turn_id, COALESCE(c.step, 0) AS c_step,
		COALESCE(c.idx, 0) AS c_idx, COALESCE(c.provider_call_id, '') AS c_provider_call_id,
		COALESCE(c.tool, '') AS c_tool, COALESCE(c.arguments, '') AS c_arguments, COALESCE(c.status, '') AS c_status,
		COALESCE(c.result, '') AS c_result, COALESCE(c.summary, '') AS c_summary, COALESCE(c.refs, '') AS c_refs,
		COALESCE(c.error_code, '') AS c_error_code, COALESCE(c.error_message, '') AS c_error_message,
		COALESCE(c.input, '') AS c_input, COALESCE(c.held_for, '') AS c_held_for,
		COALESCE(c.undo_group_id, '') AS c_undo_group_id, COALESCE(c.space_id, '') AS c_space_id`

// stepCallRow is a row of stepsSQL.
type stepCallRow struct {
	storage.TurnStep
	Call storage.ToolCall `gorm:"embedded;embeddedPrefix:c_"`
}

// GetToolCall returns one call by id.
func (s *Store) GetToolCall(ctx context.Context, id string) (ToolCall, error) {
	var r storage.ToolCall
	if err := found(s.q(ctx).Take(&r, "id = ?", id).Error, "tool call", id); err != nil {
		return ToolCall{}, err
	}
	return toToolCall(r), nil
}

// EarlierCalls counts, by tool, the calls of a call's turn that come
// before it, whatever became of them, so a retried call counts the same.
func (s *Store) EarlierCalls(ctx context.Context, callID string) (map[string]int, error) {
	var self storage.ToolCall
	if err := s.q(ctx).Select("turn_id", "step", "idx").Take(&self, "id = ?", callID).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil, &workspace.NotFoundError{Kind: "tool call", ID: callID}
		}
		return nil, fmt.Errorf("earlier calls of %s: %w", callID, err)
	}
	var rows []struct {
		Tool string
		N    int
	}
	err := s.q(ctx).Model(&storage.ToolCall{}).Select("tool, count(*) AS n").
		Where("turn_id = ? AND (step < ? OR (step = ? AND idx < ?))", self.TurnID, self.Step, self.Step, self.Idx).
		Group("tool").Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("earlier calls of %s: %w", callID, err)
	}
	out := make(map[string]int, len(rows))
	for _, r := range rows {
		out[r.Tool] = r.N
	}
	return out, nil
}

// Where a held call waits.
const (
	HeldForApply   = "apply"    // the chat, for the person's Apply
	HeldForNeedsMe = "needs-me" // the Needs me list
)

// Outcome is what became of a tool call.
type Outcome struct {
	Status       string
	Result       string // the tool result the model reads
	Summary      string
	Refs         []workspace.Ref
	ErrorCode    string
	ErrorMessage string
	Input        string // a held call's prepared input
	HeldFor      string // a held call's list
	UndoGroupID  string // an immediate write's Undo group
	SpaceID      string // the space the call named, if it named one
}

// CompleteToolCall records a pending call's outcome, in the transaction
// of the write it reports. It reports false when the call already had one:
// the caller returns that instead of acting again. Each of also runs in
// the same transaction, only when this call wrote the outcome, so a call's
// done frame commits with it.
func (s *Store) CompleteToolCall(ctx context.Context, id string, o Outcome, also ...func(ctx context.Context) error) (bool, error) {
	won := false
	complete := func(ctx context.Context) error {
		var err error
		won, err = s.completeToolCall(ctx, id, o)
		for _, fn := range also {
			if err != nil || !won {
				break
			}
			err = fn(ctx)
		}
		return err
	}
	var err error
	if len(also) == 0 {
		err = complete(ctx) // one statement: a transaction of its own
	} else {
		err = s.db.InTx(ctx, complete)
	}
	return won && err == nil, err
}

func (s *Store) completeToolCall(ctx context.Context, id string, o Outcome) (bool, error) {
	res := s.q(ctx).Model(&storage.ToolCall{}).Where("id = ? AND status = ?", id, CallPending).Updates(map[string]any{
		"status": o.Status, "result": o.Result, "summary": o.Summary, "refs": marshal(nonNil(o.Refs)),
		"error_code": o.ErrorCode, "error_message": o.ErrorMessage, "input": o.Input, "held_for": o.HeldFor,
		"undo_group_id": o.UndoGroupID, "space_id": o.SpaceID, "updated_at": s.now(),
	})
	if res.Error != nil {
		return false, fmt.Errorf("complete tool call %s: %w", id, res.Error)
	}
	return res.RowsAffected == 1, nil
}
