package chat

import (
	"context"
	"fmt"
	"time"

	"hub/storage"
)

// Kinds of completion (POST /api/completions): fixed tasks of one model
// call that need no tools.
const (
	CompletionSummarizeFile = "summarize_file" // a file's summary and keywords, saved on the file
	CompletionTestModel     = "test_model"     // a catalog model answers a fixed prompt
	CompletionTestSkill     = "test_skill"     // a skill's instructions tried on a sample input
)

// CompletionKinds lists the kinds, in the order the api documents them.
var CompletionKinds = []string{CompletionSummarizeFile, CompletionTestModel, CompletionTestSkill}

// CompletionPurpose is the usage bucket a kind's model calls count under
// (model_calls.purpose), unless it runs inside a turn.
func CompletionPurpose(kind string) string {
	switch kind {
	case CompletionSummarizeFile:
		return "summarize"
	case CompletionTestModel:
		return "test_model"
	case CompletionTestSkill:
		return "test_skill"
	}
	return kind
}

// Completion is one completion of a person: its task, where it stands and,
// once done, its result.
type Completion struct {
	ID       string
	PersonID string
	SpaceID  string
	Kind     string
	Status   Status // queued, working, paused, stopping, then done, stopped or error
	Title    string // what the top bar shows: "Summarize report.pdf"
	Model    string
	Effort   string
	Purpose  string
	TurnID   string // the turn it runs inside ("": none)
	Input    CompletionInput
	Result   CompletionResult
	// ErrorCode and ErrorMessage say why an error completion failed.
	ErrorCode    string
	ErrorMessage string
	CreatedAt    time.Time
	EndedAt      *time.Time
}

// CompletionInput is what a kind works on (the completion's input column).
type CompletionInput struct {
	FileID  string `json:"fileId,omitempty"`
	FileGen int    `json:"fileGen,omitempty"` // the file's version when the completion started
	SkillID string `json:"skillId,omitempty"`
	Sample  string `json:"input,omitempty"` // test_skill's sample input
}

// CompletionResult is what a completion made: the answer's text (a
// summary's summary) and a summary's keywords.
type CompletionResult struct {
	Text     string   `json:"text"`
	Keywords []string `json:"keywords,omitempty"`
}

// NewCompletion is a completion to save, queued.
type NewCompletion struct {
	PersonID, SpaceID, Kind, Title string
	Model, Effort, Purpose, TurnID string
	Input                          CompletionInput
}

// CompletionEnding is how a completion ended: done with its result, or
// stopped or error (with its code and message).
type CompletionEnding struct {
	Status       Status
	Result       CompletionResult
	ErrorCode    string
	ErrorMessage string
}

func toCompletion(r storage.Completion) Completion {
	c := Completion{ID: r.ID, PersonID: r.PersonID, SpaceID: r.SpaceID, Kind: r.Kind, Status: Status(r.Status), Title: r.Title,
		Model: r.Model, Effort: r.Effort, Purpose: r.Purpose, TurnID: r.TurnID, Input: unmarshal[CompletionInput](r.Input),
		ErrorCode: r.ErrorCode, ErrorMessage: r.ErrorMessage, CreatedAt: r.CreatedAt, EndedAt: r.EndedAt}
	if r.Result != "" {
		c.Result = unmarshal[CompletionResult](r.Result)
	}
	return c
}

// work is the completion as the top bar shows it.
func (c Completion) work() Work {
	return Work{Kind: WorkCompletion, ID: c.ID, SpaceID: c.SpaceID, Status: c.Status, Title: c.Title,
		StartedAt: c.CreatedAt, Ended: c.EndedAt != nil}
}

// CreateCompletion saves a queued completion and puts it in its person's
// top bar, in one transaction. The caller checked the input and that the
// person may open the space.
func (s *Store) CreateCompletion(ctx context.Context, n NewCompletion) (Completion, error) {
	now := s.now().Truncate(time.Microsecond) // as both engines keep it, so every read agrees
	r := storage.Completion{ID: storage.NewID("cmpl"), PersonID: n.PersonID, SpaceID: n.SpaceID, Kind: n.Kind,
		Status: string(StatusQueued), Title: n.Title, Model: n.Model, Effort: n.Effort, Purpose: n.Purpose, TurnID: n.TurnID,
		Input: marshal(n.Input), CreatedAt: now, UpdatedAt: now}
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		if err := s.q(ctx).Create(&r).Error; err != nil {
			return err
		}
		return s.announceWork(ctx, r.PersonID, toCompletion(r).work())
	})
	if err != nil {
		return Completion{}, fmt.Errorf("create completion: %w", err)
	}
	return toCompletion(r), nil
}

