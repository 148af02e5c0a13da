package api

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
)

// startSSE writes the headers of an event stream and lifts its read
// deadline (Limits: it would end the stream).
func startSSE(c *gin.Context) {
	endReadDeadline(c.Writer)
	h := c.Writer.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no")
	c.Status(http.StatusOK)
}

// pumpSSE runs follow, which hands each event to emit, and writes each one
// with write, with a keep-alive comment every Limits.SSEKeepAlive, until
// follow ends, the client leaves, or stop is closed. It returns once follow
// has returned, so no goroutine outlives the request.
func pumpSSE[T any](ctx context.Context, c *gin.Context, stop <-chan struct{}, follow func(ctx context.Context, emit func(T) error) error, write func(T) error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	keep := time.NewTicker(keepAliveEvery(ctx))
	defer keep.Stop()
	events := make(chan T)
	errc := make(chan error, 1)
	go func() {
		errc <- follow(ctx, func(e T) error {
			select {
			case events <- e:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	end := func() {
		cancel()
		<-errc
	}
	for {
		select {
		case e := <-events:
			if err := write(e); err != nil {
				end()
				return
			}
			c.Writer.Flush()
		case <-keep.C:
			if _, err := fmt.Fprint(c.Writer, ": keep-alive\n\n"); err != nil {
				end()
				return
			}
			c.Writer.Flush()
		case <-stop:
			end()
			return
		case <-errc:
			return
		}
	}
}
