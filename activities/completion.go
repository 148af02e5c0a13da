package activities

import (
	"context"
	"errors"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"hub/assistant"
	"hub/chat"
	"hub/files"
	"hub/llm"
	"hub/retrieval"
	"hub/stream"
	"hub/usage"
	"hub/workspace"
)

// CompletionTimeout bounds a completion (POST /api/completions) from when
// it was queued, paused time included: its workflow's wall-time bound and
// each RunCompletion's start-to-close.
const CompletionTimeout = 2 * time.Minute

// Error types only a completion fails with; the workflow tells the person
// from them (with ErrTypeGone for a file or skill deleted meanwhile).
const (
	// ErrTypeStale: the file was replaced while it was summarized.
	ErrTypeStale = "stale"
	// ErrTypeNoSummary: the model's answer held no summary.
	ErrTypeNoSummary = "no_summary"
)

// CompletionRef names a completion to run. TurnID, when set, is the turn
// it runs inside: its model calls are then the turn's (its purpose, its
// conversation), counted once, under the turn.
type CompletionRef struct {
	CompletionID string
	TurnID       string `json:",omitempty"`
}

// CompletionEnd ends a completion as stopped or error (a done one is
// ended by RunCompletion with its result).
type CompletionEnd struct {
	CompletionID string
	Status       string
	ErrorCode    string
	ErrorMessage string
}

// CompletionStatus records a running completion's status (working, paused).
type CompletionStatus struct {
	CompletionID string
	Status       string
}

// CompletionKey names a completion's model call for Stop and Pause's fast
// path (stream.Interrupts, Bus.AnnounceInterrupt) beside turns' ids; it is
// also its workflow's id.
func CompletionKey(completionID string) string { return completionKeyPrefix + completionID }

const completionKeyPrefix = "completion:"

// RunCompletion makes a completion's one model call and, in one
// transaction, ends it done with its result (a summary also saved on its
// file). No frames: the person follows it in the top bar and reads the
// result with GET /api/completions/:id. It is metered as a turn's call is
// (meter: reserved against the space's budget, settled after), and closed
// at once by Stop and Pause (stream.Interrupts). A completion that ended
// already is left as it is, so a retried attempt never writes twice.
func (a *Activities) RunCompletion(ctx context.Context, in CompletionRef) error {
	if a.Model == nil || !a.ModelConfigured {
		return temporal.NewNonRetryableApplicationError(noModelMessage, ErrTypeUnavailable, nil)
	}
	attempt, beat := 1, func(int) {}
	if activity.IsActivity(ctx) {
		attempt = int(activity.GetInfo(ctx).Attempt)
		beat = func(int) { activity.RecordHeartbeat(ctx) }
	}
	// Interruptible before the completion is read, as CallModel is.
	callCtx, cancelCall := context.WithCancelCause(ctx)
	defer cancelCall(nil)
	defer a.Interrupts.Register(CompletionKey(in.CompletionID), cancelCall)()
	c, err := a.Chat.GetCompletion(ctx, in.CompletionID)
	if err != nil {
		return gone(err)
	}
	switch {
	case c.EndedAt != nil:
		return nil
	case c.Status == chat.StatusStopping || c.Status == chat.StatusPaused:
		return temporal.NewNonRetryableApplicationError("the completion was stopped or paused before its model call", ErrTypeInterrupted, nil)
	}
	if _, err := a.Workspace.Access(ctx, c.PersonID, c.SpaceID); errors.Is(err, workspace.ErrNotFound) {
		return temporal.NewNonRetryableApplicationError("You can no longer open this space.", ErrTypeForbidden, err)
	} else if err != nil {
		return err
	}
	req, err := a.completionRequest(ctx, c)
	if err != nil {
		return err
	}
	send, info := a.completionModel(c)
	base := usage.Call{SpaceID: c.SpaceID, PersonID: c.PersonID, Purpose: c.Purpose, CompletionID: c.ID}
	if in.TurnID != "" {
		turn, _, err := a.Chat.GetTurn(ctx, in.TurnID)
		if err != nil {
			return gone(err)
		}
		base.TurnID, base.ConversationID, base.SpaceID, base.Purpose = turn.ID, turn.ConversationID, turn.SpaceID, turn.Purpose
	}
	m := a.meterFor(base, callIdentity(ctx, c.ID, 0, attempt), attempt, send, info)
	stopBeat := heartbeatWhileWaiting(ctx, 0, beat)
	res, err := m.Stream(callCtx, req, nil)
	stopBeat()
	if err != nil {
		if errors.Is(context.Cause(callCtx), stream.ErrInterrupted) {
			return temporal.NewNonRetryableApplicationError("the completion's model call was interrupted", ErrTypeInterrupted, err)
		}
		return modelError(err)
	}
	result := chat.CompletionResult{Text: strings.TrimSpace(res.Text)}
	if c.Kind == chat.CompletionSummarizeFile {
		summary, keywords, err := assistant.ParseSummary(res.Text)
		if err != nil {
			return temporal.NewNonRetryableApplicationError("The model's answer was not the summary asked for. Try again, or with another model.", ErrTypeNoSummary, err)
		}
		result = chat.CompletionResult{Text: summary, Keywords: keywords}
	}
	err = a.Workspace.InTx(ctx, func(ctx context.Context) error {
		if c.Kind == chat.CompletionSummarizeFile {
			if err := a.Files.SetSummary(ctx, c.Input.FileID, c.Input.FileGen, result.Text, result.Keywords); err != nil {
				return err
			}
		}
		_, err := a.Chat.FinishCompletion(ctx, c.ID, chat.CompletionEnding{Status: chat.StatusDone, Result: result})
		return err
	})
	if errors.Is(err, files.ErrStale) {
		return staleFile(err)
	}
	return err
}

