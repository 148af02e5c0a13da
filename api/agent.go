package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/gin-gonic/gin"
	"go.temporal.io/api/serviceerror"

	"hub/chat"
	"hub/retrieval"
	"hub/stream"
	"hub/turns"
	"hub/workflows"
	"hub/workspace"
)

// controls are what each signal makes of a turn: its status, and for a stop or pause the status frame.
var controls = map[string]struct {
	status      chat.Status
	frame, text string
}{
	workflows.StopSignal:   {chat.StatusStopping, stream.StatusStopping, "Stopping…"},
	workflows.PauseSignal:  {chat.StatusPaused, stream.StatusPaused, "Paused"},
	workflows.ResumeSignal: {status: chat.StatusWorking},
}

// controlDTO is the turn's status right after a stop, pause or resume.
type controlDTO struct {
	Status string `json:"status"`
}

// controlAllDTO answers a stop, pause or resume of all the person's work.
type controlAllDTO struct {
	Status string `json:"status"`
	Turns  int    `json:"turns" doc:"How many turns were signalled."`
	// Indexing counts the files whose indexing Stop stopped.
	Indexing int `json:"indexing"`
	// Completions counts the completions signalled.
	Completions int `json:"completions"`
}

// controlTurn signals one of the person's turns; repeating is harmless, a finished turn is 409.
func (s *Server) controlTurn(signal string) replyFunc {
	return func(c *gin.Context) (any, error) {
		t, err := s.Chat.GetTurnFor(c.Request.Context(), person(c).ID, c.Param("turnId"))
		if err != nil {
			return nil, err
		}
		status, err := s.signalTurn(c, t, signal)
		return controlDTO{Status: string(status)}, err
	}
}

// signalTurn sends the durable signal, then closes the model call at once.
func (s *Server) signalTurn(c *gin.Context, t chat.Turn, signal string) (chat.Status, error) {
	ctx := c.Request.Context()
	if t.Status.Final() {
		return "", newError(http.StatusConflict, codeConflict, "", fmt.Sprintf("this turn already ended (%s)", t.Status))
	}
	if signal == workflows.ResumeSignal && t.Status != chat.StatusPaused {
		return t.Status, nil // nothing to resume
	}
	if err := s.signalWork(ctx, workflows.TurnWorkflowID(t.ID), "turn", signal); err != nil {
		return "", err
	}
	ctl := controls[signal]
	// The status first: a worker acts on an announced interrupt only while
	// the turn reads stopping or paused (chat.RecordInterrupt).
	if signal == workflows.ResumeSignal {
		return ctl.status, s.Chat.SetTurnStatus(ctx, t.ID, ctl.status, t.Step)
	}
	// The stream says so too (a Resume by the resumed call's "Resuming…").
	err := s.Chat.RecordInterrupt(ctx, t.ID, ctl.status, t.Step, func(ctx context.Context) error {
		_, err := s.Frames.Publish(ctx, t.ID, stream.TypeStatus, map[string]any{"status": ctl.frame, "step": t.Step, "text": ctl.text})
		return err
	})
	if err != nil {
		return "", err
	}
	// Close the model call now, here and (over the frame bus) in the worker
	// running it, only while the turn still reads stopping or paused: a
	// Resume and the call it started may have come in between.
	s.interruptNow(ctx, t.ID, func() (chat.Status, error) {
		cur, _, err := s.Chat.GetTurn(ctx, t.ID)
		return cur.Status, err
	})
	return ctl.status, nil
}

// signalWork sends a turn's or a completion's workflow (what) the durable
// signal: one that ended is 409, Temporal unreachable 503.
func (s *Server) signalWork(ctx context.Context, workflowID, what, signal string) error {
	err := s.Temporal.SignalWorkflow(ctx, workflowID, "", signal, nil)
	if _, ok := errors.AsType[*serviceerror.NotFound](err); ok {
		return newError(http.StatusConflict, codeConflict, "", "this "+what+" already ended")
	}
	if err != nil {
		return unavailable("Hub could not reach its workflow service; try again in a moment.")
	}
	return nil
}

