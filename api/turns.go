package api

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"time"

	"github.com/gin-gonic/gin"

	"hub/chat"
	"hub/stream"
	"hub/turns"
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
	Spaces   []string         `json:"spaces" doc:"Other spaces of the person the turn may act in (at most 20)."`
	Files    []string         `json:"files" doc:"Ids of the space's files the model gets with this message (at most 8, 50 MiB in all)."`
	Model    string           `json:"model" doc:"A catalog model id (GET /api/models); empty: the person's default."`
	Effort   string           `json:"effort" doc:"A reasoning effort the model takes; empty: the person's default."`
	Tier     string           `json:"tier" doc:"A model class (a catalog model's tier) for this message instead of a model: the person's default model when it is of that tier, else the tier's first; checked before anything is saved."`
	// ReferenceContext and Fresh are for other screens asking on the person's behalf.
	ReferenceContext string `json:"referenceContext" doc:"What the screen asking on the person's behalf sends along (at most 8,000 characters): the model gets it in the turn's context; it is never shown in the transcript or saved as the person's words."`
	Fresh            bool   `json:"fresh" doc:"Start a new conversation in this conversation's space (and of its agent) for the message; the answer's conversationId names it."`
}

type turnStartedDTO struct {
	TurnID         string `json:"turnId"`
	ConversationID string `json:"conversationId"`
	MessageID      string `json:"messageId" doc:"The person's message."`
	ReplyMessageID string `json:"replyMessageId" doc:"The assistant's reply the frames fill (the done frame's messageId)."`
	StreamURL      string `json:"streamUrl" doc:"Where to read the turn's frames, relative to the api's origin; it carries the turn's own stream token (for EventSource)."`
}

func (s *Server) startTurn(c *gin.Context, req startTurnRequest) (any, error) {
	mentions := toDTOs(req.Mentions, func(m mentionRequest) turns.Mention { return turns.Mention(m) })
	started, err := s.Turns.Start(c.Request.Context(), person(c), turns.Message{ConversationID: c.Param("id"), Text: req.Text,
		Mentions: mentions, Context: req.Context, Spaces: req.Spaces, Files: req.Files, Model: req.Model, Effort: req.Effort, Tier: req.Tier,
		ReferenceContext: req.ReferenceContext, Fresh: req.Fresh})
	return toTurnStartedDTO(started), err
}

func toTurnStartedDTO(t turns.Started) turnStartedDTO {
	return turnStartedDTO{TurnID: t.Turn.ID, ConversationID: t.Turn.ConversationID, MessageID: t.Turn.UserMessageID, ReplyMessageID: t.Turn.ReplyMessageID,
		StreamURL: turnStreamURL(t.Turn.ID, t.StreamToken)}
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
	Spaces         []string  `json:"spaces" doc:"The other spaces the turn may act in."`
	Model          string    `json:"model" doc:"The catalog model the turn runs with."`
	Effort         string    `json:"effort" doc:"Its reasoning effort (\"\": none)."`
}

func toTurnDTO(t chat.Turn) turnDTO {
	return turnDTO{TurnID: t.ID, ConversationID: t.ConversationID, Status: string(t.Status), Step: t.Step,
		Error: errorOf(t.ErrorCode, t.ErrorMessage), MessageID: t.UserMessageID, ReplyMessageID: t.ReplyMessageID,
		Usage: usageDTO(t.Usage), Spaces: t.Spaces, Model: t.Model, Effort: t.Effort}
}

type turnStreamTokenDTO struct {
	StreamToken string    `json:"streamToken"`
	StreamURL   string    `json:"streamUrl" doc:"The turn's stream with the token, for EventSource (as a started turn's streamUrl)."`
	ExpiresAt   time.Time `json:"expiresAt" doc:"Checked when a connection opens: an open stream outlives it (not the token it was made with: revoked or expired, the stream ends within seconds). Never later than that token's expiry."`
}

// turnStreamToken makes a token that reads only this turn's stream, for a client that did not start it.
func (s *Server) turnStreamToken(c *gin.Context) (any, error) {
	ctx := c.Request.Context()
	t, err := s.Chat.GetTurnFor(ctx, person(c).ID, c.Param("turnId"))
	if err != nil {
		return nil, err
	}
	token, exp, err := s.Workspace.CreateDerivedToken(ctx, person(c), workspace.StreamScope(t.ID), turns.StreamTokenTTL)
	return turnStreamTokenDTO{StreamToken: token, ExpiresAt: exp, StreamURL: turnStreamURL(t.ID, token)}, err
}

