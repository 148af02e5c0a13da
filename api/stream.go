package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"hub/hub"
	"hub/stream"
)

// sseKeepAlive: a comment line this often keeps proxies from closing a
// quiet stream while the model thinks.
const sseKeepAlive = 15 * time.Second

// streamTurn sends a turn's frames as Server-Sent Events, from after
// Last-Event-ID (header, or lastEventId query parameter), until the done
// frame. It takes the bearer header or the turn's stream token.
func (s *Server) streamTurn(c *gin.Context) {
	ctx := c.Request.Context()
	turnID := c.Param("turnId")
	token := bearer(c)
	if token == "" {
		token = c.Query("streamToken")
	}
	p, err := s.Hub.Authenticate(ctx, token, hub.StreamScope(turnID))
	if err != nil {
		respondError(c, err)
		return
	}
	turn, err := s.Chat.GetTurnFor(ctx, p.ID, turnID)
	if err != nil {
		respondError(c, err)
		return
	}
	after := int64(0)
	last := c.GetHeader("Last-Event-ID")
	if last == "" {
		last = c.Query("lastEventId")
	}
	if last != "" {
		n, err := strconv.ParseInt(last, 10, 64)
		if err != nil || n < 0 {
			respondError(c, badRequest("/lastEventId", "Last-Event-ID must be a frame number"))
			return
		}
		after = n
	}

	startSSE(c)
	c.Writer.Flush()
	pumpSSE(ctx, c, nil, func(ctx context.Context, emit func(stream.Frame) error) error {
		delivered := after
		err := s.Frames.Follow(ctx, turnID, after, func(f stream.Frame) error {
			delivered = f.Seq
			return emit(f)
		})
		if errors.Is(err, stream.ErrTurnGone) {
			return emit(deletedDone(delivered, turn.ReplyMessageID))
		}
		return err
	}, func(f stream.Frame) error {
		_, err := fmt.Fprintf(c.Writer, "id: %d\nevent: %s\ndata: %s\n\n", f.Seq, f.Type, f.Data)
		return err
	})
}

// deletedDone is the done frame that ends the stream of a turn whose
// conversation was deleted while it ran (docs/decisions.md): the turn has
// no done frame of its own and never will, and a client waits for one.
// It is numbered after the turn's last frame (no frame can take that
// number any more) and says the turn stopped, as the activity stream does;
// deleted tells the client why, and usage is zero because the records it
// was counted from are gone.
func deletedDone(last int64, replyMessageID string) stream.Frame {
	data, _ := json.Marshal(map[string]any{ // a map of strings, bools and ints always encodes
		"status": "stopped", "messageId": replyMessageID, "deleted": true,
		"usage": map[string]int{"inputTokens": 0, "outputTokens": 0},
	})
	return stream.Frame{Seq: last + 1, Type: stream.TypeDone, Data: data}
}
