package activities

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"

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
	// Stale: the file was replaced or deleted; the run ends.
	Stale bool
}

// PrepareIndex reads a file version's bytes, extracts its text, cuts it
// into chunks and saves them as drafts. A retry does it all again and
// replaces the drafts, so an attempt killed half way leaves nothing behind.
func (a *Activities) PrepareIndex(ctx context.Context, in IndexInput) (IndexPlan, error) {
	f, err := a.Retrieval.Begin(ctx, in.FileID, in.Gen)
	if errors.Is(err, retrieval.ErrStale) {
		return IndexPlan{Stale: true}, nil
	}
	if err != nil {
		return IndexPlan{}, err
	}
	data, err := a.Files.Content(ctx, f.FileID)
	if err != nil {
		return IndexPlan{}, fmt.Errorf("read the file: %w", err)
	}
	doc, err := retrieval.Extract(ctx, f.ContentType, data)
	if err != nil {
		var ue *retrieval.UnreadableError
		if errors.As(err, &ue) {
			return IndexPlan{}, temporal.NewNonRetryableApplicationError(ue.Error(), ErrTypeUnextractable, nil)
		}
		return IndexPlan{}, err
	}
	chunks := retrieval.Chunks(doc)
	if _, err := a.Retrieval.SaveDrafts(ctx, f, chunks, ""); err != nil {
		return IndexPlan{}, err
	}
	return IndexPlan{Chunks: len(chunks)}, nil
}

// PublishIndex makes the drafts the file's passages in one transaction.
// A file changed meanwhile publishes nothing.
func (a *Activities) PublishIndex(ctx context.Context, in IndexInput) error {
	if err := a.Retrieval.Publish(ctx, in.FileID, in.Gen); err != nil && !errors.Is(err, retrieval.ErrStale) {
		return err
	}
	return nil
}

// FailIndex marks a file version failed with why.
func (a *Activities) FailIndex(ctx context.Context, in IndexInput, why string) error {
	return a.Retrieval.Fail(ctx, in.FileID, in.Gen, why)
}