// noModelMessage is what a model call without a configured model ends with.
const noModelMessage = "No model is configured, so the assistant cannot answer. Set OPENAI_API_KEY (and OPENAI_BASE_URL for an endpoint other than OpenAI's, HUB_MODEL for the model) and start Hub again."

func staleFile(err error) error {
	return temporal.NewNonRetryableApplicationError("The file was replaced or deleted while it was summarized. Summarize it again.", ErrTypeStale, err)
}

// completionModel is the model a completion's call goes to: the one it was
// started with (workspace.Service.TurnModel decided it), as a turn's.
func (a *Activities) completionModel(c chat.Completion) (streamer, llm.Model) {
	return a.turnModel(chat.Turn{Model: c.Model, Effort: c.Effort}, c.Model, c.Effort)
}

// completionRequest builds a completion's request from what its kind
// works on, read now with the person's access. What was deleted meanwhile
// ends it (ErrTypeGone); a file changed since it started, ErrTypeStale.
func (a *Activities) completionRequest(ctx context.Context, c chat.Completion) (llm.Request, error) {
	switch c.Kind {
	case chat.CompletionTestModel:
		return llm.Request{Messages: assistant.TestModelRequest(), MaxTokens: assistant.TestModelOutputTokens}, nil
	case chat.CompletionTestSkill:
		skill, err := a.Workspace.GetSkill(ctx, c.PersonID, c.Input.SkillID)
		if err != nil {
			return llm.Request{}, gone(err)
		}
		return llm.Request{Messages: assistant.TestSkillRequest(skill.Name, skill.Instructions, c.Input.Sample),
			MaxTokens: assistant.TestSkillOutputTokens}, nil
	case chat.CompletionSummarizeFile:
		text, name, err := a.fileText(ctx, c)
		if err != nil {
			return llm.Request{}, err
		}
		return llm.Request{Messages: assistant.SummarizeRequest(name, text), MaxTokens: assistant.SummarizeOutputTokens}, nil
	}
	return llm.Request{}, temporal.NewNonRetryableApplicationError("unknown completion kind "+c.Kind, ErrTypeGone, nil)
}

// fileText is the text of the file a summarize_file completion started
// with, extracted as hub_view_file extracts it (a PDF's, a Word document's
// or an HTML page's text; a text file as it is).
func (a *Activities) fileText(ctx context.Context, c chat.Completion) (text, name string, err error) {
	actor := workspace.Actor{PersonID: c.PersonID, Via: workspace.ViaAssistant}
	f, data, err := a.Files.Read(ctx, actor, c.SpaceID, c.Input.FileID, a.Files.MaxBytes())
	if errors.Is(err, files.ErrNoStore) {
		return "", "", temporal.NewNonRetryableApplicationError("No file store is configured, so files cannot be read.", ErrTypeUnavailable, err)
	}
	if err != nil {
		return "", "", gone(err)
	}
	if f.IndexGen != c.Input.FileGen {
		return "", "", staleFile(nil)
	}
	switch {
	case files.IsText(f.ContentType):
		text = string(data)
	case files.IsImage(f.ContentType):
		return "", "", temporal.NewNonRetryableApplicationError("A picture has no text to summarize.", ErrTypeUnextractable, nil)
	default:
		doc, err := retrieval.Extract(ctx, f.ContentType, data)
		if err != nil {
			var ue *retrieval.UnreadableError
			if errors.As(err, &ue) {
				return "", "", temporal.NewNonRetryableApplicationError(ue.Error(), ErrTypeUnextractable, nil)
			}
			return "", "", err
		}
		text = doc.Text()
	}
	if strings.TrimSpace(text) == "" {
		return "", "", temporal.NewNonRetryableApplicationError("The file has no text to summarize.", ErrTypeUnextractable, nil)
	}
	return text, f.Name, nil
}

// SetCompletionStatus records a running completion's status for the top
// bar: working when its model call is about to run, paused while it waits.
// A completion being stopped stays stopping.
func (a *Activities) SetCompletionStatus(ctx context.Context, in CompletionStatus) error {
	_, err := a.Chat.SetCompletionStatus(ctx, in.CompletionID, chat.Status(in.Status))
	return err
}

// EndCompletion ends a completion stopped or failed; one that ended
// already (done by RunCompletion) is left as it is.
func (a *Activities) EndCompletion(ctx context.Context, in CompletionEnd) error {
	_, err := a.Chat.FinishCompletion(ctx, in.CompletionID, chat.CompletionEnding{Status: chat.Status(in.Status),
		ErrorCode: in.ErrorCode, ErrorMessage: in.ErrorMessage})
	return err
}
