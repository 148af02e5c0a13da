package api

import (
	"fmt"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"hub/chat"
	"hub/turns"
	"hub/workflows"
)

type createCompletionRequest struct {
	Kind    string `json:"kind" openapi:"required" doc:"What to do: summarize_file, test_model or test_skill."`
	SpaceID string `json:"spaceId" openapi:"required" doc:"The space it runs in, one the person can open: its budget pays for the model call and usage counts it there."`
	FileID  string `json:"fileId" doc:"summarize_file: the space's file to summarize (not a picture)."`
	SkillID string `json:"skillId" doc:"test_skill: the person's skill to try."`
	Input   string `json:"input" doc:"test_skill: the sample request to try it on (at most 4,000 characters)."`
	Model   string `json:"model" doc:"A catalog model id (GET /api/models): required for test_model; empty: the person's default."`
	Effort  string `json:"effort" doc:"A reasoning effort the model takes; empty: the person's default."`
}

// completionDTO is one completion of the person's.
type completionDTO struct {
	ID        string     `json:"id"`
	Kind      string     `json:"kind"`
	Status    string     `json:"status"`
	SpaceID   string     `json:"spaceId"`
	Title     string     `json:"title" doc:"As the top bar shows it: \"Summarize report.pdf\"."`
	Model     string     `json:"model" doc:"The catalog model it runs with."`
	Effort    string     `json:"effort" doc:"Its reasoning effort (\"\": none)."`
	Purpose   string     `json:"purpose" doc:"The usage bucket its model call counts under (GET /api/usage?groupBy=purpose)."`
	FileID    string     `json:"fileId,omitempty"`
	SkillID   string     `json:"skillId,omitempty"`
	Result    string     `json:"result,omitempty" doc:"Once done: the model's answer; for summarize_file the summary saved on the file."`
	Keywords  []string   `json:"keywords,omitempty" doc:"Once done, summarize_file: the keywords saved on the file."`
	Error     *errorDTO  `json:"error,omitempty"`
	CreatedAt time.Time  `json:"createdAt"`
	EndedAt   *time.Time `json:"endedAt,omitempty"`
}

func toCompletionDTO(c chat.Completion) completionDTO {
	return completionDTO{ID: c.ID, Kind: c.Kind, Status: string(c.Status), SpaceID: c.SpaceID, Title: c.Title, Model: c.Model,
		Effort: c.Effort, Purpose: c.Purpose, FileID: c.Input.FileID, SkillID: c.Input.SkillID, Result: c.Result.Text,
		Keywords: c.Result.Keywords, Error: errorOf(c.ErrorCode, c.ErrorMessage), CreatedAt: c.CreatedAt, EndedAt: c.EndedAt}
}

// completionStartedDTO answers a started completion.
type completionStartedDTO struct {
	Completion completionDTO `json:"completion"`
}

func (s *Server) createCompletion(c *gin.Context, req createCompletionRequest) (any, error) {
	started, err := s.Turns.StartCompletion(c.Request.Context(), person(c), turns.CompletionRequest{Kind: req.Kind, SpaceID: req.SpaceID,
		FileID: req.FileID, SkillID: req.SkillID, Input: req.Input, Model: req.Model, Effort: req.Effort})
	return completionStartedDTO{Completion: toCompletionDTO(started)}, err
}

// controlCompletion signals one of the person's completions as controlTurn
// does a turn; repeating is harmless, an ended one is 409.
func (s *Server) controlCompletion(signal string) replyFunc {
	return func(c *gin.Context) (any, error) {
		cmpl, err := s.Chat.GetCompletionFor(c.Request.Context(), person(c).ID, c.Param("completionId"))
		if err != nil {
			return nil, err
		}
		status, err := s.signalCompletion(c, cmpl, signal)
		return controlDTO{Status: string(status)}, err
	}
}

// signalCompletion sends the durable signal, records the status the top
// bar shows, then closes the model call at once, as signalTurn does.
func (s *Server) signalCompletion(c *gin.Context, cmpl chat.Completion, signal string) (chat.Status, error) {
	ctx := c.Request.Context()
	if cmpl.EndedAt != nil {
		return "", newError(http.StatusConflict, codeConflict, "", fmt.Sprintf("this completion already ended (%s)", cmpl.Status))
	}
	if signal == workflows.ResumeSignal && cmpl.Status != chat.StatusPaused {
		return cmpl.Status, nil // nothing to resume
	}
	if err := s.signalWork(ctx, workflows.CompletionWorkflowID(cmpl.ID), "completion", signal); err != nil {
		return "", err
	}
	status := controls[signal].status
	if _, err := s.Chat.SetCompletionStatus(ctx, cmpl.ID, status); err != nil {
		return "", err
	}
	if signal == workflows.ResumeSignal {
		return status, nil
	}
	// Its model call is registered under its workflow id.
	s.interruptNow(ctx, workflows.CompletionWorkflowID(cmpl.ID), func() (chat.Status, error) {
		cur, err := s.Chat.GetCompletion(ctx, cmpl.ID)
		return cur.Status, err
	})
	return status, nil
}
