package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
)

// sseKeepAlive: a comment this often keeps proxies from closing a stream while the model thinks.
const sseKeepAlive = 15 * time.Second

// startSSE writes an event stream's headers and lifts its read deadline, which would end it.
func startSSE(c *gin.Context) {
	_ = http.NewResponseController(c.Writer).SetReadDeadline(time.Time{})
	h := c.Writer.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no")
	c.Status(http.StatusOK)
}

// pumpSSE writes with write each event follow emits, and a keep-alive every
// Limits.SSEKeepAlive, until follow ends, the client leaves, or stop is closed. It returns
// once follow has, so no goroutine outlives the request.
func pumpSSE[T any](ctx context.Context, c *gin.Context, stop <-chan struct{}, follow func(ctx context.Context, emit func(T) error) error, write func(T) error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	every, ok := ctx.Value(keepAliveKey{}).(time.Duration)
	if !ok || every <= 0 {
		every = sseKeepAlive
	}
	keep := time.NewTicker(every)
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
	for {
		var err error
		select {
		case e := <-events:
			err = write(e)
		case <-keep.C:
			_, err = fmt.Fprint(c.Writer, ": keep-alive\n\n")
		case <-stop:
			err = context.Canceled
		case <-errc:
			return
		}
		if err != nil {
			cancel()
			<-errc
			return
		}
		c.Writer.Flush()
	}
}

// credentialRecheck: how often a stream rechecks its token (docs/decisions.md, "A revoked token's open streams").
const credentialRecheck = 2 * time.Second

// untilRevoked is a channel that closes when also closes (nil: never) or
// when the token rootTokenID (workspace.Person.RootTokenID; "": none) is
// revoked or expires, checked every credentialRecheck until ctx ends.
func (s *Server) untilRevoked(ctx context.Context, rootTokenID string, also <-chan struct{}) <-chan struct{} {
	if rootTokenID == "" {
		return also
	}
	out := make(chan struct{})
	go func() {
		t := time.NewTicker(credentialRecheck)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-also:
				close(out)
				return
			case <-t.C:
				alive, err := s.Workspace.TokenAlive(ctx, rootTokenID)
				if err != nil {
					// A failed read keeps the stream: the next tick asks again.
					if ctx.Err() == nil {
						slog.WarnContext(ctx, "recheck stream token", "error", err)
					}
					continue
				}
				if !alive {
					close(out)
					return
				}
			}
		}
	}()
	return out
}

// lastEventID reads Last-Event-ID (the header, or the lastEventId query
// parameter); resume is false when there is none. A number too large for
// 64 bits reads as the largest one, beyond any stream's last frame (never
// wrapped to a negative id). Anything but a decimal number ≥ 0 is 400.
func lastEventID(c *gin.Context) (after int64, resume bool, err error) {
	last := c.GetHeader("Last-Event-ID")
	if last == "" {
		last = c.Query("lastEventId")
	}
	if last == "" {
		return 0, false, nil
	}
	n, perr := strconv.ParseInt(last, 10, 64)
	if errors.Is(perr, strconv.ErrRange) && n == math.MaxInt64 {
		perr = nil
	}
	if perr != nil || n < 0 || last[0] == '+' {
		return 0, false, badRequest("/lastEventId", "Last-Event-ID must be a frame number (a decimal number from 0)")
	}
	return n, true, nil
}
