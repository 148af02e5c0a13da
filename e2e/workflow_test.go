//go:build e2e

package e2e

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/activities"
	"hub/fakemodel"
	"hub/hubtest"
	"hub/workspace"
)

// launchPlan: a project, then a task in it by $ref.
const launchPlan = `{"rules": [
  {"times": 1, "reply": {"toolCalls": [{"name": "hub_run_workflow", "arguments": {"steps": [
    {"id": "project", "tool": "hub_create_project", "input": {"name": "Launch"}},
    {"id": "tasks", "tool": "hub_create_tasks", "input": {"tasks": [{"title": "Write the announcement", "projectId": {"$ref": "project.project.id"}}]}}
  ]}}]}},
  {"reply": {"text": "I proposed the launch plan."}}]}`

type stepsAnswer struct {
	Receipts []struct {
		Status string
		Error  struct{ Message string }
		Steps  []struct {
			ID, Status string
			Error      struct{ Message string }
		}
	}
}

func proposeLaunch(t *testing.T, s *hubtest.Stack) (conv, reply string) {
	t.Helper()
	conv = s.Conversation(t)
	st := s.Ask(t, conv, "set up the launch project with its first task")
	held := false
	for _, e := range s.Stream(t, st.StreamURL, 0, 0) {
		if e.Type == "tool" && e.Data["phase"] == "held" {
			held = true
			require.Contains(t, e.Data["summary"], "Run 2 steps in order")
		}
	}
	require.True(t, held, "a workflow always waits for Apply")
	return conv, st.ReplyMessageID
}

func applySteps(t *testing.T, s *hubtest.Stack, conv, reply string, extra map[string]any) stepsAnswer {
	t.Helper()
	body := map[string]any{"conversationId": conv, "messageId": reply}
	for k, v := range extra {
		body[k] = v
	}
	r := s.Do(t, s.Token, "POST", "/api/assistant/apply", body)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var a stepsAnswer
	r.Decode(t, &a)
	require.Len(t, a.Receipts, 1)
	return a
}

func TestWorkflowStepsRunInOrderWithRefs(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(launchPlan)})
	conv, reply := proposeLaunch(t, s)
	a := applySteps(t, s, conv, reply, nil)
	require.Equal(t, "succeeded", a.Receipts[0].Status)
	require.Equal(t, "succeeded", a.Receipts[0].Steps[0].Status)
	require.Equal(t, "succeeded", a.Receipts[0].Steps[1].Status)

	projects := s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/projects", nil).JSON(t)["projects"].([]any)
	require.Len(t, projects, 1)
	tasks := s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil).JSON(t)["tasks"].([]any)
	require.Len(t, tasks, 1)
	require.Equal(t, projects[0].(map[string]any)["id"], tasks[0].(map[string]any)["projectId"], "the $ref took the project's id")

	// Retry never runs a succeeded step again.
	applySteps(t, s, conv, reply, nil)
	require.Len(t, s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/projects", nil).JSON(t)["projects"], 1)
}

