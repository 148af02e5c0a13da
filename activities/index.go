package activities

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"hub/chat"
	"hub/retrieval"
)

// ErrTypeUnextractable is the type of the error PrepareIndex fails with
// when a file's text cannot be extracted: a retry cannot mend it, and its
// message says why in words the file list shows.
const ErrTypeUnextractable = "unextractable"

// IndexInput names one version of a file to index.
type IndexInput struct {
	FileID string
	Gen    int
}

// IndexPlan is what PrepareIndex left for the next steps.
type IndexPlan struct {
	Chunks int
	// NeedVectors counts the chunks an embeddings model must embed: those
	// whose text the space had no vector of.
	NeedVectors int
	// Stale: the file was replaced or deleted; the run ends.
	Stale bool
}

// PrepareIndex reads a file version's bytes, extracts its text, cuts it
// into chunks and saves them as drafts; the uploader's top bar shows the
// file being indexed. A retry does it all again and replaces the drafts,
// so an attempt killed half way leaves nothing behind.
func (a *Activities) PrepareIndex(ctx context.Context, in IndexInput) (IndexPlan, error) {
	defer heartbeating(ctx)()
	var v retrieval.Version
	err := a.Workspace.InTx(ctx, func(ctx context.Context) error {
		var err error
		if v, err = a.Retrieval.Begin(ctx, in.FileID, in.Gen); err != nil {
			return err
		}
		return a.Chat.AnnounceIndexing(ctx, v.UploaderID, indexingWork(v, false))
	})
	if errors.Is(err, retrieval.ErrStale) {
		return IndexPlan{Stale: true}, nil
	}
	if err != nil {
		return IndexPlan{}, err
	}
	data, err := a.Files.Content(ctx, v.FileID)
	if err != nil {
		return IndexPlan{}, fmt.Errorf("read the file: %w", err)
	}
	doc, err := retrieval.Extract(ctx, v.ContentType, data)
	if err != nil {
		var ue *retrieval.UnreadableError
		if errors.As(err, &ue) {
			return IndexPlan{}, temporal.NewNonRetryableApplicationError(ue.Error(), ErrTypeUnextractable, nil)
		}
		return IndexPlan{}, err
	}
	chunks := retrieval.Chunks(doc)
	need, err := a.Retrieval.SaveDrafts(ctx, v, chunks, a.Retrieval.EmbeddingsModel())
	if errors.Is(err, retrieval.ErrStale) {
		return IndexPlan{Stale: true}, nil
	}
	if err != nil {
		return IndexPlan{}, err
	}
	return IndexPlan{Chunks: len(chunks), NeedVectors: need}, nil
}

// EmbedIndex embeds a file version's drafts, one request of up to 64 at a
// time, heartbeating between them so a retry goes on from the drafts
// still without a vector.
func (a *Activities) EmbedIndex(ctx context.Context, in IndexInput) error {
	defer heartbeating(ctx)()
	for {
		if n, err := a.Retrieval.EmbedBatch(ctx, in.FileID, in.Gen); err != nil || n == 0 {
			return err
		}
	}
}

// heartbeating heartbeats every HeartbeatInterval while an indexing step
// runs, so a killed worker's step is retried within seconds; the returned
// func stops it.
func heartbeating(ctx context.Context) (stop func()) {
	if !activity.IsActivity(ctx) {
		return func() {}
	}
	return heartbeatWhileWaiting(ctx, 0, func(int) { activity.RecordHeartbeat(ctx) })
}

// PublishIndex makes the drafts the file's passages in one transaction,
// which also ends the file's entry in the top bar. A file changed
// meanwhile publishes nothing.
func (a *Activities) PublishIndex(ctx context.Context, in IndexInput) error {
	return a.endIndexing(ctx, in, func(ctx context.Context) error { return a.Retrieval.Publish(ctx, in.FileID, in.Gen) })
}

// FailIndex marks a file version failed with why.
func (a *Activities) FailIndex(ctx context.Context, in IndexInput, why string) error {
	return a.endIndexing(ctx, in, func(ctx context.Context) error { return a.Retrieval.Fail(ctx, in.FileID, in.Gen, why) })
}

// endIndexing runs end and ends the file's top-bar entry in one
// transaction; a file gone or replaced meanwhile is not an error.
func (a *Activities) endIndexing(ctx context.Context, in IndexInput, end func(ctx context.Context) error) error {
	err := a.Workspace.InTx(ctx, func(ctx context.Context) error {
		if err := end(ctx); err != nil {
			return err
		}
		v, err := a.Retrieval.Version(ctx, in.FileID)
		if err != nil {
			return err
		}
		return a.Chat.AnnounceIndexing(ctx, v.UploaderID, indexingWork(v, true))
	})
	if errors.Is(err, retrieval.ErrStale) {
		return nil
	}
	return err
}

// indexingWork is a file's indexing as the top bar shows it.
func indexingWork(v retrieval.Version, ended bool) chat.Work {
	return chat.Work{ID: v.FileID, SpaceID: v.SpaceID, Status: chat.StatusWorking, Title: "Indexing " + v.Name,
		StartedAt: v.CreatedAt, Ended: ended}
}
