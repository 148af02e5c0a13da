package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"hub/storage"
	"hub/workspace"
)

// MaxInspectedFrames is how many of a turn's first frames the inspector
// shows; the rest are counted.
const MaxInspectedFrames = 2_000

// Inspection is what a turn's model saw and did, read back from its run
// record, steps, calls, its reply's receipts and its frames.
type Inspection struct {
	Turn          Turn
	Record        RunRecord
	Steps         []InspectedStep
	Calls         []InspectedCall
	Receipts      map[string]Receipt // by call id
	Frames        []InspectedFrame
	FramesLeftOut int64 // the frames after MaxInspectedFrames (swept ones are gone)
}

// InspectedStep is one model step as recorded (its last attempt), and when
// it was saved.
type InspectedStep struct {
	Step
	SavedAt time.Time
}

// InspectedCall is one tool call with everything kept of it.
type InspectedCall struct {
	ToolCall
	Idx       int
	CreatedAt time.Time
	UpdatedAt time.Time
}

// InspectedFrame is one stream frame as it was sent.
type InspectedFrame struct {
	Seq  int64
	Type string
	Data json.RawMessage
	At   time.Time
}

// Inspect reads a turn of the person for the run inspector, as GetTurnFor
// finds it.
func (s *Store) Inspect(ctx context.Context, personID, turnID string) (Inspection, error) {
	if _, err := s.GetTurnFor(ctx, personID, turnID); err != nil {
		return Inspection{}, err
	}
	return s.inspect(ctx, turnID)
}

// InspectAny reads any turn for an operator: access is the caller's to check.
func (s *Store) InspectAny(ctx context.Context, turnID string) (Inspection, error) {
	if workspace.BadText(turnID) {
		return Inspection{}, &workspace.NotFoundError{Kind: "turn", ID: turnID}
	}
	return s.inspect(ctx, turnID)
}

func (s *Store) inspect(ctx context.Context, turnID string) (Inspection, error) {
	turn, rec, err := s.GetTurn(ctx, turnID)
	if err != nil {
		return Inspection{}, err
	}
	out := Inspection{Turn: turn, Record: rec, Steps: []InspectedStep{}, Calls: []InspectedCall{}, Frames: []InspectedFrame{}}
	var steps []storage.TurnStep
	if err := s.q(ctx).Where("turn_id = ?", turnID).Order("step").Find(&steps).Error; err != nil {
		return Inspection{}, fmt.Errorf("inspect the steps of turn %s: %w", turnID, err)
	}
	for _, r := range steps {
		out.Steps = append(out.Steps, InspectedStep{SavedAt: r.UpdatedAt, Step: toStep(r)})
	}
	var calls []storage.ToolCall
	if err := s.q(ctx).Where("turn_id = ?", turnID).Order("step, idx").Find(&calls).Error; err != nil {
		return Inspection{}, fmt.Errorf("inspect the calls of turn %s: %w", turnID, err)
	}
	for _, r := range calls {
		out.Calls = append(out.Calls, InspectedCall{ToolCall: toToolCall(r), Idx: r.Idx, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt})
	}
	if out.Receipts, err = s.Receipts(ctx, turn.ReplyMessageID); err != nil {
		return Inspection{}, err
	}
	var frames []storage.Frame
	if err := s.q(ctx).Where("log = ?", turnID).Order("seq").Limit(MaxInspectedFrames).Find(&frames).Error; err != nil {
		return Inspection{}, fmt.Errorf("inspect the frames of turn %s: %w", turnID, err)
	}
	for _, f := range frames {
		data := json.RawMessage(f.Data)
		if !json.Valid(data) {
			data = json.RawMessage("null")
		}
		out.Frames = append(out.Frames, InspectedFrame{Seq: f.Seq, Type: f.Type, Data: data, At: f.CreatedAt})
	}
	if len(frames) == MaxInspectedFrames {
		if err := s.q(ctx).Model(&storage.Frame{}).Where("log = ? AND seq > ?", turnID, frames[len(frames)-1].Seq).
			Count(&out.FramesLeftOut).Error; err != nil {
			return Inspection{}, fmt.Errorf("count the frames of turn %s: %w", turnID, err)
		}
	}
	return out, nil
}