func TestWorkflowFailureStopsTheRestAndRetryRunsOnlyWhatRemains(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(launchPlan)})
	conv, reply := proposeLaunch(t, s)
	// Task writes are switched off when Apply runs: step 2 is refused.
	r := s.Do(t, s.Token, "PATCH", "/api/me/settings", map[string]any{"allowedWriteAreas": []string{"projects"}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	a := applySteps(t, s, conv, reply, nil)
	require.Equal(t, "failed", a.Receipts[0].Status)
	require.Contains(t, a.Receipts[0].Error.Message, "Finished 1 of 2 steps")
	require.Equal(t, "succeeded", a.Receipts[0].Steps[0].Status)
	require.Equal(t, "failed", a.Receipts[0].Steps[1].Status)
	require.Len(t, s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/projects", nil).JSON(t)["projects"], 1, "what finished stays")
	require.Equal(t, []string{"succeeded", "failed"}, savedSteps(t, s, conv, reply), "the messages show the receipt's steps too (a reload)")

	r = s.Do(t, s.Token, "PATCH", "/api/me/settings", map[string]any{"allowedWriteAreas": nil})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	a = applySteps(t, s, conv, reply, nil)
	require.Equal(t, "succeeded", a.Receipts[0].Status)
	require.Len(t, s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/projects", nil).JSON(t)["projects"], 1, "step 1 did not run again")
	require.Equal(t, []string{"succeeded", "succeeded"}, savedSteps(t, s, conv, reply))
	require.Len(t, s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil).JSON(t)["tasks"], 1)
	// A step undone says so in the messages (a client offers Redo after a reload).
	steps := savedReceiptSteps(t, s, conv, reply)
	require.Equal(t, "done", steps[1].UndoState)
	r = s.Do(t, s.Token, "POST", "/api/assistant/undo", map[string]any{"undoGroupId": steps[1].UndoGroupID})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	steps = savedReceiptSteps(t, s, conv, reply)
	require.Equal(t, []string{"done", "undone"}, []string{steps[0].UndoState, steps[1].UndoState})
}

func TestInterruptedStepIsNeverReplayedOnItsOwn(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(launchPlan), Fault: faultOnce(activities.FaultStepRunning, 1)})
	conv, reply := proposeLaunch(t, s)
	a := applySteps(t, s, conv, reply, nil)
	require.Equal(t, "failed", a.Receipts[0].Status)
	require.Equal(t, "interrupted", a.Receipts[0].Steps[0].Status, "the worker died while it ran")
	require.Empty(t, s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/projects", nil).JSON(t)["projects"])

	a = applySteps(t, s, conv, reply, nil)
	require.Equal(t, "interrupted", a.Receipts[0].Steps[0].Status, "a plain Retry does not replay it")
	a = applySteps(t, s, conv, reply, map[string]any{"retryInterrupted": true})
	require.Equal(t, "succeeded", a.Receipts[0].Status, "Retry remaining steps does")
	require.Len(t, s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/projects", nil).JSON(t)["projects"], 1)
}

// savedSteps are the statuses of the steps on the reply's workflow receipt
// as the conversation's messages show them.
func savedSteps(t *testing.T, s *hubtest.Stack, conv, reply string) []string {
	t.Helper()
	var out []string
	for _, st := range savedReceiptSteps(t, s, conv, reply) {
		out = append(out, st.Status)
	}
	return out
}

type savedStep struct{ Status, UndoGroupID, UndoState string }

func savedReceiptSteps(t *testing.T, s *hubtest.Stack, conv, reply string) []savedStep {
	t.Helper()
	r := s.Do(t, s.Token, "GET", "/api/assistant/conversations/"+conv+"/messages", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var page struct {
		Messages []struct {
			ID        string
			ToolCalls []struct {
				Receipt *struct{ Steps []savedStep }
			}
		}
	}
	r.Decode(t, &page)
	var out []savedStep
	for _, m := range page.Messages {
		for _, c := range m.ToolCalls {
			if m.ID == reply && c.Receipt != nil {
				out = append(out, c.Receipt.Steps...)
			}
		}
	}
	return out
}

// postPlan: a project, then an update posted to a connected app.
const postPlan = `{"rules": [
  {"match": {"afterToolResult": false}, "reply": {"toolCalls": [{"name": "hub_run_workflow", "arguments": {"steps": [
    {"id": "project", "tool": "hub_create_project", "input": {"name": "Launch"}},
    {"id": "tell", "tool": "apps_post_update", "input": {"connectionId": "conn_x", "text": "Launch is on"}}
  ]}}]}},
  {"reply": {"text": "That failed: {{.LastToolError}}"}}]}`

// TestWorkflowStepsThePersonMayNotRunAreRefusedWhenProposed: a guest's
// connected-app step, and one while the person's connected-app writes are
// switched off, are refused to the model naming the step; nothing is held,
// so there is nothing to Apply.
func TestWorkflowStepsThePersonMayNotRunAreRefusedWhenProposed(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(postPlan)})
	guest, _ := s.Member(t, "Team", "Gus Guest", workspace.RoleGuest)
	r := s.Do(t, guest, "PATCH", "/api/me/settings", map[string]any{"connectedAppWrites": true})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	for _, tc := range []struct {
		who, token, code string
	}{{"guest", guest, "forbidden"}, {"owner with app writes off", s.Token, "refused"}} {
		r := s.Do(t, tc.token, "POST", "/api/assistant/conversations", map[string]any{"spaceId": s.SpaceID})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		conv := r.JSON(t)["id"].(string)
		st := askAs(t, s, tc.token, conv, "set up the launch project and tell the team channel")
		events := s.Stream(t, st.StreamURL, 0, 0)
		ends := finished(events)
		require.Len(t, ends, 1, "%s: %v", tc.who, events)
		require.Equal(t, "failed", ends[0]["phase"], tc.who)
		e := ends[0]["error"].(map[string]any)
		require.Equal(t, tc.code, e["code"], "%s: %v", tc.who, e)
		require.Equal(t, "/steps/1/tool", e["path"], "%s: %v", tc.who, e)
		for _, ev := range events {
			require.NotEqual(t, "proposal", ev.Type, "%s: nothing is held", tc.who)
		}
		require.Contains(t, hubtest.Text(events), `step "tell" (apps_post_update)`, "the model read which step was refused")
		r = s.Do(t, tc.token, "GET", "/api/assistant/conversations/"+conv+"/messages", nil)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		msgs := r.JSON(t)["messages"].([]any)
		require.Empty(t, msgs[len(msgs)-1].(map[string]any)["proposals"], tc.who)
		r = s.Do(t, tc.token, "POST", "/api/assistant/apply", map[string]any{"conversationId": conv, "messageId": st.ReplyMessageID})
		require.Equal(t, http.StatusConflict, r.Status, "%s: nothing to apply: %s", tc.who, r.Body)
		require.Empty(t, s.Do(t, tc.token, "GET", "/api/agent/state", nil).JSON(t)["activities"], tc.who)
	}
}

// teamPlan: add a person, then a task assigned to them by $ref.
const teamPlan = `{"rules": [
  {"times": 1, "match": {"afterToolResult": false}, "reply": {"toolCalls": [{"name": "hub_run_workflow", "arguments": {"steps": [
    {"id": "person", "tool": "hub_add_person", "input": {"name": "Nia Novak", "role": "editor"}},
    {"id": "tasks", "tool": "hub_create_tasks", "input": {"tasks": [{"title": "Onboard Nia", "assigneeId": {"$ref": "person.person.id"}}]}}
  ]}}]}},
  {"reply": {"text": "I proposed adding Nia with her first task."}}]}`

// People writes are workflow steps like any other: an owner's plan adds a
// person and assigns them a task by $ref under one Apply; an editor's plan
// is refused when proposed, naming the owners-only step.
func TestWorkflowStepsAddAPersonAndAssignThem(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(teamPlan)})
	conv := s.Conversation(t)
	st := s.Ask(t, conv, "add Nia Novak to the team and give her an onboarding task")
	held := false
	for _, e := range s.Stream(t, st.StreamURL, 0, 0) {
		if e.Type == "tool" && e.Data["phase"] == "held" {
			held = true
			require.Contains(t, e.Data["summary"], "Nia Novak")
		}
	}
	require.True(t, held, "the plan waits for Apply")
	people := func() []any {
		return s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/people", nil).JSON(t)["people"].([]any)
	}
	before := len(people())

	a := applySteps(t, s, conv, st.ReplyMessageID, nil)
	require.Equal(t, "succeeded", a.Receipts[0].Status, "%+v", a)
	after := people()
	require.Len(t, after, before+1)
	var nia string
	for _, p := range after {
		if m := p.(map[string]any); m["name"] == "Nia Novak" {
			nia = m["id"].(string)
			require.Equal(t, "editor", m["role"])
		}
	}
	require.NotEmpty(t, nia)
	tasks := s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil).JSON(t)["tasks"].([]any)
	require.Len(t, tasks, 1)
	require.Equal(t, nia, tasks[0].(map[string]any)["assigneeId"], "the $ref took the new person's id")
	applySteps(t, s, conv, st.ReplyMessageID, nil)
	require.Len(t, people(), before+1, "Retry does not add her twice")

	editor, _ := s.Member(t, "Team", "Ed Editor", workspace.RoleEditor)
	s.Model.SetScript(fakemodel.MustParseScript(teamPlan))
	r := s.Do(t, editor, "POST", "/api/assistant/conversations", map[string]any{"spaceId": s.SpaceID})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	events := s.Stream(t, askAs(t, s, editor, r.JSON(t)["id"].(string), "add Nia Novak to the team and give her an onboarding task").StreamURL, 0, 0)
	ends := finished(events)
	require.Len(t, ends, 1, "%v", events)
	require.Equal(t, "failed", ends[0]["phase"])
	e := ends[0]["error"].(map[string]any)
	require.Equal(t, "/steps/0/tool", e["path"], "%v", e)
	for _, ev := range events {
		require.NotEqual(t, "proposal", ev.Type, "nothing is held for an editor")
	}
	require.Len(t, people(), before+2, "only the editor was added since")
}

