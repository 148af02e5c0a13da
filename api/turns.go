package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"hub/assistant"
	"hub/chat"
	"hub/workflows"
	"hub/workspace"
)

type mentionRequest struct {
	Kind string `json:"kind" openapi:"required"`
	ID   string `json:"id" openapi:"required"`
}

type startTurnRequest struct {
	Text     string           `json:"text" openapi:"required" doc:"The message: at most 20,000 characters."`
	Mentions []mentionRequest `json:"mentions" doc:"Records the message mentions (chips), by kind and id in the conversation's space."`
	Context  json.RawMessage  `json:"context"`
	// Spaces are other spaces of the person the turn may act in besides
	// the conversation's (docs/decisions.md, "Turns across spaces").
	Spaces []string `json:"spaces" doc:"Other spaces of the person the turn may act in (at most 20)."`
	// Files are ids of files of the conversation's space the model gets
	// with this message (docs/decisions.md, "Attached files").
	Files []string `json:"files" doc:"Ids of the space's files the model gets with this message (at most 8, 50 MiB in all)."`
	// Model and Effort choose the catalog model and reasoning effort of
	// this turn (GET /api/models); empty: the person's defaults from
	// settings, else the catalog's default model.
	Model  string `json:"model" doc:"A catalog model id (GET /api/models); empty: the person's default."`
	Effort string `json:"effort" doc:"A reasoning effort the model takes; empty: the person's default."`
}

// maxTurnFiles is how many files one message may carry, and
// maxTurnFileBytes how large they may be together: what the common
// providers take in one request (OpenAI: 50 MB of files), before base64.
const (
	maxTurnFiles     = 8
	maxTurnFileBytes = 50 << 20
)

type turnStartedDTO struct {
	TurnID         string `json:"turnId"`
	MessageID      string `json:"messageId" doc:"The person's message."`
	ReplyMessageID string `json:"replyMessageId" doc:"The assistant's reply the frames fill (the done frame's messageId)."`
	StreamURL      string `json:"streamUrl" doc:"Where to read the turn's frames, relative to the api's origin; it carries the turn's own stream token (for EventSource)."`
}