// turnStreamURL is where a turn's frames are read with its stream token.
func turnStreamURL(turnID, token string) string {
	return "/api/assistant/turns/" + url.PathEscape(turnID) + "/stream?streamToken=" + url.QueryEscape(token)
}

func (s *Server) retryTurn(c *gin.Context) (any, error) {
	started, err := s.Turns.Retry(c.Request.Context(), person(c), c.Param("turnId"))
	return toTurnStartedDTO(started), err
}

// streamTurn sends a turn's frames as Server-Sent Events, from after Last-Event-ID until the
// done frame. A client that has them all gets 204 at once: that ends an EventSource's
// reconnect loop (docs/api.md).
func (s *Server) streamTurn(c *gin.Context) error {
	ctx := c.Request.Context()
	turnID := c.Param("turnId")
	p, err := s.streamPerson(c, workspace.StreamScope(turnID))
	if err != nil {
		return err
	}
	after, _, badAfter := lastEventID(c)
	if badAfter != nil {
		// Access still answers first (404 before 400), from a read of no frames.
		after = math.MaxInt64
	}
	// The follower joins before the frames are read, so none falls between the read and Follow
	// (stream.Follower); it leaves before any other answer. It is nil once shutting down (closed).
	follower, closed := s.Frames.Join(turnID)
	defer follower.Leave()
	turn, err := s.Chat.GetTurnForStream(ctx, p.ID, turnID, after)
	if err = cmp.Or(err, badAfter); err != nil {
		return err
	}
	tail := stream.TailOf(turn.Last, turn.Done, turn.FinishedAt)
	if tail.Delivered(after) {
		follower.Leave()
		c.Status(http.StatusNoContent)
		return nil
	}
	if closed != nil {
		// An empty stream, resumed elsewhere, as when Follow ends with ErrClosed.
		startSSE(c)
		c.Writer.Flush()
		return nil
	}
	frames := toDTOs(turn.Frames, func(f chat.StreamFrame) stream.Frame {
		return stream.Frame{Seq: f.Seq, Type: f.Type, Data: json.RawMessage(f.Data), CreatedAt: f.CreatedAt}
	})

	startSSE(c)
	defer s.metrics.sseOpen("turn")()
	c.Writer.Flush()
	write := func(f stream.Frame) error {
		_, err := fmt.Fprintf(c.Writer, "id: %d\nevent: %s\ndata: %s\n\n", f.Seq, f.Type, f.Data)
		return err
	}
	pumpSSE(ctx, c, s.untilRevoked(ctx, p.RootTokenID, nil), func(ctx context.Context, emit func(stream.Frame) error) error {
		delivered := after // ≤ tail.Last < MaxInt64: the numbers below cannot overflow
		err := follower.Follow(ctx, after, frames, tail, func(f stream.Frame) error {
			delivered = f.Seq
			return emit(f)
		})
		switch {
		case errors.Is(err, stream.ErrTurnGone):
			return emit(doneFrame(delivered+1, string(chat.StatusStopped), turn.ReplyMessageID, 0, 0, true, nil))
		case errors.Is(err, stream.ErrFramesSwept):
			// Its saved ending stands in for the done frame, numbered so a reconnect gets 204.
			ended, _, gerr := s.Chat.GetTurn(ctx, turnID)
			if gerr != nil {
				return gerr
			}
			now, terr := s.Frames.Tail(ctx, turnID)
			if terr != nil {
				return terr
			}
			// A reply deleted meanwhile names no records, and the stream still ends.
			var named []workspace.Ref
			if reply, rerr := s.Chat.GetMessage(ctx, ended.ReplyMessageID); rerr == nil {
				named = reply.Mentions
			}
			return emit(doneFrame(now.StandIn(delivered), string(ended.Status), ended.ReplyMessageID,
				ended.Usage.InputTokens, ended.Usage.OutputTokens, false, named))
		}
		return err
	}, write)
	return nil
}

// doneFrame is a done frame the api writes for a turn with none to send (docs/decisions.md):
// its conversation deleted while it ran (usage zero: its records are gone), or its frames
// swept (its ending as saved). named are the records the reply names.
func doneFrame(seq int64, status, replyMessageID string, inputTokens, outputTokens int, deleted bool, named []workspace.Ref) stream.Frame {
	d := doneFrameDTO{Status: status, MessageID: replyMessageID,
		Usage: usageDTO{InputTokens: inputTokens, OutputTokens: outputTokens}, Refs: toRefDTOs(named), Deleted: deleted}
	data, _ := json.Marshal(d) // strings, bools, ints and refs always encode
	return stream.Frame{Seq: seq, Type: stream.TypeDone, Data: data}
}
