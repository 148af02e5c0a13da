package wiring

import (
	"context"
	"log/slog"
	"time"

	"go.temporal.io/sdk/client"

	"hub/chat"
	"hub/workflows"
	"hub/workspace"
)

// followLeavers makes the aftermath of every removal from a space one path,
// however the removal was made (a route, an applied tool call, an Undo). It
// subscribes once to the changes this process commits.
func (h *Hub) followLeavers(c client.Client) {
	h.leaversOnce.Do(func() {
		h.Workspace.Subscribe(func(ch workspace.Change) {
			if ch.Kind != workspace.KindPerson || ch.Op != workspace.OpDeleted {
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			endWorkOfLeaver(ctx, h.Chat, c, ch.SpaceID, ch.ID)
		})
	})
}

// endWorkOfLeaver ends a removed person's work in the space: their top bar
// drops it, and their running turns end at their next step as forbidden
// (the activities check access at every step). A paused one is resumed to
// get there now, since its person can no longer resume or stop it.
func endWorkOfLeaver(ctx context.Context, store *chat.Store, c client.Client, spaceID, personID string) {
	if err := store.AnnounceLeft(ctx, personID, spaceID); err != nil {
		slog.WarnContext(ctx, "announce a removed member's work as ended", "space", spaceID, "person", personID, "error", err)
	}
	turns, err := store.UnfinishedTurnsIn(ctx, personID, spaceID)
	if err != nil {
		slog.WarnContext(ctx, "running turns of a removed member", "space", spaceID, "person", personID, "error", err)
	}
	for _, t := range turns {
		if t.Status != chat.StatusPaused {
			continue
		}
		if err := c.SignalWorkflow(ctx, workflows.TurnWorkflowID(t.ID), "", workflows.ResumeSignal, nil); err != nil {
			slog.InfoContext(ctx, "resume a removed member's paused turn", "turn", t.ID, "error", err)
		}
	}
}