func (s *Server) startTurn(c *gin.Context) {
	// The request reads the person's access to the conversation's space
	// and their settings once, with the conversation (GetConversation);
	// its checks (the model, mentions, files) answer from that read.
	c.Request = c.Request.WithContext(workspace.CheckAccessOnce(c.Request.Context()))
	ctx := c.Request.Context()
	var req startTurnRequest
	if !bind(c, &req) {
		return
	}
	text := strings.TrimSpace(req.Text)
	switch {
	case text == "":
		respondError(c, badRequest("/text", "text is required"))
		return
	case utf8.RuneCountInString(text) > maxMessageChars:
		respondError(c, badRequest("/text", fmt.Sprintf("a message has at most %d characters", maxMessageChars)))
		return
	case len(req.Mentions) > maxMentions:
		respondError(c, badRequest("/mentions", fmt.Sprintf("at most %d mentions", maxMentions)))
		return
	case len(req.Files) > maxTurnFiles:
		respondError(c, badRequest("/files", fmt.Sprintf("a message carries at most %d files", maxTurnFiles)))
		return
	case len(req.Spaces) > maxTurnSpaces:
		respondError(c, badRequest("/spaces", fmt.Sprintf("a turn acts in at most %d other spaces", maxTurnSpaces)))
		return
	}
	page := ""
	if len(req.Context) > 0 && string(req.Context) != "null" {
		if req.Context[0] != '{' {
			respondError(c, badRequest("/context", "context must be an object"))
			return
		}
		// Over-long selections and id lists are cut, not refused, before the
		// size is checked: a large selection must not cost the person their
		// message (docs/decisions.md, "Page context limits").
		bounded, err := assistant.BoundPageContext(req.Context)
		if err != nil {
			respondError(c, badRequest("/context", "context must be an object"))
			return
		}
		if len(bounded) > maxContextBytes {
			respondError(c, badRequest("/context", "context is too large"))
			return
		}
		page = string(bounded)
	}
	// GetConversation checks that the person can open its space now (in
	// the same query); StartTurn's transaction checks it again in its first
	// write, without reading the conversation again.
	conv, err := s.Chat.GetConversation(ctx, person(c).ID, c.Param("id"))
	if err != nil {
		respondError(c, err)
		return
	}
	// The model and effort are checked before anything is saved (the
	// person's defaults come with the conversation's read): an unknown
	// model or an effort it does not take never reaches a provider
	// (docs/decisions.md, "Models a person chooses").
	model, effort, err := s.Workspace.TurnModel(ctx, person(c).ID, strings.TrimSpace(req.Model), strings.TrimSpace(req.Effort))
	if err != nil {
		respondError(c, err)
		return
	}
	spaces, err := s.turnSpaces(c, conv.SpaceID, req.Spaces)
	if err != nil {
		respondError(c, err)
		return
	}
	mentions := make([]workspace.Ref, 0, len(req.Mentions))
	for i, m := range req.Mentions {
		ref, err := s.Workspace.ResolveRef(ctx, actor(c), conv.SpaceID, m.Kind, m.ID)
		if err != nil {
			respondError(c, atPath(err, fmt.Sprintf("/mentions/%d", i)))
			return
		}
		mentions = append(mentions, ref)
	}
	if mentions, err = s.typedMentions(c, conv.SpaceID, text, mentions); err != nil {
		respondError(c, err)
		return
	}
	// Attached files are the message's file mentions: saved with it, shown
	// as chips after a reload, and sent to the model as parts.
	attached, err := s.Files.Resolve(ctx, actor(c), conv.SpaceID, req.Files)
	if err != nil {
		respondError(c, err)
		return
	}
	var total int64
	for _, f := range attached {
		mentions = append(mentions, f.Ref())
		total += f.Size
	}
	if total > maxTurnFileBytes {
		respondError(c, &apiError{status: http.StatusRequestEntityTooLarge, detail: errorDetail{Code: codeTooLarge, Path: "/files",
			Message: fmt.Sprintf("the files of one message add up to at most %d MiB; these are %.1f MiB", maxTurnFileBytes>>20, float64(total)/(1<<20))}})
		return
	}
	// The turn's stream token is stored in the start's transaction.
	token, storeToken, err := s.Workspace.NewStreamToken(person(c), s.StreamTokenTTL)
	if err != nil {
		respondError(c, err)
		return
	}
	turn, err := s.Chat.StartTurn(ctx, chat.NewTurn{ConversationID: conv.ID, PersonID: person(c).ID, Text: text,
		Mentions: mentions, PageContext: page, Spaces: spaces, Model: model, Effort: effort, Conversation: &conv, Also: storeToken})
	if err != nil {
		respondError(c, err)
		return
	}
	s.launch(c, turn, token)
}

// typedMentions adds the records the message's typed mentions name
// ("@people:Mira Chen", "@task:Draft brief"), resolved by exact name in the
// space as id mentions are by id, to the mentions saved on the message (at
// most maxMentions in all, repeats once). A typed mention that names no
// single record stays text; the turn tells the model so.
func (s *Server) typedMentions(c *gin.Context, spaceID, text string, mentions []workspace.Ref) ([]workspace.Ref, error) {
	if !assistant.HasTypedMention(text) {
		return mentions, nil
	}
	refs, _, err := assistant.TypedMentions(c.Request.Context(), s.Workspace, actor(c), spaceID, text)
	if err != nil {
		return nil, err
	}
	for _, r := range refs {
		if len(mentions) == maxMentions {
			break
		}
		if !slices.ContainsFunc(mentions, func(m workspace.Ref) bool { return m.Kind == r.Kind && m.ID == r.ID }) {
			mentions = append(mentions, r)
		}
	}
	return mentions, nil
}

