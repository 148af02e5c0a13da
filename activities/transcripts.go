package activities

import (
	"context"
	"slices"
	"strings"
	"sync"

	"hub/chat"
)

// maxTranscripts bounds how many turns' messages a worker keeps: more than
// it runs at once; an evicted turn reads them again.
const maxTranscripts = 512

// transcripts keeps, per turn run, the person's message and the history
// before it, read once on this worker and reused by the turn's later
// steps: both are fixed for a turn. Only a hint: another worker reads the
// database. The key carries the Temporal run, so a reset reads afresh.
type transcripts struct {
	mu    sync.Mutex
	byKey map[string]transcript
	order []string // keys oldest first, for eviction
}

type transcript struct {
	user    chat.Message
	history []chat.Message
}

// transcriptKey is the turn and the Temporal run its activity belongs to.
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
