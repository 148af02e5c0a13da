package api

import (
	"context"
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
	if _, err := s.Chat.GetTurnFor(ctx, p.ID, turnID); err != nil {
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
		return s.Frames.Follow(ctx, turnID, after, emit)
	}, func(f stream.Frame) error {
		_, err := fmt.Fprintf(c.Writer, "id: %d\nevent: %s\ndata: %s\n\n", f.Seq, f.Type, f.Data)
		return err
	})
}