// turnSpaces checks the other spaces a turn may act in: each one the person
// can open (any other is not found, at its place in the list). The
// conversation's own space and repeats are left out.
func (s *Server) turnSpaces(c *gin.Context, own string, ids []string) ([]string, error) {
	out := []string{}
	for i, id := range ids {
		at := fmt.Sprintf("/spaces/%d", i)
		if strings.TrimSpace(id) == "" {
			return nil, badRequest(at, "a space id is required")
		}
		if id == own || slices.Contains(out, id) {
			continue
		}
		if _, err := s.Workspace.Access(c.Request.Context(), person(c).ID, id); err != nil {
			var nf *workspace.NotFoundError
			if errors.As(err, &nf) {
				return nil, &workspace.NotFoundError{Kind: "space", ID: id, Path: at}
			}
			return nil, err
		}
		out = append(out, id)
	}
	return out, nil
}

// atPath puts a mention's position in front of a domain error's path.
func atPath(err error, prefix string) error {
	switch e := err.(type) {
	case *workspace.NotFoundError:
		return &workspace.NotFoundError{Kind: e.Kind, ID: e.ID, Path: prefix + "/id"}
	case *workspace.InvalidError:
		return &workspace.InvalidError{Path: prefix + e.Path, Message: e.Message}
	}
	return err
}

// launchTimeout bounds starting a turn's workflow once its request ended.
const launchTimeout = 30 * time.Second

// launch starts the turn's workflow and answers 202 with where to stream,
// with the turn's stream token (stored with the turn).
// If Temporal cannot be reached, the turn is saved as an error turn (so the
// conversation is not left with a turn that never runs) and the answer is
// 503.
//
// The turn is bounded in wall time: its own timer ends it at TurnTimeout
// (an error turn with code timeout, its ending saved), and Temporal ends
// the workflow outright TurnTimeoutGrace later if even that fails.
func (s *Server) launch(c *gin.Context, turn chat.Turn, token string) {
	// The message and the turn are saved: starting its workflow (or saving
	// why it could not start) must not end with the request, or a client
	// that hangs up now (a reloaded page) leaves a turn queued forever.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request.Context()), launchTimeout)
	defer cancel()
	// The top bar shows the queued turn already: StartTurn (RetryTurn)
	// announced it.
	limit := s.TurnTimeout
	if limit <= 0 {
		limit = workflows.DefaultTurnTimeout(0)
	}
	opts := client.StartWorkflowOptions{
		ID:                       workflows.TurnWorkflowID(turn.ID),
		TaskQueue:                s.taskQueue(),
		WorkflowExecutionTimeout: limit + workflows.TurnTimeoutGrace,
		TypedSearchAttributes: temporal.NewSearchAttributes(
			workflows.SpaceIDKey.ValueSet(turn.SpaceID),
			workflows.ConversationIDKey.ValueSet(turn.ConversationID),
			workflows.ActorIDKey.ValueSet(turn.PersonID),
			workflows.TurnStatusKey.ValueSet(string(chat.StatusQueued)),
		),
		EnableEagerStart: true,
		StaticSummary:    "Assistant turn in conversation " + turn.ConversationID,
	}
	in := workflows.TurnInput{TurnID: turn.ID, ConversationID: turn.ConversationID, SpaceID: turn.SpaceID, ActorID: turn.PersonID,
		Model: turn.Model, Effort: turn.Effort}
	if _, err := s.Temporal.ExecuteWorkflow(ctx, opts, workflows.Turn, in); err != nil {
		slog.ErrorContext(ctx, "start turn workflow", "turn", turn.ID, "error", err)
		msg := "Hub could not start the assistant (its workflow service is unreachable). Retry in a moment."
		if _, ferr := s.Chat.FinishTurn(ctx, turn.ID, chat.Ending{Status: chat.StatusError, ErrorCode: codeUnavailable, ErrorMessage: msg}); ferr != nil {
			slog.ErrorContext(ctx, "save failed turn", "turn", turn.ID, "error", ferr)
		}
		respondError(c, unavailable(msg))
		return
	}
	c.JSON(http.StatusAccepted, turnStartedDTO{TurnID: turn.ID, MessageID: turn.UserMessageID, ReplyMessageID: turn.ReplyMessageID,
		StreamURL: "/api/assistant/turns/" + url.PathEscape(turn.ID) + "/stream?streamToken=" + url.QueryEscape(token)})
}