// TestAppliedWorkflowLeavesItsTrace: once every step of a workflow has
// run at Apply, the receipt, the call and the reply name the records the
// steps changed, and the next turn's history tells the model what was
// applied, step by step (not that it was only proposed).
func TestAppliedWorkflowLeavesItsTrace(t *testing.T) {
	t.Parallel()
	onBothEngines(t, func(t *testing.T, sqlite bool) {
		appliedWorkflowLeavesItsTrace(t, hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(launchPlan), SQLite: sqlite}))
	})
}

func appliedWorkflowLeavesItsTrace(t *testing.T, s *hubtest.Stack) {
	r := s.Do(t, s.Token, "PATCH", "/api/me/settings", map[string]any{"writePolicy": "preview"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	conv, reply := proposeLaunch(t, s)
	var proposed struct {
		Messages []struct{ Proposals []struct{ Preview string } }
	}
	s.Do(t, s.Token, "GET", "/api/assistant/conversations/"+conv+"/messages", nil).Decode(t, &proposed)
	preview := proposed.Messages[len(proposed.Messages)-1].Proposals[0].Preview
	require.Equal(t, "Run 2 steps in order: 1. Create project: “Launch”; 2. Create tasks: “Write the announcement” (project the project made in step 1)", preview,
		"a $ref is named by its step, never as a path or an id")

	r = s.Do(t, s.Token, "POST", "/api/assistant/apply", map[string]any{"conversationId": conv, "messageId": reply})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var applied struct {
		Receipts []struct {
			Status string
			Refs   []struct{ Kind, ID, Label string }
		}
	}
	r.Decode(t, &applied)
	require.Len(t, applied.Receipts, 1)
	require.Equal(t, "succeeded", applied.Receipts[0].Status)
	refs := applied.Receipts[0].Refs
	require.Len(t, refs, 2, "%s", r.Body)
	require.Equal(t, []string{"project", "Launch"}, []string{refs[0].Kind, refs[0].Label})
	require.Equal(t, []string{"task", "Write the announcement"}, []string{refs[1].Kind, refs[1].Label})
	project, task := refs[0].ID, refs[1].ID

	var saved struct {
		Messages []struct {
			Role      string
			Refs      []struct{ ID string }
			ToolCalls []struct {
				Tool, Status string
				Refs         []struct{ ID string }
				Receipt      *struct{ Refs []struct{ ID string } }
			}
		}
	}
	r = s.Do(t, s.Token, "GET", "/api/assistant/conversations/"+conv+"/messages", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	r.Decode(t, &saved)
	m := saved.Messages[len(saved.Messages)-1]
	require.Equal(t, "assistant", m.Role)
	ids := func(refs []struct{ ID string }) []string {
		var out []string
		for _, r := range refs {
			out = append(out, r.ID)
		}
		return out
	}
	require.Subset(t, ids(m.Refs), []string{project, task}, "the reply names what was applied")
	require.Len(t, m.ToolCalls, 1)
	call := m.ToolCalls[0]
	require.Equal(t, "applied", call.Status)
	require.Equal(t, []string{project, task}, ids(call.Refs), "the call names its steps' records")
	require.NotNil(t, call.Receipt)
	require.Equal(t, []string{project, task}, ids(call.Receipt.Refs))

	// The next turn's history, as the model receives it.
	before := len(s.Model.Requests())
	st := s.Ask(t, conv, "what did you do?")
	s.Stream(t, st.StreamURL, 0, 0)
	reqs := s.Model.Requests()
	require.Greater(t, len(reqs), before)
	var history string
	for _, msg := range reqs[before].Messages {
		if msg.Role == "assistant" {
			history += msg.Content + "\n"
		}
	}
	require.Contains(t, history, "Proposed, then applied by the person: 1. Added 1 project: “Launch”. 2. Added 1 task")
	require.Contains(t, history, "[Launch](hub://project/"+project+")")
	require.Contains(t, history, "[Write the announcement](hub://task/"+task+")")
	require.NotContains(t, history, "Proposed, not done")
	require.NotContains(t, history, "waiting for Apply")
}