// interruptNow closes the model call registered under key at once, here
// and (over the frame bus) in the worker running it, only while its work
// still reads stopping or paused: a Resume and the call it started may
// have come in between.
func (s *Server) interruptNow(ctx context.Context, key string, status func() (chat.Status, error)) {
	s.Interrupts.InterruptIf(key, func() bool {
		cur, err := status()
		return err == nil && (cur == chat.StatusStopping || cur == chat.StatusPaused)
	})
	if err := s.Frames.AnnounceInterrupt(ctx, key); err != nil {
		slog.WarnContext(ctx, "announce interrupt", "key", key, "error", err)
	}
}

// activityDTO is one piece of the person's running work, in the top bar and activity frames.
type activityDTO struct {
	ID             string    `json:"id"`
	Kind           string    `json:"kind"`
	ConversationID string    `json:"conversationId"`
	Status         string    `json:"status"`
	StartedAt      time.Time `json:"startedAt"`
	Title          string    `json:"title"`
	SpaceID        string    `json:"spaceId,omitempty" doc:"An indexing's space (its id is the file's), or a completion's."`
	Step           int       `json:"step,omitempty"`
	Ended          bool      `json:"ended,omitempty" doc:"The last frame of a turn or an Apply: it left the top bar."`
}

// toActivityDTO names an Apply by its workflow id, as the top bar always has.
func toActivityDTO(a chat.Work) activityDTO {
	id := a.ID
	if a.Kind == chat.WorkApply {
		id = workflows.ApplyWorkflowID(a.ID)
	}
	return activityDTO{ID: id, Kind: a.Kind, ConversationID: a.ConversationID, Status: string(a.Status),
		StartedAt: a.StartedAt, Title: a.Title, SpaceID: a.SpaceID, Step: a.Step, Ended: a.Ended}
}

// topBarDTO is what the top bar shows, and the snapshot that starts an activity stream.
type topBarDTO struct {
	Snapshot   bool          `json:"snapshot,omitempty" doc:"True on the frame that starts an activity stream."`
	Activities []activityDTO `json:"activities"`
	Paused     bool          `json:"paused" doc:"Every running turn is paused."`
}

func (s *Server) topBar(ctx context.Context, personID string) (topBarDTO, error) {
	acts, err := s.Chat.TopBar(ctx, personID)
	if err != nil {
		return topBarDTO{}, err
	}
	indexing, err := s.indexing(ctx, personID)
	if err != nil {
		return topBarDTO{}, err
	}
	for _, v := range indexing {
		status := chat.StatusQueued
		if v.Status == retrieval.StatusIndexing {
			status = chat.StatusWorking
		}
		acts = append(acts, chat.Work{Kind: chat.WorkIndexing, ID: v.FileID, SpaceID: v.SpaceID, Status: status,
			Title: "Indexing " + v.Name, StartedAt: v.CreatedAt})
	}
	turns, paused := 0, true
	for _, a := range acts {
		if chat.IsTurn(a.Kind) {
			turns++
			paused = paused && a.Status == chat.StatusPaused
		}
	}
	return topBarDTO{Activities: toDTOs(acts, toActivityDTO), Paused: turns > 0 && paused}, nil
}

// agentState is the top bar: the person's turns, replies whose writes wait for Apply,
// completions and files being indexed.
func (s *Server) agentState(c *gin.Context) (any, error) {
	return s.topBar(c.Request.Context(), person(c).ID)
}

// indexing lists the files the person uploaded that are queued or being
// indexed, in spaces they can still open.
func (s *Server) indexing(ctx context.Context, personID string) ([]retrieval.Version, error) {
	if s.Retrieval == nil {
		return nil, nil
	}
	return s.Retrieval.Waiting(ctx, personID, maxIndexingShown)
}

