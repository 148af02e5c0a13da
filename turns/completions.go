package turns

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"unicode/utf8"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"hub/assistant"
	"hub/chat"
	"hub/files"
	"hub/workflows"
	"hub/workspace"
)

// CompletionRequest is a completion a person asks for (POST
// /api/completions): its kind and the fields that kind takes.
type CompletionRequest struct {
	Kind    string
	SpaceID string // the space it runs in: its budget pays, usage counts it there
	FileID  string // summarize_file
	SkillID string // test_skill
	Input   string // test_skill's sample input
	// Model and Effort choose the model (test_model: required; the others:
	// "" is the person's default, else the catalog's).
	Model, Effort string
}

// StartCompletion checks a completion's request, saves it queued (in the
// person's top bar) and starts its workflow. Nothing is saved when a check
// fails; a workflow that cannot start leaves it ended with error
// unavailable (UnavailableError).
func (s *Service) StartCompletion(ctx context.Context, p workspace.Person, r CompletionRequest) (chat.Completion, error) {
	n, err := s.checkCompletion(ctx, p, r)
	if err != nil {
		return chat.Completion{}, err
	}
	c, err := s.Chat.CreateCompletion(ctx, n)
	if err != nil {
		return chat.Completion{}, err
	}
	return s.launchCompletion(ctx, c)
}

// checkCompletion checks a request in the order of its fields and makes
// the completion to save: kind, space, the kind's own fields (a field
// another kind takes is refused), then the model.
func (s *Service) checkCompletion(ctx context.Context, p workspace.Person, r CompletionRequest) (chat.NewCompletion, error) {
	n := chat.NewCompletion{PersonID: p.ID, Kind: r.Kind, Purpose: chat.CompletionPurpose(r.Kind)}
	takes := map[string]bool{}
	switch r.Kind {
	case chat.CompletionSummarizeFile:
		takes["/fileId"] = true
	case chat.CompletionTestSkill:
		takes["/skillId"], takes["/input"] = true, true
	case chat.CompletionTestModel:
	case "":
		return n, invalid("/kind", "kind is required: "+strings.Join(chat.CompletionKinds, ", "))
	default:
		return n, invalid("/kind", fmt.Sprintf("unknown kind %q: it is one of %s", r.Kind, strings.Join(chat.CompletionKinds, ", ")))
	}
	for _, f := range []struct{ path, value string }{{"/fileId", r.FileID}, {"/skillId", r.SkillID}, {"/input", r.Input}} {
		if f.value != "" && !takes[f.path] {
			return n, invalid(f.path, fmt.Sprintf("a %s completion takes no %s", r.Kind, f.path[1:]))
		}
	}
	if strings.TrimSpace(r.SpaceID) == "" {
		return n, invalid("/spaceId", "spaceId is required: the space the completion runs in (its budget pays for it)")
	}
	if _, err := s.Workspace.Access(ctx, p.ID, r.SpaceID); err != nil {
		var nf *workspace.NotFoundError
		if errors.As(err, &nf) {
			return n, &workspace.NotFoundError{Kind: "space", ID: r.SpaceID, Path: "/spaceId"}
		}
		return n, err
	}
	n.SpaceID = r.SpaceID
	actor := workspace.Actor{PersonID: p.ID, Via: workspace.ViaREST}
	switch r.Kind {
	case chat.CompletionSummarizeFile:
		if strings.TrimSpace(r.FileID) == "" {
			return n, invalid("/fileId", "fileId is required: the file to summarize")
		}
		f, err := s.Files.Get(ctx, actor, r.SpaceID, r.FileID)
		if err != nil {
			var nf *workspace.NotFoundError
			if errors.As(err, &nf) {
				return n, &workspace.NotFoundError{Kind: files.KindFile, ID: r.FileID, Path: "/fileId"}
			}
			return n, err
		}
		if files.IsImage(f.ContentType) {
			return n, invalid("/fileId", fmt.Sprintf("%s is a picture: it has no text to summarize", f.Name))
		}
		n.Input, n.Title = chat.CompletionInput{FileID: f.ID, FileGen: f.IndexGen}, "Summarize "+f.Name
	case chat.CompletionTestSkill:
		if strings.TrimSpace(r.SkillID) == "" {
			return n, invalid("/skillId", "skillId is required: the skill to try")
		}
		skill, err := s.Workspace.GetSkill(ctx, p.ID, r.SkillID)
		if errors.Is(err, workspace.ErrNotFound) { // another person's too
			return n, &workspace.NotFoundError{Kind: "skill", ID: r.SkillID, Path: "/skillId"}
		}
		if err != nil {
			return n, err
		}
		sample := strings.TrimSpace(r.Input)
		if err := workspace.CheckText("/input", sample); err != nil {
			return n, err
		}
		switch count := utf8.RuneCountInString(sample); {
		case count == 0:
			return n, invalid("/input", "input is required: a sample request to try the skill on")
		case count > assistant.MaxSkillSampleChars:
			return n, invalid("/input", fmt.Sprintf("a sample input has at most %d characters, not %d", assistant.MaxSkillSampleChars, count))
		}
		n.Input, n.Title = chat.CompletionInput{SkillID: skill.ID, Sample: sample}, "Try skill "+skill.Name
	case chat.CompletionTestModel:
		if strings.TrimSpace(r.Model) == "" {
			return n, invalid("/model", "model is required: the catalog model to check (GET /api/models)")
		}
	}
	model, effort, err := s.Workspace.TurnModel(ctx, p.ID, strings.TrimSpace(r.Model), strings.TrimSpace(r.Effort))
	if err != nil {
		return n, err
	}
	n.Model, n.Effort = model, effort
	if r.Kind == chat.CompletionTestModel {
		n.Title = "Check model " + model
	}
	return n, nil
}

// launchCompletion starts the saved completion's workflow, as launch does
// a turn's (not ended with the request). Its own timer ends it at
// workflows.CompletionTimeout; Temporal ends the workflow outright
// CompletionGrace later if even that fails.
func (s *Service) launchCompletion(ctx context.Context, c chat.Completion) (chat.Completion, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), launchTimeout)
	defer cancel()
	opts := client.StartWorkflowOptions{
		ID:                       workflows.CompletionWorkflowID(c.ID),
		TaskQueue:                cmp.Or(s.TaskQueue, workflows.DefaultTaskQueue),
		WorkflowExecutionTimeout: workflows.CompletionTimeout + workflows.CompletionGrace,
		TypedSearchAttributes: temporal.NewSearchAttributes(
			workflows.SpaceIDKey.ValueSet(c.SpaceID),
			workflows.ActorIDKey.ValueSet(c.PersonID),
		),
		EnableEagerStart: true,
		StaticSummary:    "Completion " + c.Kind + ": " + c.Title,
	}
	in := workflows.CompletionInput{CompletionID: c.ID, TurnID: c.TurnID}
	if _, err := s.Temporal.ExecuteWorkflow(ctx, opts, workflows.Completion, in); err != nil {
		slog.ErrorContext(ctx, "start completion workflow", "completion", c.ID, "error", err)
		msg := "Hub could not start the completion (its workflow service is unreachable). Try again in a moment."
		if _, ferr := s.Chat.FinishCompletion(ctx, c.ID, chat.CompletionEnding{Status: chat.StatusError, ErrorCode: CodeUnavailable, ErrorMessage: msg}); ferr != nil {
			slog.ErrorContext(ctx, "save failed completion", "completion", c.ID, "error", ferr)
		}
		return chat.Completion{}, &UnavailableError{Message: msg}
	}
	return c, nil
}
