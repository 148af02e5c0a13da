package api

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/gin-gonic/gin"

	"hub/chat"
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
func (s *Server) agentStream(c *gin.Context) {
	ctx := c.Request.Context()
	personID := person(c).ID
	after, resume, err := lastEventID(c)
	if err != nil {
		respondError(c, err)
		return
	}
	if resume {
		if resume, err = s.Chat.ActivityResumes(ctx, personID, after); err != nil {
			respondError(c, err)
			return
		}
	}
	var snapshot topBarDTO
	if !resume {
		// The head first, then the state: a change in between is sent
		// again after the snapshot (harmless: frames carry whole states),
		// never lost.
		if after, err = s.Chat.ActivityHead(ctx, personID); err != nil {
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
	if !resume {
		if err := writeEvent(c, after, snapshot); err != nil {
			return
		}
	}
	c.Writer.Flush()

	// The frame bus closing is how an api process shutting down ends its
	// SSE streams (so the server drains at once and clients resume
	// elsewhere); the activity stream ends with the turn streams.
	pumpSSE(ctx, c, s.Frames.Done(), func(ctx context.Context, emit func(chat.ActivityFrame) error) error {
		return s.Chat.FollowActivity(ctx, personID, after, emit)
	}, func(f chat.ActivityFrame) error {
		return writeEvent(c, f.Seq, activityFrameDTO{Activity: toActivityDTO(f.Activity)})
	})
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
// is none.
func lastEventID(c *gin.Context) (after int64, resume bool, err error) {
	last := c.GetHeader("Last-Event-ID")
	if last == "" {
		last = c.Query("lastEventId")
	}
	if last == "" {
		return 0, false, nil
	}
	n, perr := strconv.ParseInt(last, 10, 64)
	if perr != nil || n < 0 {
		return 0, false, badRequest("/lastEventId", "Last-Event-ID must be a frame number")
	}
	return n, true, nil
}
