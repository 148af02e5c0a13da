package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"hub/chat"
	"hub/workspace"
)

// activityFrameDTO is an activity frame that reports one change.
type activityFrameDTO struct {
	Activity activityDTO `json:"activity"`
}

// agentStream is the person's activity stream: an `activity` event
// whenever any of the person's turns or Applies starts, changes status or
// ends. A new client first gets the top bar (snapshot: true), numbered
// with the person's latest frame; one that reconnects with Last-Event-ID
// gets the frames after it, or a new snapshot when they are no longer kept
// or the number is not one this stream gave out.
func (s *Server) agentStream(c *gin.Context) error {
	ctx := c.Request.Context()
	p, err := s.streamPerson(c, workspace.ActivityScope)
	if err != nil {
		return err
	}
	personID := p.ID
	after, resume, err := lastEventID(c)
	if err != nil {
		return err
	}
	if resume {
		// A number this stream never gave out gets a snapshot, not 204:
		// this stream never ends, and a 204 would switch a browser's top
		// bar off for good (docs/decisions.md).
		if resume, err = s.Chat.WorkResumes(ctx, personID, after); err != nil {
			return err
		}
	}
	var snapshot topBarDTO
	if !resume {
		// The head first, then the state: a change in between is sent
		// again after the snapshot (frames carry whole states), never lost.
		if after, err = s.Chat.WorkHead(ctx, personID); err != nil {
			return err
		}
		if snapshot, err = s.topBar(ctx, personID); err != nil {
			return err
		}
		snapshot.Snapshot = true
	}

	startSSE(c)
	defer s.metrics.sseOpen("activity")()
	if !resume {
		if err := writeEvent(c, after, snapshot); err != nil {
			return nil
		}
	}
	c.Writer.Flush()

	// The frame bus closing (the process shutting down) ends the stream, as
	// it does the turn streams; so does its token being revoked or expiring.
	pumpSSE(ctx, c, s.untilRevoked(ctx, p.RootTokenID, s.Frames.Done()), func(ctx context.Context, emit func(chat.WorkFrame) error) error {
		return s.Chat.FollowWork(ctx, personID, after, emit)
	}, func(f chat.WorkFrame) error {
		return writeEvent(c, f.Seq, activityFrameDTO{Activity: toActivityDTO(f.Work)})
	})
	return nil
}

type activityTokenDTO struct {
	StreamToken string    `json:"streamToken"`
	StreamURL   string    `json:"streamUrl"`
	ExpiresAt   time.Time `json:"expiresAt" doc:"Checked when a connection opens: an open stream outlives it (not the token it was made with: revoked or expired, the stream ends within seconds). Never later than that token's expiry."`
}

// activityStreamToken makes a token that reads only the person's activity
// stream, for a browser's EventSource, which cannot send the Authorization
// header.
func (s *Server) activityStreamToken(c *gin.Context) (any, error) {
	token, exp, err := s.Workspace.CreateDerivedToken(c.Request.Context(), person(c), workspace.ActivityScope, s.StreamTokenTTL)
	return activityTokenDTO{StreamToken: token, StreamURL: "/api/agent/stream?streamToken=" + url.QueryEscape(token), ExpiresAt: exp}, err
}

// writeEvent writes one activity event.
func writeEvent(c *gin.Context, seq int64, data any) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(c.Writer, "id: %d\nevent: activity\ndata: %s\n\n", seq, raw)
	return err
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