type turnDTO struct {
	TurnID         string    `json:"turnId"`
	ConversationID string    `json:"conversationId"`
	Status         string    `json:"status"`
	Step           int       `json:"step" doc:"The model step in progress or last run, from 1."`
	Error          *errorDTO `json:"error,omitempty"`
	MessageID      string    `json:"messageId"`
	ReplyMessageID string    `json:"replyMessageId"`
	Usage          usageDTO  `json:"usage"`
	// Spaces are the other spaces the turn may act in.
	Spaces []string `json:"spaces" doc:"The other spaces the turn may act in."`
	// Model and Effort are the catalog model and reasoning effort the
	// turn runs with ("" effort: none).
	Model  string `json:"model" doc:"The catalog model the turn runs with."`
	Effort string `json:"effort" doc:"Its reasoning effort (\"\": none)."`
}

func (s *Server) getTurn(c *gin.Context) {
	t, err := s.Chat.GetTurnFor(c.Request.Context(), person(c).ID, c.Param("turnId"))
	if err != nil {
		respondError(c, err)
		return
	}
	d := turnDTO{TurnID: t.ID, ConversationID: t.ConversationID, Status: string(t.Status), Step: t.Step,
		MessageID: t.UserMessageID, ReplyMessageID: t.ReplyMessageID, Spaces: append([]string{}, t.Spaces...), Model: t.Model, Effort: t.Effort,
		Usage: usageDTO{InputTokens: t.Usage.InputTokens, OutputTokens: t.Usage.OutputTokens}}
	if t.ErrorCode != "" {
		d.Error = &errorDTO{Code: t.ErrorCode, Message: t.ErrorMessage}
	}
	c.JSON(http.StatusOK, d)
}

// turnStreamTokenDTO answers POST /api/assistant/turns/:turnId/stream-token.
type turnStreamTokenDTO struct {
	StreamToken string    `json:"streamToken"`
	StreamURL   string    `json:"streamUrl" doc:"The turn's stream with the token, for EventSource (as a started turn's streamUrl)."`
	ExpiresAt   time.Time `json:"expiresAt" doc:"Checked when a connection opens: an open stream outlives it (not the token it was made with: revoked or expired, the stream ends within seconds). Never later than that token's expiry."`
}

// turnStreamToken makes a token that reads only one of the person's turns'
// stream: a client that did not start the turn (another tab, a reload
// without the started turn's streamUrl) follows a running reply with it.
func (s *Server) turnStreamToken(c *gin.Context) {
	ctx := c.Request.Context()
	t, err := s.Chat.GetTurnFor(ctx, person(c).ID, c.Param("turnId"))
	if err != nil {
		respondError(c, err)
		return
	}
	token, exp, err := s.Workspace.CreateDerivedToken(ctx, person(c), workspace.StreamScope(t.ID), s.StreamTokenTTL)
	if err != nil {
		respondError(c, err)
		return
	}
	c.JSON(http.StatusCreated, turnStreamTokenDTO{StreamToken: token, ExpiresAt: exp,
		StreamURL: "/api/assistant/turns/" + url.PathEscape(t.ID) + "/stream?streamToken=" + url.QueryEscape(token)})
}

func (s *Server) retryTurn(c *gin.Context) {
	token, storeToken, err := s.Workspace.NewStreamToken(person(c), s.StreamTokenTTL)
	if err != nil {
		respondError(c, err)
		return
	}
	turn, err := s.Chat.RetryTurn(c.Request.Context(), person(c).ID, c.Param("turnId"), storeToken)
	if err != nil {
		respondError(c, err)
		return
	}
	s.launch(c, turn, token)
}
