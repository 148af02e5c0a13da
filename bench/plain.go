package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"hub/llm"
)

// plainLoop is the baseline: the same turn with nothing durable around it.
// Its three model calls go through Hub's own model client to the same
// stand-in, and its two writes through the api's task route to the same
// database, one after another in the bench process, with no workflow, no
// activity, no stream and no run record.
type plainLoop struct {
	llm     *llm.Client
	api     *client
	spaceID string
}

func newPlainLoop(modelURL string, api *client, spaceID string, inFlight int) *plainLoop {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = inFlight + 4
	return &plainLoop{
		llm:     llm.New(llm.Config{BaseURL: modelURL, APIKey: "bench", Model: "hub-bench"}, &http.Client{Transport: tr}),
		api:     api,
		spaceID: spaceID,
	}
}

// createTasksTool is offered to the model like Hub offers its tool.
var createTasksTool = llm.Tool{
	Name:        createTasks,
	Description: "Create tasks.",
	Parameters:  json.RawMessage(`{"type":"object","properties":{"tasks":{"type":"array","items":{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}}},"required":["tasks"]}`),
}

// turn runs one turn named name: model calls until the model answers
// without a tool call, each call's writes made before the next call.
func (p *plainLoop) turn(ctx context.Context, name string) error {
	msgs := []llm.Message{
		{Role: llm.RoleSystem, Content: "You are the plain loop of hub bench."},
		{Role: llm.RoleUser, Content: turnPrefix + name},
	}
	for step := 1; ; step++ {
		if step > 8 {
			return fmt.Errorf("plain turn %s: still calling tools after 8 steps", name)
		}
		res, err := p.llm.Stream(ctx, llm.Request{Messages: msgs, Tools: []llm.Tool{createTasksTool}}, nil)
		if err != nil {
			return fmt.Errorf("plain turn %s, model call %d: %w", name, step, err)
		}
		if len(res.ToolCalls) == 0 {
			return nil
		}
		msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: res.Text, ToolCalls: res.ToolCalls})
		for _, c := range res.ToolCalls {
			var args struct{ Tasks []struct{ Title string } }
			if err := json.Unmarshal([]byte(c.Arguments), &args); err != nil || c.Name != createTasks {
				return fmt.Errorf("plain turn %s: unexpected call %s %s", name, c.Name, c.Arguments)
			}
			for _, t := range args.Tasks {
				if err := p.api.createTask(ctx, p.spaceID, t.Title); err != nil {
					return fmt.Errorf("plain turn %s: %w", name, err)
				}
			}
			msgs = append(msgs, llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, Content: `{"summary": "Created 1 task."}`})
		}
	}
}
