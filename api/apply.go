package api

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"hub/chat"
	"hub/workflows"
	"hub/workspace"
)

type applyRequest struct {
	ConversationID   string   `json:"conversationId" openapi:"required"`
	MessageID        string   `json:"messageId" openapi:"required"`
	CallIDs          []string `json:"callIds" doc:"Only these held calls of the message; absent or empty: all of them."`
	ResendUnknown    bool     `json:"resendUnknown" doc:"Send again an outside write whose outcome is unknown."`
	RetryInterrupted bool     `json:"retryInterrupted" doc:"Run again workflow steps interrupted while they ran."`
}

type receiptDTO struct {
	CallID      string    `json:"callId"`
	SpaceID     string    `json:"spaceId"`
	Tool        string    `json:"tool"`
	Status      string    `json:"status"`
	Summary     string    `json:"summary,omitempty"`
	Error       *errorDTO `json:"error,omitempty"`
	UndoGroupID string    `json:"undoGroupId,omitempty"`
	UndoState   string    `json:"undoState,omitempty" doc:"With undoGroupId, in a conversation's messages: done, undone (the client offers Redo) or redone."`
	Steps       []stepDTO `json:"steps,omitempty"`
	// Refs are the records a succeeded call changed ([] otherwise).
	Refs []refDTO `json:"refs"`
}

// applyResultDTO has one receipt per held call of the message.
type applyResultDTO struct {
	ApplyID  string       `json:"applyId" doc:"The message's Apply workflow (the top bar's id for it)."`
	Receipts []receiptDTO `json:"receipts"`
}

type stepDTO struct {
	ID          string    `json:"id"`
	Tool        string    `json:"tool"`
	Status      string    `json:"status"`
	Summary     string    `json:"summary,omitempty"`
	Error       *errorDTO `json:"error,omitempty"`
	UndoGroupID string    `json:"undoGroupId,omitempty"`
	UndoState   string    `json:"undoState,omitempty" doc:"With undoGroupId, in a conversation's messages: done, undone (the client offers Redo) or redone."`
}

// apply resolves the held calls saved on the person's message (never a new
// tool call as approval) and runs them through the message's Apply
// workflow with Update-with-Start: concurrent or repeated requests join one
// workflow, apply once and get the same receipts.
func (s *Server) apply(c *gin.Context, req applyRequest) (any, error) {
	ctx := c.Request.Context()
	switch {
	case req.ConversationID == "":
		return nil, badRequest("/conversationId", "conversationId is required")
	case req.MessageID == "":
		return nil, badRequest("/messageId", "messageId is required")
	}
	calls, err := s.Chat.Proposal(ctx, person(c).ID, req.ConversationID, req.MessageID)
	if err != nil {
		return nil, err
	}
	if len(calls) == 0 {
		return nil, newError(http.StatusConflict, codeConflict, "", "this message proposed no changes to apply")
	}
	for i, id := range req.CallIDs {
		if !slices.ContainsFunc(calls, func(h chat.HeldCall) bool { return h.ID == id }) {
			return nil, newError(http.StatusNotFound, codeNotFound, fmt.Sprintf("/callIds/%d", i), fmt.Sprintf("this message proposed no call %q", id))
		}
	}
	id := workflows.ApplyWorkflowID(req.MessageID)
	in := workflows.ApplyInput{MessageID: req.MessageID, ConversationID: req.ConversationID, PersonID: person(c).ID}
	ar := workflows.ApplyRequest{CallIDs: req.CallIDs, ResendUnknown: req.ResendUnknown, RetryInterrupted: req.RetryInterrupted}
	// Identical requests in flight here (a double click, a retry) share one Update-with-Start.
	key, _ := json.Marshal([]any{id, in.PersonID, ar})
	v, err, _ := s.applies.Do(string(key), func() (any, error) {
		var res workflows.ApplyResult
		var err error
		// A transient failure is tried again with the same update id: if the
		// failed try reached the workflow after all, Temporal answers with
		// that update's outcome instead of running the Apply a second time
		// (which could send again an outside write ResendUnknown allowed once).
		updateID := "apply_" + strings.ToLower(rand.Text())
		for attempt := 1; ; attempt++ {
			err = s.applyOnce(context.WithoutCancel(ctx), id, updateID, in, ar, &res)
			if err == nil || attempt == 4 || !transient(err) {
				return res, err
			}
			time.Sleep(time.Duration(attempt*attempt) * 50 * time.Millisecond)
		}
	})
	if err != nil {
		return nil, applyError(err, req.MessageID)
	}
	res, _ := v.(workflows.ApplyResult)
	out := make([]receiptDTO, len(res.Receipts))
	for i, r := range res.Receipts {
		out[i] = receiptDTO{CallID: r.CallID, SpaceID: r.SpaceID, Tool: r.Tool, Status: r.Status, Summary: r.Summary,
			Error: failure(r.ErrorCode, r.ErrorMessage), UndoGroupID: r.UndoGroupID, Refs: toRefDTOs(r.Refs)}
		for _, st := range r.PlanSteps {
			out[i].Steps = append(out[i].Steps, stepDTO{ID: st.ID, Tool: st.Tool, Status: st.Status, Summary: st.Summary,
				Error: failure(st.ErrorCode, st.ErrorMessage), UndoGroupID: st.UndoGroupID})
		}
	}
	return applyResultDTO{ApplyID: id, Receipts: out}, nil
}

