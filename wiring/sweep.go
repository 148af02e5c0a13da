package wiring

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"hub/stream"
	"hub/workflows"
	"hub/workspace"
)

// SweepInterval is how often the sweeper runs in `hub worker` and `hub dev`.
const SweepInterval = time.Minute

// maxEmbedBatchesASweep bounds the embeddings requests of one sweep (64
// passages each), so a change of model is caught up over several sweeps.
const maxEmbedBatchesASweep = 50

// Swept counts what one sweep removed or expired.
type Swept struct {
	Frames    int64 // frames of turns that ended more than stream.Retention ago
	Tokens    int64 // expired tokens (every turn makes a stream token)
	Proposals int64 // held writes older than the proposal TTL
	Changes   int64 // change log rows older than workspace.ChangeLogRetention
	// Reservations are model calls' budget reservations that never settled
	// (a killed worker) and are older than any call can take, plus a margin.
	Reservations int64
	// Indexing are files queued or being indexed whose indexing the sweep
	// started (one whose start failed, or whose run was terminated) or found
	// still running (workflows.StartIndex never starts one twice).
	Indexing int64
	// Embedded are published passages embedded by the current embeddings
	// model: after its endpoint failed, or the model changed.
	Embedded int64
}

// Sweep runs one sweep as of now: what Swept counts. One part's failure
// does not stop the others; the error joins them. Sweeps of one Hub never
// overlap.
func (h *Hub) Sweep(ctx context.Context, now time.Time) (Swept, error) {
	h.sweepMu.Lock()
	defer h.sweepMu.Unlock()
	var s Swept
	var errs []error
	var err error
	if s.Frames, err = h.Frames.Sweep(ctx, now.Add(-stream.Retention)); err != nil {
		errs = append(errs, fmt.Errorf("sweep frames: %w", err))
	}
	if s.Tokens, err = h.Workspace.DeleteExpiredTokens(ctx); err != nil {
		errs = append(errs, fmt.Errorf("delete expired tokens: %w", err))
	}
	if s.Proposals, err = h.Chat.ExpireHeld(ctx, now.Add(-h.Config.ProposalTTL)); err != nil {
		errs = append(errs, fmt.Errorf("expire proposals: %w", err))
	}
	if s.Changes, err = h.Workspace.DeleteChangesBefore(ctx, now.Add(-workspace.ChangeLogRetention)); err != nil {
		errs = append(errs, fmt.Errorf("sweep change log: %w", err))
	}
	reservationTTL := h.Activities.ModelTimeout + 5*time.Minute
	if s.Reservations, err = h.Usage.ReleaseStale(ctx, now.Add(-reservationTTL)); err != nil {
		errs = append(errs, fmt.Errorf("release stale reservations: %w", err))
	}
	if err := h.restartIndexing(ctx, &s); err != nil {
		errs = append(errs, err)
	}
	for range maxEmbedBatchesASweep {
		n, err := h.Retrieval.EmbedBatch(ctx, "", 0)
		if err != nil {
			errs = append(errs, fmt.Errorf("embed passages: %w", err))
		}
		if s.Embedded += int64(n); err != nil || n == 0 {
			break
		}
	}
	return s, errors.Join(errs...)
}

// restartIndexing starts the indexing of waiting files, with the first
// worker's client (none yet: nothing to do).
func (h *Hub) restartIndexing(ctx context.Context, s *Swept) error {
	c := h.starter.Load()
	if c == nil {
		return nil
	}
	waiting, err := h.Retrieval.Waiting(ctx, "", 500)
	if err != nil {
		return err
	}
	for _, w := range waiting {
		if err := workflows.StartIndex(ctx, *c, h.Config.TaskQueue, w.FileID, w.Gen); err != nil {
			return fmt.Errorf("start indexing %s: %w", w.FileID, err)
		}
		s.Indexing++
	}
	return nil
}

// RunSweeper sweeps every SweepInterval until ctx ends, logging what fails;
// the first sweep is one interval after the start.
func (h *Hub) RunSweeper(ctx context.Context) {
	now := h.test.Now
	if now == nil {
		now = time.Now
	}
	t := time.NewTicker(cmp.Or(h.test.SweepEvery, SweepInterval))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := h.Sweep(ctx, now()); err != nil && ctx.Err() == nil {
				slog.WarnContext(ctx, "sweep", "error", err)
			}
		}
	}
}
