//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"hub/hubtest"
)

// slowStart holds each turn's workflow start until the request that asked
// for it has gone (or a second has passed), as a slow Temporal would while
// the person reloads the page.
type slowStart struct {
	client.Client
	hungUp chan struct{}
}

func (s *slowStart) ExecuteWorkflow(ctx context.Context, o client.StartWorkflowOptions, wf any, args ...any) (client.WorkflowRun, error) {
	select {
	case <-ctx.Done():
	case <-s.hungUp:
	case <-time.After(time.Second):
	}
	return s.Client.ExecuteWorkflow(ctx, o, wf, args...)
}

// TestATurnStartsWhenItsClientHangsUp: the person's message is saved, then
// the browser hangs up (the page is reloaded) while the api starts the
// turn's workflow. The turn still runs to its end; it is not left queued
// forever (the browser test found one that was: "start turn workflow:
// context canceled").
func TestATurnStartsWhenItsClientHangsUp(t *testing.T) {
	t.Parallel()
	slow := &slowStart{hungUp: make(chan struct{})}
	s := hubtest.Start(t, hubtest.Options{APITemporal: func(c client.Client) client.Client { slow.Client = c; return slow }})
	conv := s.Conversation(t)

	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "POST", s.URL+"/api/assistant/conversations/"+conv+"/turns", bytes.NewBufferString(`{"text":"hello"}`))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+s.Token)
	req.Header.Set("Content-Type", "application/json")
	done := make(chan error, 1)
	go func() {
		res, err := s.HTTP.Do(req)
		if err == nil {
			res.Body.Close()
		}
		done <- err
	}()
	// Hang up once the message is saved.
	require.Eventually(t, func() bool {
		r := s.Do(t, s.Token, "GET", "/api/assistant/conversations/"+conv+"/messages", nil)
		return len(r.JSON(t)["messages"].([]any)) == 2
	}, 10*time.Second, 10*time.Millisecond)
	cancel()
	require.True(t, errors.Is(<-done, context.Canceled))

	msgs := s.Do(t, s.Token, "GET", "/api/assistant/conversations/"+conv+"/messages", nil).JSON(t)["messages"].([]any)
	turnID := msgs[1].(map[string]any)["turnId"].(string)
	st := s.AwaitStatus(t, turnID)
	require.Equal(t, "done", st["status"], "%v", st)
}
