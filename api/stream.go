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
// Last-Event-ID (header, or lastEventId query parameter), until the done
// frame. It takes the bearer header, or the turn's stream token in the URL.
//
// A client that has everything the turn will send (its done frame, or a
// number beyond the turn's last frame) gets 204 No Content at once: that
// is what ends an EventSource's reconnect loop (docs/api.md).
func (s *Server) streamTurn(c *gin.Context) {
	ctx := c.Request.Context()
	turnID := c.Param("turnId")
	p, err := s.streamPerson(c, workspace.StreamScope(turnID))
	if err != nil {
		respondError(c, err)
		return
	}
	after, _, badAfter := lastEventID(c)
	if badAfter != nil {
		// Not a frame number: the turn's access still answers first (404
		// before 400), from a read of no frames.
		after = math.MaxInt64
	}
	// The follower is registered before the turn's frames are read, so a
	// frame committed after the read is handed over to it (or wakes it):
	// none falls between the read and Follow (stream.Follower). It leaves
	// before any other answer is written. Join fails only once this
	// process is shutting down (stream.ErrClosed); follower is then nil.
	follower, closed := s.Frames.Join(turnID)
	defer follower.Leave()
	// The turn, the person's access to it, where its frames stand and its
	// frames after `after`, in one read.
	turn, err := s.Chat.GetTurnForStream(ctx, p.ID, turnID, after)
	if err == nil {
		err = badAfter
	}
	if err != nil {
		follower.Leave()
		respondError(c, err)
		return
	}
	tail := stream.TailOf(turn.Last, turn.Done, turn.FinishedAt)
	if tail.Delivered(after) {
		follower.Leave()
		c.Status(http.StatusNoContent)
		return
	}
	if closed != nil {
		// An empty stream, which the client resumes elsewhere with
		// Last-Event-ID, as one that Follow ended with ErrClosed.
		startSSE(c)
		c.Writer.Flush()
		return
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
		// delivered ≤ tail.Last < MaxInt64 here (not Delivered), so the
		// numbers below cannot overflow.
		delivered := after
		err := follower.Follow(ctx, after, frames, tail, func(f stream.Frame) error {
			delivered = f.Seq
			return emit(f)
		})
		switch {
		case errors.Is(err, stream.ErrTurnGone):
			return emit(doneFrame(delivered+1, string(chat.StatusStopped), turn.ReplyMessageID, 0, 0, true, nil))
		case errors.Is(err, stream.ErrFramesSwept):
			// It ended long ago: its saved ending stands in for the done
			// frame, numbered so that a reconnect after it gets 204.
			ended, _, gerr := s.Chat.GetTurn(ctx, turnID)
			if gerr != nil {
				return gerr
			}
			now, terr := s.Frames.Tail(ctx, turnID)
			if terr != nil {
				return terr
			}
			// The records the reply names; a reply that cannot be read
			// (deleted meanwhile) names none, and the stream still ends.
			var named []workspace.Ref
			if reply, rerr := s.Chat.GetMessage(ctx, ended.ReplyMessageID); rerr == nil {
				named = reply.Mentions
			}
			return emit(doneFrame(now.StandIn(delivered), string(ended.Status), ended.ReplyMessageID,
				ended.Usage.InputTokens, ended.Usage.OutputTokens, false, named))
		}
		return err
	}, write)
}

// doneFrame is a done frame the api writes itself, for a turn that has no
// done frame to send (docs/decisions.md): one whose conversation was
// deleted while it ran (deleted; it stopped, as the activity stream says,
// and usage is zero because the records it was counted from are gone), or
// one that ended so long ago that its frames were swept (its ending as
// saved). seq is its number: after the last frame the client has, or for
// a swept turn the number its own done frame had (stream.Tail.StandIn).
// named are the records the reply names (its saved mentions).
func doneFrame(seq int64, status, replyMessageID string, inputTokens, outputTokens int, deleted bool, named []workspace.Ref) stream.Frame {
	d := doneFrameDTO{Status: status, MessageID: replyMessageID,
		Usage: usageDTO{InputTokens: inputTokens, OutputTokens: outputTokens}, Refs: toRefDTOs(named), Deleted: deleted}
	data, _ := json.Marshal(d) // strings, bools, ints and refs always encode
	return stream.Frame{Seq: seq, Type: stream.TypeDone, Data: data}
}
