package api

import (
	"context"
	"log/slog"
	"time"

	"github.com/gin-gonic/gin"

	"hub/chat"
	"hub/workflows"
	"hub/workspace"
)

// maxTitleChars bounds a conversation's title.
const maxTitleChars = 200

type conversationDTO struct {
	ID        string    `json:"id"`
	SpaceID   string    `json:"spaceId"`
	Title     string    `json:"title"`
	AgentID   string    `json:"agentId,omitempty" doc:"The agent whose conversation it is (POST /api/agents/:agentId/turns); absent for the person's own."`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

func toConversationDTO(cv chat.Conversation) conversationDTO {
	return conversationDTO{ID: cv.ID, SpaceID: cv.SpaceID, Title: cv.Title, AgentID: cv.AgentID, CreatedAt: cv.CreatedAt, UpdatedAt: cv.UpdatedAt}
}

type createConversationRequest struct {
	SpaceID string `json:"spaceId" openapi:"required"`
	Title   string `json:"title"`
}

func (s *Server) createConversation(c *gin.Context, req createConversationRequest) (any, error) {
	if req.SpaceID == "" {
		return nil, badRequest("/spaceId", "spaceId is required")
	}
	title, err := workspace.CheckLine("/title", "a title", req.Title, maxTitleChars)
	if err != nil {
		return nil, err
	}
	if _, err := s.Workspace.Access(c.Request.Context(), person(c).ID, req.SpaceID); err != nil {
		return nil, err
	}
	cv, err := s.Chat.CreateConversation(c.Request.Context(), person(c).ID, req.SpaceID, title, "")
	return toConversationDTO(cv), err
}

type renameConversationRequest struct {
	Title string `json:"title" openapi:"required" doc:"The new title: one line of at most 200 characters, trimmed, not empty."`
}

func (s *Server) renameConversation(c *gin.Context, req renameConversationRequest) (any, error) {
	title, err := workspace.CheckLine("/title", "a title", req.Title, maxTitleChars)
	if err == nil && title == "" {
		err = badRequest("/title", "a title is required")
	}
	if err != nil {
		return nil, err
	}
	cv, err := s.Chat.RenameConversation(c.Request.Context(), person(c).ID, c.Param("id"), title)
	return toConversationDTO(cv), err
}

type conversationListDTO struct {
	Conversations []conversationDTO `json:"conversations"`
}

func (s *Server) listConversations(c *gin.Context) (any, error) {
	spaceID := c.Query("spaceId")
	if spaceID == "" {
		return nil, badRequest("/spaceId", "the spaceId query parameter is required")
	}
	if _, err := s.Workspace.Access(c.Request.Context(), person(c).ID, spaceID); err != nil {
		return nil, err
	}
	convs, err := s.Chat.ListConversations(c.Request.Context(), person(c).ID, spaceID)
	return conversationListDTO{Conversations: toDTOs(convs, toConversationDTO)}, err
}

func (s *Server) deleteConversation(c *gin.Context) (any, error) {
	ctx, id := c.Request.Context(), c.Param("id")
	d, err := s.Chat.DeleteConversation(ctx, person(c).ID, id)
	if err != nil {
		return nil, err
	}
	// The top bar drops them at once: the workflows cannot, their records being gone.
	if err := s.Chat.AnnounceDeleted(ctx, person(c).ID, id, d); err != nil {
		slog.WarnContext(ctx, "announce deleted conversation", "conversation", id, "error", err)
	}
	if err := s.Frames.Ended(ctx, d.RunningTurns...); err != nil {
		slog.WarnContext(ctx, "end streams of deleted conversation", "conversation", id, "error", err)
	}
	// A workflow that already ended answers not-found, which is fine.
	wfs := append(toDTOs(d.RunningTurns, workflows.TurnWorkflowID), toDTOs(d.HeldReplies, workflows.ApplyWorkflowID)...)
	for _, wf := range wfs {
		if err := s.Temporal.CancelWorkflow(ctx, wf, ""); err != nil {
			slog.InfoContext(ctx, "end workflow of deleted conversation", "workflow", wf, "error", err)
		}
	}
	return nil, nil
}

type refDTO struct {
	Kind    string `json:"kind"`
	ID      string `json:"id"`
	Label   string `json:"label"`
	Detail  string `json:"detail,omitempty"`
	SpaceID string `json:"spaceId,omitempty"`
}

func toRefDTOs(refs []workspace.Ref) []refDTO {
	return toDTOs(refs, func(r workspace.Ref) refDTO { return refDTO(r) })
}

func toReceiptDTO(callID, tool string, r chat.Receipt) receiptDTO {
	return receiptDTO{CallID: callID, SpaceID: r.SpaceID, Tool: tool, Status: r.Status, Summary: r.Summary,
		Error: failure(r.ErrorCode, r.ErrorMessage), UndoGroupID: r.UndoGroupID, Refs: toRefDTOs(r.Refs)}
}

type toolCallDTO struct {
	ID          string    `json:"id"`
	Tool        string    `json:"tool"`
	Summary     string    `json:"summary"`
	Status      string    `json:"status"`
	Error       *errorDTO `json:"error,omitempty"`
	Refs        []refDTO  `json:"refs"`
	UndoGroupID string    `json:"undoGroupId,omitempty" doc:"The Undo group of a write done at once (POST /api/assistant/undo)."`
	UndoState   string    `json:"undoState,omitempty" doc:"With undoGroupId: done (as made), undone (Undo put it back: the client offers Redo) or redone."`
	// Receipt is what Apply made of a held call; a success's summary is the call's too.
	Receipt *receiptDTO `json:"receipt,omitempty"`
}

// proposalDTO is a write the reply proposed, with what became of it.
type proposalDTO struct {
	CallID  string `json:"callId"`
	Tool    string `json:"tool"`
	Preview string `json:"preview" doc:"What the write will do, in words."`
	HeldFor string `json:"heldFor" doc:"apply: in the chat, for the person's Apply; needs-me: on the Needs me list."`
	Status  string `json:"status"`
	// SpaceID is set when the call acts in another of its turn's spaces.
	SpaceID string `json:"spaceId,omitempty"`
}

type errorDTO struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// failure is the error of a receipt or a step: nil with neither code nor message.
func failure(code, message string) *errorDTO {
	if code == "" && message == "" {
		return nil
	}
	return &errorDTO{Code: code, Message: message}
}

// errorOf is the error of a message, a tool call or a turn: nil without a code.
func errorOf(code, message string) *errorDTO {
	if code == "" {
		return nil
	}
	return &errorDTO{Code: code, Message: message}
}

type usageDTO struct {
	InputTokens  int `json:"inputTokens"`
	OutputTokens int `json:"outputTokens"`
}

type messageDTO struct {
	ID        string        `json:"id"`
	TurnID    string        `json:"turnId"`
	Role      string        `json:"role"`
	Text      string        `json:"text"`
	Status    string        `json:"status" doc:"The reply's status: a turn status while it runs, then how it ended."`
	Mentions  []refDTO      `json:"mentions"`
	Refs      []refDTO      `json:"refs"`
	ToolCalls []toolCallDTO `json:"toolCalls"`
	Proposals []proposalDTO `json:"proposals" doc:"The writes the reply proposed, held for Apply or the Needs me list."`
	Usage     *usageDTO     `json:"usage,omitempty" doc:"Tokens of the reply's model calls (assistant messages)."`
	Error     *errorDTO     `json:"error,omitempty"`
	CreatedAt time.Time     `json:"createdAt"`
}

func toMessageDTO(m chat.Message) messageDTO {
	d := messageDTO{ID: m.ID, TurnID: m.TurnID, Role: m.Role, Text: m.Text, Status: m.Status,
		Mentions: toRefDTOs(m.Mentions), Refs: toRefDTOs(m.Refs), ToolCalls: []toolCallDTO{}, Proposals: []proposalDTO{},
		Error: errorOf(m.ErrorCode, m.ErrorMessage), CreatedAt: m.CreatedAt}
	if m.Role == chat.RoleAssistant {
		d.Usage = (*usageDTO)(&m.Usage)
	}
	for _, tc := range m.ToolCalls {
		t := toolCallDTO{ID: tc.ID, Tool: tc.Tool, Summary: tc.Summary, Status: tc.Status, Error: errorOf(tc.ErrorCode, tc.ErrorMessage),
			Refs: toRefDTOs(tc.Refs), UndoGroupID: tc.UndoGroupID}
		if r := tc.Receipt; r != nil {
			rd := toReceiptDTO(tc.ID, tc.Tool, *r)
			t.Receipt = &rd
			if r.Status == chat.ReceiptSucceeded && r.Summary != "" {
				t.Summary = r.Summary
			}
		}
		d.ToolCalls = append(d.ToolCalls, t)
		if tc.HeldFor != "" {
			d.Proposals = append(d.Proposals, proposalDTO{CallID: tc.ID, Tool: tc.Tool, Preview: tc.Summary, HeldFor: tc.HeldFor, Status: tc.Status, SpaceID: tc.SpaceID})
		}
	}
	return d
}

type messageListDTO struct {
	Messages []messageDTO `json:"messages"`
}

func (s *Server) listMessages(c *gin.Context) (any, error) {
	msgs, err := s.Chat.Messages(c.Request.Context(), person(c).ID, c.Param("id"))
	if err != nil {
		return nil, err
	}
	out := toDTOs(msgs, toMessageDTO)
	if err := s.withPlanSteps(c.Request.Context(), out); err != nil {
		return nil, err
	}
	return messageListDTO{Messages: out}, s.withUndoStates(c.Request.Context(), person(c).ID, out)
}

// withPlanSteps puts an applied workflow call's steps on its receipt, as Apply answered them.
func (s *Server) withPlanSteps(ctx context.Context, msgs []messageDTO) error {
	var ids []string
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			if tc.Receipt != nil {
				ids = append(ids, tc.ID)
			}
		}
	}
	steps, err := s.Chat.PlanStepsOf(ctx, ids)
	if err != nil || len(steps) == 0 {
		return err
	}
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			for _, st := range steps[tc.ID] {
				tc.Receipt.Steps = append(tc.Receipt.Steps, stepDTO{ID: st.StepID, Tool: st.Tool, Status: st.Status, Summary: st.Summary,
					Error: failure(st.ErrorCode, st.ErrorMessage), UndoGroupID: st.UndoGroupID})
			}
		}
	}
	return nil
}

// withUndoStates sets undoState by every undoGroupId, so a reloaded client offers Redo.
func (s *Server) withUndoStates(ctx context.Context, personID string, msgs []messageDTO) error {
	var ids []string
	undoGroups(msgs, func(group string, _ *string) {
		if group != "" {
			ids = append(ids, group)
		}
	})
	if len(ids) == 0 {
		return nil
	}
	states, err := s.Workspace.UndoStates(ctx, personID, ids)
	if err != nil {
		return err
	}
	undoGroups(msgs, func(group string, state *string) { *state = states[group] })
	return nil
}

// undoGroups calls f with each undoGroupId of tool calls, receipts and steps, and its undoState.
func undoGroups(msgs []messageDTO, f func(group string, state *string)) {
	for _, m := range msgs {
		for i := range m.ToolCalls {
			tc := &m.ToolCalls[i]
			f(tc.UndoGroupID, &tc.UndoState)
			if r := tc.Receipt; r != nil {
				f(r.UndoGroupID, &r.UndoState)
				for j := range r.Steps {
					f(r.Steps[j].UndoGroupID, &r.Steps[j].UndoState)
				}
			}
		}
	}
}