// applyError maps a failure to reach or run the Apply workflow: a conversation deleted or a
// space left while the Apply ran is 404, as for a message that does not exist.
func applyError(err error, messageID string) error {
	if ae, ok := errors.AsType[*temporal.ApplicationError](err); ok && ae.Type() == workflows.ErrTypeGone {
		return &workspace.NotFoundError{Kind: "message", ID: messageID, Path: "/messageId"}
	}
	if _, ok := errors.AsType[*serviceerror.Unavailable](err); ok || errors.Is(err, context.DeadlineExceeded) {
		return unavailable("Hub could not reach its workflow service to apply these changes. Nothing new was applied; try again in a moment.")
	}
	return fmt.Errorf("apply: %w", err)
}

// applyOnce runs one Update-with-Start of the Apply workflow and waits for its receipts.
func (s *Server) applyOnce(ctx context.Context, id, updateID string, in workflows.ApplyInput, req workflows.ApplyRequest, res *workflows.ApplyResult) error {
	start := s.Temporal.NewWithStartWorkflowOperation(client.StartWorkflowOptions{
		ID: id, TaskQueue: cmp.Or(s.TaskQueue, workflows.DefaultTaskQueue),
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
	}, workflows.Apply, in)
	h, err := s.Temporal.UpdateWithStartWorkflow(ctx, client.UpdateWithStartWorkflowOptions{
		StartWorkflowOperation: start,
		UpdateOptions: client.UpdateWorkflowOptions{UpdateID: updateID, UpdateName: workflows.ApplyUpdate, WaitForStage: client.WorkflowUpdateStageCompleted,
			Args: []any{req}},
	})
	if err != nil {
		return err
	}
	return h.Get(ctx, res)
}

// transient tells a workflow-service failure worth one more try.
func transient(err error) bool {
	return errors.As(err, new(*serviceerror.Unavailable)) || errors.As(err, new(*serviceerror.Internal)) ||
		errors.As(err, new(*serviceerror.ResourceExhausted)) || errors.As(err, new(*serviceerror.Aborted))
}

type undoRequest struct {
	UndoGroupID string `json:"undoGroupId" openapi:"required"`
}

// undoRecordDTO names a record Undo or Redo put back, by its title.
type undoRecordDTO struct {
	Kind  string `json:"kind"`
	ID    string `json:"id"`
	Label string `json:"label"`
}

type undoResultDTO struct {
	UndoGroupID string          `json:"undoGroupId"`
	State       string          `json:"state"`
	Records     []undoRecordDTO `json:"records"`
}

func toUndoResultDTO(r workspace.UndoResult) undoResultDTO {
	return undoResultDTO{UndoGroupID: r.GroupID, State: r.State, Records: toDTOs(r.Records, func(ref workspace.Ref) undoRecordDTO {
		return undoRecordDTO{Kind: ref.Kind, ID: ref.ID, Label: ref.Label}
	})}
}

// undoRedo serves Undo or Redo with run (someone else's group is a 404).
func (s *Server) undoRedo(run func(ctx context.Context, personID, groupID string) (workspace.UndoResult, error)) replyFunc {
	return withBody(func(c *gin.Context, req undoRequest) (any, error) {
		id := strings.TrimSpace(req.UndoGroupID)
		if id == "" {
			return nil, badRequest("/undoGroupId", "undoGroupId is required")
		}
		res, err := run(c.Request.Context(), person(c).ID, id)
		return toUndoResultDTO(res), err
	})
}

type needsMeDTO struct {
	CallID         string    `json:"callId"`
	Tool           string    `json:"tool"`
	Preview        string    `json:"preview"`
	ConversationID string    `json:"conversationId"`
	MessageID      string    `json:"messageId"`
	SpaceID        string    `json:"spaceId"`
	CreatedAt      time.Time `json:"createdAt"`
}

type needsMeListDTO struct {
	Items []needsMeDTO `json:"items"`
}

// needsMe lists the person's writes held for the Needs me list, oldest first.
func (s *Server) needsMe(c *gin.Context) (any, error) {
	calls, err := s.Chat.HeldCalls(c.Request.Context(), person(c).ID, chat.HeldForNeedsMe)
	return needsMeListDTO{Items: toDTOs(calls, func(h chat.HeldCall) needsMeDTO {
		return needsMeDTO{CallID: h.ID, Tool: h.Tool, Preview: h.Summary, ConversationID: h.ConversationID,
			MessageID: h.MessageID, SpaceID: h.SpaceID, CreatedAt: h.CreatedAt}
	})}, err
}
