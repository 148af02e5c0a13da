package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"hub/chat"
	"hub/stream"
	"hub/workspace"
)

// sseKeepAlive: a comment line this often keeps proxies from closing a
// quiet stream while the model thinks.
const sseKeepAlive = 15 * time.Second

// streamTurn sends a turn's frames as Server-Sent Events, from after
// Last-Event-ID until the done frame. A client that has everything the turn
// will send gets 204 No Content at once: that is what ends an EventSource's
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
		// The turn's access still answers first (404 before 400), from a
		// read of no frames.
		after = math.MaxInt64
	}
	// The follower is registered before the turn's frames are read, so none
	// falls between the read and Follow (stream.Follower); it leaves before
	// any other answer is written. follower is nil once this process is
	// shutting down (closed).
	follower, closed := s.Frames.Join(turnID)
	defer follower.Leave()
	turn, err := s.Chat.GetTurnForStream(ctx, p.ID, turnID, after)
	if err == nil {
		err = badAfter
	}
	if err != nil {
		return err
	}
	tail := stream.TailOf(turn.Last, turn.Done, turn.FinishedAt)
	if tail.Delivered(after) {
		follower.Leave()
		c.Status(http.StatusNoContent)
		return nil
	}
	if closed != nil {
		// An empty stream, which the client resumes elsewhere, as one that
		// Follow ended with ErrClosed.
		startSSE(c)
		c.Writer.Flush()
		return nil
	}
	frames := make([]stream.Frame, len(turn.Frames))
	for i, f := range turn.Frames {
		frames[i] = stream.Frame{Seq: f.Seq, Type: f.Type, Data: json.RawMessage(f.Data), CreatedAt: f.CreatedAt}
	}

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
			// Its saved ending stands in for the done frame, numbered so that
			// a reconnect after it gets 204.
			ended, _, gerr := s.Chat.GetTurn(ctx, turnID)
			if gerr != nil {
				return gerr
			}
			now, terr := s.Frames.Tail(ctx, turnID)
			if terr != nil {
				return terr
			}
			// A reply that cannot be read (deleted meanwhile) names no
			// records, and the stream still ends.
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

// doneFrame is a done frame the api writes itself, for a turn that has none
// to send (docs/decisions.md): one whose conversation was deleted while it
// ran (usage zero: its records are gone), or one whose frames were swept
// (its ending as saved). named are the records the reply names.
func doneFrame(seq int64, status, replyMessageID string, inputTokens, outputTokens int, deleted bool, named []workspace.Ref) stream.Frame {
	d := doneFrameDTO{Status: status, MessageID: replyMessageID,
		Usage: usageDTO{InputTokens: inputTokens, OutputTokens: outputTokens}, Refs: toRefDTOs(named), Deleted: deleted}
	data, _ := json.Marshal(d) // strings, bools, ints and refs always encode
	return stream.Frame{Seq: seq, Type: stream.TypeDone, Data: data}
}
