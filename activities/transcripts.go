package activities

import (
	"context"
	"slices"
	"strings"
	"sync"

	"hub/chat"
)

// maxTranscripts bounds how many turns' messages a worker keeps: more
// than the turns one worker runs at once, so a running turn's steps find
// theirs; an evicted turn reads them again.
const maxTranscripts = 512

// transcripts keeps, per turn run, the person's message and the history
// before it, read once by the turn's first activity on this worker and
// reused by its later steps (every model call, every tool call's titles,
// the ending) instead of two reads each. Both are fixed for a turn: the
// message is the turn's own, and the history is earlier turns' finished
// messages (which of them the model is shown is the run record's
// HistoryIDs, fixed at PrepareTurn). Only a hint: another worker, or this
// one after a restart or an eviction, reads the database as before. The
// key carries the Temporal run, so an operator's reset (a new run) reads
// afresh.
type transcripts struct {
	mu    sync.Mutex
	byKey map[string]transcript
	order []string // keys oldest first, for eviction
}

type transcript struct {
	user    chat.Message
	history []chat.Message
}

// transcriptKey is the turn and the Temporal run its activity belongs to
// ("" outside Temporal: the in-process benchmark's loop).
func transcriptKey(ctx context.Context, turn chat.Turn) string {
	return turn.ID + "/" + turn.UserMessageID + "/" + workflowRun(ctx)
}

func (c *transcripts) get(key string) (transcript, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.byKey[key]
	return t, ok
}

func (c *transcripts) put(key string, t transcript) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byKey == nil {
		c.byKey = map[string]transcript{}
	}
	if _, ok := c.byKey[key]; !ok {
		c.order = append(c.order, key)
	}
	c.byKey[key] = t
	for len(c.order) > maxTranscripts {
		delete(c.byKey, c.order[0])
		c.order = c.order[1:]
	}
}

// forget drops a turn's entries once it has ended.
func (c *transcripts) forget(turnID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.order = slices.DeleteFunc(c.order, func(k string) bool {
		ended := strings.HasPrefix(k, turnID+"/")
		if ended {
			delete(c.byKey, k)
		}
		return ended
	})
}