// maxIndexingShown bounds the files the top bar lists as being indexed.
const maxIndexingShown = 50

// controlAll sends a signal to every running turn and completion of the
// person; Stop also stops the indexing of the files they uploaded (the
// file is then failed, "indexing was stopped", and indexed again on
// request).
func (s *Server) controlAll(signal string) replyFunc {
	return func(c *gin.Context) (any, error) {
		ctx := c.Request.Context()
		turns, err := s.Chat.RunningTurns(ctx, person(c).ID)
		if err != nil {
			return nil, err
		}
		n := 0
		for _, t := range turns {
			if _, err := s.signalTurn(c, t.Turn, signal); err == nil {
				n++
			}
		}
		out := controlAllDTO{Status: string(controls[signal].status), Turns: n}
		completions, err := s.Chat.RunningCompletions(ctx, person(c).ID)
		if err != nil {
			return nil, err
		}
		for _, cmpl := range completions {
			if signal == workflows.ResumeSignal && cmpl.Status != chat.StatusPaused {
				continue
			}
			if _, err := s.signalCompletion(c, cmpl, signal); err == nil {
				out.Completions++
			}
		}
		if signal != workflows.StopSignal {
			return out, nil
		}
		indexing, err := s.indexing(ctx, person(c).ID)
		if err != nil {
			return nil, err
		}
		for _, v := range indexing {
			if err := s.Temporal.CancelWorkflow(ctx, workflows.IndexWorkflowID(v.FileID, v.Gen), ""); err == nil {
				out.Indexing++
			}
		}
		return out, nil
	}
}

// activityFrameDTO is an activity frame that reports one change.
type activityFrameDTO struct {
	Activity activityDTO `json:"activity"`
}

// agentStream is the person's activity stream: an `activity` event whenever any of their
// turns or Applies starts, changes status or ends. A new client first gets the top bar
// (snapshot: true), numbered with the person's latest frame; one that reconnects with
// Last-Event-ID gets the frames after it, or a new snapshot when they are gone or the number
// is not this stream's.
func (s *Server) agentStream(c *gin.Context) error {
	ctx := c.Request.Context()
	p, err := s.streamPerson(c, workspace.ActivityScope)
	if err != nil {
		return err
	}
	after, resume, err := lastEventID(c)
	if err != nil {
		return err
	}
	if resume {
		// Not 204 (this stream never ends): it would switch a browser's top bar off for good (docs/decisions.md).
		if resume, err = s.Chat.WorkResumes(ctx, p.ID, after); err != nil {
			return err
		}
	}
	var snapshot topBarDTO
	if !resume {
		// The head first, then the state: a change in between is sent
		// again after the snapshot (frames carry whole states), never lost.
		if after, err = s.Chat.WorkHead(ctx, p.ID); err != nil {
			return err
		}
		if snapshot, err = s.topBar(ctx, p.ID); err != nil {
			return err
		}
		snapshot.Snapshot = true
	}

	startSSE(c)
	defer s.metrics.sseOpen("activity")()
	if !resume && writeEvent(c, after, snapshot) != nil {
		return nil
	}
	c.Writer.Flush()

	// The frame bus closing (shutdown) ends the stream, as does its token being revoked or expiring.
	pumpSSE(ctx, c, s.untilRevoked(ctx, p.RootTokenID, s.Frames.Done()), func(ctx context.Context, emit func(chat.WorkFrame) error) error {
		return s.Chat.FollowWork(ctx, p.ID, after, emit)
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

// activityStreamToken makes a token that reads only the person's activity stream, for a
// browser's EventSource, which cannot send the Authorization header.
func (s *Server) activityStreamToken(c *gin.Context) (any, error) {
	token, exp, err := s.Workspace.CreateDerivedToken(c.Request.Context(), person(c), workspace.ActivityScope, turns.StreamTokenTTL)
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
