package assistant_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/assistant"
	"hub/chat"
	"hub/llm"
	"hub/tools"
	"hub/workspace"
)

func TestTranscriptMessages(t *testing.T) {
	t.Parallel()
	tr := assistant.Transcript{
		Instructions: "You are Hub's assistant.",
		History: []chat.Message{
			{Role: "user", Text: "What is due?"},
			{Role: "assistant", Text: "Nothing this week."},
		},
		Context:  "<context>\nToday: Monday\n</context>",
		UserText: "Add two tasks",
		Steps: []chat.Step{
			{Step: 1, Text: "Looking.", ToolCalls: []chat.ToolCall{
				{ID: "turn_1.1.0", ProviderCallID: "call_a", Tool: "hub_list_tasks", Arguments: `{}`, Status: chat.CallDone, Result: `{"summary":"No tasks match."}`},
				{ID: "turn_1.1.1", Tool: "hub_list_people", Arguments: `{"query":"mira"}`, Status: chat.CallFailed,
					ErrorCode: tools.CodeNotFound, ErrorMessage: "no person called mira"},
			}},
			{Step: 2, ToolCalls: []chat.ToolCall{
				{ID: "turn_1.2.0", ProviderCallID: "call_c", Tool: "hub_create_tasks", Arguments: `{"tasks":[{"title":"A"}]}`, Status: chat.CallPending},
			}},
		},
	}
	msgs := tr.Messages()
	want := []llm.Message{
		{Role: "system", Content: "You are Hub's assistant."},
		{Role: "user", Content: "What is due?"},
		{Role: "assistant", Content: "Nothing this week."},
		{Role: "user", Content: "<context>\nToday: Monday\n</context>\n\nAdd two tasks"},
		{Role: "assistant", Content: "Looking.", ToolCalls: []llm.ToolCall{
			{ID: "call_a", Name: "hub_list_tasks", Arguments: `{}`},
			{ID: "turn_1.1.1", Name: "hub_list_people", Arguments: `{"query":"mira"}`},
		}},
		{Role: "tool", ToolCallID: "call_a", Content: `{"summary":"No tasks match."}`},
		{Role: "tool", ToolCallID: "turn_1.1.1", Content: tools.ErrorText(&tools.Error{Code: tools.CodeNotFound, Message: "no person called mira"})},
		{Role: "assistant", ToolCalls: []llm.ToolCall{{ID: "call_c", Name: "hub_create_tasks", Arguments: `{"tasks":[{"title":"A"}]}`}}},
		{Role: "tool", ToolCallID: "call_c", Content: assistant.ToolMessage(chat.ToolCall{Status: chat.CallPending})},
	}
	require.Equal(t, want, msgs)

	// A call that never finished is reported as such, never as a success.
	var pending struct{ Error tools.Error }
	require.NoError(t, json.Unmarshal([]byte(msgs[8].Content), &pending))
	require.Equal(t, tools.CodeFailed, pending.Error.Code)
	require.Contains(t, pending.Error.Message, "did not finish")

	// Each tool message answers a call of the assistant message before it.
	for i, m := range msgs {
		if m.Role != "tool" {
			continue
		}
		j := i - 1
		for msgs[j].Role == "tool" {
			j--
		}
		var ids []string
		for _, c := range msgs[j].ToolCalls {
			ids = append(ids, c.ID)
		}
		require.Contains(t, ids, m.ToolCallID)
	}
}

func TestTranscriptFinalStep(t *testing.T) {
	t.Parallel()
	tr := assistant.Transcript{Instructions: "sys", UserText: "hi", ToolsOff: true,
		Steps: []chat.Step{{Step: 1, ToolCalls: []chat.ToolCall{{ID: "c", Tool: "hub_list_tasks", Status: chat.CallDone, Result: "r"}}}}}
	msgs := tr.Messages()
	require.Len(t, msgs, 5)
	require.Equal(t, llm.Message{Role: "user", Content: "hi"}, msgs[1], "no context, no blank lines")
	require.Equal(t, llm.Message{Role: "system", Content: assistant.FinalStepNote}, msgs[4], "the final-step note comes last")

	tr.ToolsOff = false
	msgs = tr.Messages()
	require.Len(t, msgs, 4)
	require.Equal(t, "tool", msgs[3].Role)

	minimal := assistant.Transcript{Instructions: "sys", Context: "<context></context>", UserText: "hi"}.Messages()
	require.Equal(t, []llm.Message{{Role: "system", Content: "sys"}, {Role: "user", Content: "<context></context>\n\nhi"}}, minimal)
}

func TestToolMessage(t *testing.T) {
	t.Parallel()
	require.Equal(t, "the result", assistant.ToolMessage(chat.ToolCall{Status: chat.CallDone, Result: "the result"}))
	require.JSONEq(t, `{"error":{"code":"stale","message":"changed since"}}`,
		assistant.ToolMessage(chat.ToolCall{Status: chat.CallFailed, ErrorCode: tools.CodeStale, ErrorMessage: "changed since"}))
	require.JSONEq(t, `{"error":{"code":"failed","message":"this call did not finish; nothing is known of its outcome"}}`,
		assistant.ToolMessage(chat.ToolCall{Status: chat.CallPending}))
}

func TestOfferAndSchemas(t *testing.T) {
	t.Parallel()
	reg := tools.NewRegistry(tools.ListTasks, tools.CreateTasks)
	require.Equal(t, []string{"hub_list_tasks", "hub_create_tasks"}, assistant.Offer(reg, workspace.RoleEditor, workspace.Settings{}))
	require.Equal(t, []string{"hub_list_tasks"}, assistant.Offer(reg, workspace.RoleViewer, workspace.Settings{}), "no write tool for a viewer")
	require.Equal(t, []string{"hub_list_tasks"}, assistant.Offer(reg, workspace.RoleOwner, workspace.Settings{AllowedWriteAreas: []string{"projects"}}),
		"no write tool in an area the settings switch off")

	schemas := assistant.ToolSchemas(reg, []string{"hub_create_tasks", "hub_gone", "hub_list_tasks"})
	require.Len(t, schemas, 2, "names the registry does not know are left out")
	require.Equal(t, "hub_create_tasks", schemas[0].Name, "in the order offered")
	require.Equal(t, "hub_list_tasks", schemas[1].Name)
	d, _ := reg.Get("hub_create_tasks")
	require.Equal(t, d.Description, schemas[0].Description)
	require.JSONEq(t, string(d.Schema), string(schemas[0].Parameters))
	require.Empty(t, assistant.ToolSchemas(reg, nil))
}