// GetCompletion reads a completion for Hub itself (its workflow, the
// worker's interrupt check), with no person's access.
func (s *Store) GetCompletion(ctx context.Context, id string) (Completion, error) {
	var r storage.Completion
	if err := found(s.q(ctx).Where("id = ?", id).Take(&r).Error, "completion", id); err != nil {
		return Completion{}, err
	}
	return toCompletion(r), nil
}

// GetCompletionFor reads one of the person's completions in a space they
// can open now; any other is not found.
func (s *Store) GetCompletionFor(ctx context.Context, personID, id string) (Completion, error) {
	var r storage.Completion
	err := s.q(ctx).Table("completions").Where("completions.id = ? AND completions.person_id = ?", id, personID).
		Where(memberOf("completions.space_id", personID)).Take(&r).Error
	if err := found(err, "completion", id); err != nil {
		return Completion{}, err
	}
	return toCompletion(r), nil
}

// RunningCompletions lists the person's unended completions in spaces they
// can open now, oldest first.
func (s *Store) RunningCompletions(ctx context.Context, personID string) ([]Completion, error) {
	var rows []storage.Completion
	err := s.q(ctx).Table("completions").Where("completions.person_id = ? AND completions.ended_at IS NULL", personID).
		Where(memberOf("completions.space_id", personID)).Order("completions.created_at, completions.id").Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("running completions: %w", err)
	}
	return mapped(rows, toCompletion), nil
}

// SetCompletionStatus records a running completion's status, with its top
// bar frame, and tells whether it changed. An ended completion, or one at
// that status already, is left as it is. Unless status is stopping, a
// completion the person is stopping stays stopping: only its ending
// follows.
func (s *Store) SetCompletionStatus(ctx context.Context, id string, status Status) (bool, error) {
	changed := false
	sql := `UPDATE completions SET status = ?, updated_at = ? WHERE id = ? AND ended_at IS NULL AND status <> ?`
	args := []any{string(status), s.now(), id, string(status)}
	if status != StatusStopping {
		sql += ` AND status <> ?`
		args = append(args, string(StatusStopping))
	}
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		// The update locks the row and returns what the top bar shows.
		var rows []storage.Completion
		if err := s.q(ctx).Raw(sql+` RETURNING *`, args...).Scan(&rows).Error; err != nil {
			return err
		}
		if len(rows) == 0 {
			return nil
		}
		changed = true
		return s.announceWork(ctx, rows[0].PersonID, toCompletion(rows[0]).work())
	})
	if err != nil {
		return false, fmt.Errorf("set completion %s status: %w", id, err)
	}
	return changed, nil
}

// FinishCompletion ends a completion as e says, with its top bar frame
// (ended), in the transaction ctx carries or one of its own. One ended
// before is left as it ended. It returns the completion as it stands.
func (s *Store) FinishCompletion(ctx context.Context, id string, e CompletionEnding) (Completion, error) {
	var out Completion
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		now := s.now()
		result := ""
		if e.Status == StatusDone {
			result = marshal(e.Result)
		}
		var rows []storage.Completion
		err := s.q(ctx).Raw(`UPDATE completions SET status = ?, result = ?, error_code = ?, error_message = ?, updated_at = ?, ended_at = ?
			WHERE id = ? AND ended_at IS NULL RETURNING *`,
			string(e.Status), result, e.ErrorCode, e.ErrorMessage, now, now, id).Scan(&rows).Error
		if err != nil {
			return err
		}
		if len(rows) == 0 { // ended already, or missing
			out, err = s.GetCompletion(ctx, id)
			return err
		}
		out = toCompletion(rows[0])
		return s.announceWork(ctx, out.PersonID, out.work())
	})
	if err != nil {
		return Completion{}, fmt.Errorf("finish completion %s: %w", id, err)
	}
	return out, nil
}
