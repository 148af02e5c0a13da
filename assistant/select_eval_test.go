package assistant_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/assistant"
	"hub/fakemodel"
	"hub/llm"
	"hub/playbooks"
)

func TestEvalSelectRecordsWhichToolsTheModelCalled(t *testing.T) {
	t.Parallel()
	fm := fakemodel.New(fakemodel.MustParseScript(`{"rules": [
	  {"match": {"lastUser": "(?i)\\badd\\b", "offered": "hub_create_tasks"}, "reply": {"toolCalls": [{"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "x"}]}}]}},
	  {"reply": {"text": "no idea"}}]}`))
	base, err := fm.Start("127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = fm.Close() })
	all, err := playbooks.All()
	require.NoError(t, err)
	cases := []assistant.EvalCase{
		{Request: "add a task to call Mira", Expect: []string{"hub_create_tasks"}},
		{Request: "who is on the team?", Expect: []string{"hub_list_people"}},
	}
	rep := assistant.EvalSelect(context.Background(), llm.New(llm.Config{BaseURL: base, APIKey: "k", Model: "fakemodel"}, nil),
		cases, assistant.EvalRegistry(all, 0), all)
	require.Equal(t, 2, rep.Runs)
	require.Equal(t, 1, rep.Hits)
	require.True(t, rep.Rows[0].Hit)
	require.Equal(t, []string{"hub_create_tasks"}, rep.Rows[0].Called)
	require.False(t, rep.Rows[1].Hit)
	reqs := fm.Requests()
	require.Len(t, reqs, 2)
	require.LessOrEqual(t, len(reqs[0].Tools), assistant.MaxOfferedTools)
	require.Contains(t, reqs[0].Messages[0].Content, "Playbooks", "the instructions a turn sends")
}
