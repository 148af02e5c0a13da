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

// agentStream is the person's activity stream (GET /api/agent/stream):
// Server-Sent Events of type `activity`, one whenever any of the person's
// turns or Applies starts, changes status or ends, never anyone else's.
//
// A new client first gets the top bar as it is now (the answer of
// /api/agent/state with "snapshot": true), numbered with the person's
// latest frame, then every later change. A client that reconnects with
// Last-Event-ID gets the frames after it, with no gap and no repeat; if
// they are no longer kept (10 minutes) or the number is not one this
// stream gave out, it gets a new snapshot instead.
//
// It authenticates itself (see streamPerson): the bearer header, or in
// ?streamToken= a token from POST /api/agent/stream-token.
func (s *Server) agentStream(c *gin.Context) {
	ctx := c.Request.Context()
	p, err := s.streamPerson(c, workspace.ActivityScope)
	if err != nil {
		respondError(c, err)
		return
	}
	personID := p.ID
	after, resume, err := lastEventID(c)
	if err != nil {
		respondError(c, err)
		return
	}
	if resume {
		// A number beyond the person's latest frame (up to 2^63-1) is one
		// this stream never gave out: it gets a snapshot, numbered with the
		// latest frame, not 204 — this stream never ends, and a 204 would
		// switch a browser's top bar off for good (docs/decisions.md).
		if resume, err = s.Chat.WorkResumes(ctx, personID, after); err != nil {
			respondError(c, err)
			return
		}
	}
	var snapshot topBarDTO
	if !resume {
		// The head first, then the state: a change in between is sent
		// again after the snapshot (harmless: frames carry whole states),
		// never lost.
		if after, err = s.Chat.WorkHead(ctx, personID); err != nil {
			respondError(c, err)
			return
		}
		if snapshot, err = s.topBar(ctx, personID); err != nil {
			respondError(c, err)
			return
		}
		snapshot.Snapshot = true
	}

	startSSE(c)
	defer s.metrics.sseOpen("activity")()
	if !resume {
		if err := writeEvent(c, after, snapshot); err != nil {
			return
		}
	}
	c.Writer.Flush()

	// The frame bus closing is how an api process shutting down ends its
	// SSE streams (so the server drains at once and clients resume
	// elsewhere); the activity stream ends with the turn streams. It ends
	// too when the token it was opened with is revoked or expires.
	pumpSSE(ctx, c, s.untilRevoked(ctx, p.RootTokenID, s.Frames.Done()), func(ctx context.Context, emit func(chat.WorkFrame) error) error {
		return s.Chat.FollowWork(ctx, personID, after, emit)
	}, func(f chat.WorkFrame) error {
		return writeEvent(c, f.Seq, activityFrameDTO{Activity: toActivityDTO(f.Work)})
	})
}

// activityTokenDTO answers POST /api/agent/stream-token.
type activityTokenDTO struct {
	StreamToken string    `json:"streamToken"`
	StreamURL   string    `json:"streamUrl"`
	ExpiresAt   time.Time `json:"expiresAt" doc:"Checked when a connection opens: an open stream outlives it (not the token it was made with: revoked or expired, the stream ends within seconds). Never later than that token's expiry."`
}

// activityStreamToken makes a token that reads only the person's activity
// stream (POST /api/agent/stream-token), for a browser's EventSource,
// which cannot send the Authorization header. It is valid for
// StreamTokenTTL; it is checked when a connection opens, so an open
// stream outlives it, and a client whose reconnect is refused asks again.
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
// parameter for clients that cannot set it); resume is false when there
// is none. A number too large for 64 bits reads as the largest one: it is
// beyond any stream's last frame, like every number past it, and is
// answered as such (never wrapped to a negative id). Anything but a
// decimal number ≥ 0 is 400.
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
