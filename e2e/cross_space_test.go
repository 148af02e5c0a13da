//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
	"hub/storage"
	"hub/tools"
	"hub/workspace"
)

// Cross-space turns: a turn started with "spaces" may act, through the
// workspace tools' optional "space" argument, in other spaces the person
// is a member of, each call checked with the person's current role in the
// space it acts in.

// modelCall is one tool call the scripted model sends.
type modelCall struct {
	Name string
	Args map[string]any
}

// callsThenSummary scripts a model that sends the calls as its first
// answer of every turn and then reports the last tool result.
func callsThenSummary(t *testing.T, calls ...modelCall) fakemodel.Script {
	t.Helper()
	tcs := make([]map[string]any, len(calls))
	for i, c := range calls {
		tcs[i] = map[string]any{"name": c.Name, "arguments": c.Args}
	}
	raw, err := json.Marshal(map[string]any{"rules": []any{
		map[string]any{"name": "act", "match": map[string]any{"afterToolResult": false}, "reply": map[string]any{"toolCalls": tcs}},
		map[string]any{"name": "report", "reply": map[string]any{"text": "{{.LastToolSummary}}"}},
	}})
	require.NoError(t, err)
	script, err := fakemodel.ParseScript(raw)
	require.NoError(t, err)
	return script
}

// newTask is hub_create_tasks' arguments for one task, in a space when
// space is not "".
func newTask(title, space string) modelCall {
	args := map[string]any{"tasks": []any{map[string]any{"title": title}}}
	if space != "" {
		args["space"] = space
	}
	return modelCall{Name: "hub_create_tasks", Args: args}
}

// askIn starts a turn that may also act in the given spaces.
func askIn(t *testing.T, s *hubtest.Stack, conv, text string, spaces []string) hubtest.Started {
	t.Helper()
	r := s.Do(t, s.Token, "POST", "/api/assistant/conversations/"+conv+"/turns", map[string]any{"text": text, "spaces": spaces})
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	var st hubtest.Started
	r.Decode(t, &st)
	return st
}

// finished are a turn's tool frames that end a call (every phase but
// started), in stream order.
func finished(events []hubtest.Event) []map[string]any {
	var out []map[string]any
	for _, e := range events {
		if e.Type == "tool" && e.Data["phase"] != "started" {
			out = append(out, e.Data)
		}
	}
	return out
}

// toolErrorCode is a failed tool frame's error code.
func toolErrorCode(t *testing.T, frame map[string]any) string {
	t.Helper()
	e, ok := frame["error"].(map[string]any)
	require.True(t, ok, "a failed frame carries an error: %v", frame)
	code, _ := e["code"].(string)
	return code
}

// titlesIn lists the titles of a space's tasks as the token's person sees
// them.
func titlesIn(t *testing.T, s *hubtest.Stack, token, spaceID string) []string {
	t.Helper()
	r := s.Do(t, token, "GET", "/api/spaces/"+spaceID+"/tasks", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var out []string
	for _, task := range r.JSON(t)["tasks"].([]any) {
		out = append(out, task.(map[string]any)["title"].(string))
	}
	slices.Sort(out)
	return out
}

// turnSpaces is what GET /api/assistant/turns/:id answers as "spaces"
// once the turn has ended.
func turnSpaces(t *testing.T, s *hubtest.Stack, turnID string) []any {
	t.Helper()
	d := s.AwaitStatus(t, turnID)
	spaces, ok := d["spaces"].([]any)
	require.True(t, ok, "the turn answers spaces as a list: %v", d)
	return spaces
}

// totalTasks counts the tasks of every space.
func totalTasks(t *testing.T, s *hubtest.Stack) int64 {
	t.Helper()
	var n int64
	require.NoError(t, s.DB.WithContext(context.Background()).Model(&storage.Task{}).Count(&n).Error)
	return n
}

// toolSchemas reads the tools' parameter schemas from a recorded model
// request, by name.
func toolSchemas(t *testing.T, body json.RawMessage) map[string]map[string]json.RawMessage {
	t.Helper()
	var req struct {
		Tools []struct {
			Function struct {
				Name       string `json:"name"`
				Parameters struct {
					Properties map[string]json.RawMessage `json:"properties"`
				} `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(body, &req))
	out := map[string]map[string]json.RawMessage{}
	for _, tool := range req.Tools {
		out[tool.Function.Name] = tool.Function.Parameters.Properties
	}
	return out
}

type crossReceipt struct {
	CallID      string `json:"callId"`
	Tool        string `json:"tool"`
	Status      string `json:"status"`
	Summary     string `json:"summary"`
	SpaceID     string `json:"spaceId"`
	UndoGroupID string `json:"undoGroupId"`
	Error       *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// applyReceipts applies a reply's held writes and answers the receipts.
func applyReceipts(t *testing.T, s *hubtest.Stack, conv, reply string) []crossReceipt {
	t.Helper()
	r := s.Do(t, s.Token, "POST", "/api/assistant/apply", map[string]any{"conversationId": conv, "messageId": reply})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var res struct {
		Receipts []crossReceipt `json:"receipts"`
	}
	r.Decode(t, &res)
	return res.Receipts
}

// heldCall is the call id of the held write whose preview names the title.
func heldCall(t *testing.T, ends []map[string]any, title string) string {
	t.Helper()
	for _, f := range ends {
		if f["phase"] == "held" && strings.Contains(fmt.Sprint(f["summary"]), title) {
			return f["callId"].(string)
		}
	}
	t.Fatalf("no held call names %q: %v", title, ends)
	return ""
}

// receiptOf finds a call's receipt.
func receiptOf(t *testing.T, receipts []crossReceipt, callID string) crossReceipt {
	t.Helper()
	for _, r := range receipts {
		if r.CallID == callID {
			return r
		}
	}
	t.Fatalf("no receipt for call %s: %+v", callID, receipts)
	return crossReceipt{}
}

// TestCrossSpaceImmediateWriteAndRead: under the immediate policy a write
// naming another space of the turn runs there at once, with its own Undo
// group, and a read there sees it; without "space" a call acts in the
// conversation's own space.
func TestCrossSpaceImmediateWriteAndRead(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`)})
	_, north := s.Member(t, "North", "Mira Chen", workspace.RoleEditor)
	r := s.Do(t, s.Token, "POST", "/api/spaces/"+s.SpaceID+"/tasks", map[string]any{"title": "Team chore"})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	conv := s.Conversation(t)

	// The space by name.
	s.Model.SetScript(callsThenSummary(t, newTask("Order paint", "North")))
	st := askIn(t, s, conv, "add a task called Order paint", []string{north})
	events := s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "done", events[len(events)-1].Data["status"])
	ends := finished(events)
	require.Len(t, ends, 1)
	require.Equal(t, "done", ends[0]["phase"], "%v", ends[0])
	require.Contains(t, ends[0]["summary"], "Order paint")
	group, _ := ends[0]["undoGroupId"].(string)
	require.NotEmpty(t, group, "an immediate write carries its Undo group")
	require.Equal(t, []string{"Order paint"}, titlesIn(t, s, s.Token, north), "written in North at once")
	require.Equal(t, []string{"Team chore"}, titlesIn(t, s, s.Token, s.SpaceID), "nothing written in the conversation's space")
	require.Equal(t, []any{north}, turnSpaces(t, s, st.TurnID))

	// The model was told which spaces it can use, and the workspace tools
	// take "space" while the help tools do not.
	reqs := s.Model.Requests()
	require.NotEmpty(t, reqs)
	var sent strings.Builder
	for _, m := range reqs[0].Messages {
		sent.WriteString(m.Content)
	}
	require.Contains(t, sent.String(), "North", "the turn's context names the other space")
	schemas := toolSchemas(t, reqs[0].Body)
	require.Contains(t, schemas, "hub_create_tasks")
	for name, props := range schemas {
		if name == "hub_how_to" || name == "hub_find_tools" {
			require.NotContains(t, props, "space", "%s takes no space", name)
		} else {
			require.Contains(t, props, "space", "%s takes a space in a cross-space turn", name)
		}
	}

	// A read there, by id, and one in the conversation's own space.
	s.Model.SetScript(callsThenSummary(t,
		modelCall{Name: "hub_list_tasks", Args: map[string]any{"space": north}},
		modelCall{Name: "hub_list_tasks", Args: map[string]any{}}))
	st = askIn(t, s, conv, "show me my tasks", []string{north})
	ends = finished(s.Stream(t, st.StreamURL, 0, 0))
	require.Len(t, ends, 2)
	var sawNorth, sawTeam bool
	for _, f := range ends {
		require.Equal(t, "done", f["phase"], "%v", f)
		summary := f["summary"].(string)
		refs, _ := f["refs"].([]any)
		require.Len(t, refs, 1, "%v", f)
		ref := refs[0].(map[string]any)
		switch {
		case strings.Contains(summary, "Order paint") && !strings.Contains(summary, "Team chore"):
			sawNorth = true
			require.Equal(t, north, ref["spaceId"], "a record found in another space says where")
		case strings.Contains(summary, "Team chore") && !strings.Contains(summary, "Order paint"):
			sawTeam = true
			require.Nil(t, ref["spaceId"], "a record of the conversation's space needs no space")
		default:
			t.Fatalf("a list that mixes spaces or misses them: %q", summary)
		}
	}
	require.True(t, sawNorth && sawTeam, "one list per space: %v", ends)

	// Undo of the write's group takes back North's task only.
	r = s.Do(t, s.Token, "POST", "/api/assistant/undo", map[string]any{"undoGroupId": group})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Empty(t, titlesIn(t, s, s.Token, north))
	require.Equal(t, []string{"Team chore"}, titlesIn(t, s, s.Token, s.SpaceID))
}

// TestCrossSpacePreviewApplyAndUndoPerSpace: writes held across three
// spaces are applied with one Undo group per space; each receipt names
// its space; undoing one group takes back only that space's tasks.
func TestCrossSpacePreviewApplyAndUndoPerSpace(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`)})
	_, north := s.Member(t, "North", "Mira Chen", workspace.RoleOwner)
	_, south := s.Member(t, "South", "Mira Chen", workspace.RoleEditor)
	r := s.Do(t, s.Token, "PATCH", "/api/me/settings", map[string]any{"writePolicy": "preview"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)

	s.Model.SetScript(callsThenSummary(t,
		newTask("Draft brief", ""),
		newTask("Call Mira", ""),
		newTask("Order paint", "North"),
		newTask("Book ferry", south)))
	conv := s.Conversation(t)
	st := askIn(t, s, conv, "add a task called Draft brief", []string{north, south})
	events := s.Stream(t, st.StreamURL, 0, 0)
	ends := finished(events)
	require.Len(t, ends, 4)
	for _, f := range ends {
		require.Equal(t, "held", f["phase"], "%v", f)
	}
	var proposal map[string]any
	for _, e := range events {
		if e.Type == "proposal" {
			proposal = e.Data
		}
	}
	require.NotNil(t, proposal, "the held writes are proposed")
	require.Len(t, proposal["calls"], 4)
	require.Zero(t, totalTasks(t, s), "nothing is written before Apply")

	receipts := applyReceipts(t, s, conv, st.ReplyMessageID)
	require.Len(t, receipts, 4)
	for _, rc := range receipts {
		require.Equal(t, "succeeded", rc.Status, "%+v", rc)
		require.NotEmpty(t, rc.UndoGroupID, "%+v", rc)
	}
	brief, call := receiptOf(t, receipts, heldCall(t, ends, "Draft brief")), receiptOf(t, receipts, heldCall(t, ends, "Call Mira"))
	paint, ferry := receiptOf(t, receipts, heldCall(t, ends, "Order paint")), receiptOf(t, receipts, heldCall(t, ends, "Book ferry"))
	require.Equal(t, s.SpaceID, brief.SpaceID)
	require.Equal(t, s.SpaceID, call.SpaceID)
	require.Equal(t, north, paint.SpaceID)
	require.Equal(t, south, ferry.SpaceID)
	require.Equal(t, brief.UndoGroupID, call.UndoGroupID, "one Undo group for the conversation's space")
	groups := map[string]bool{brief.UndoGroupID: true, paint.UndoGroupID: true, ferry.UndoGroupID: true}
	require.Len(t, groups, 3, "one Undo group per space")

	require.Equal(t, []string{"Call Mira", "Draft brief"}, titlesIn(t, s, s.Token, s.SpaceID))
	require.Equal(t, []string{"Order paint"}, titlesIn(t, s, s.Token, north))
	require.Equal(t, []string{"Book ferry"}, titlesIn(t, s, s.Token, south))

	// Undo of North's group takes back only North's task.
	r = s.Do(t, s.Token, "POST", "/api/assistant/undo", map[string]any{"undoGroupId": paint.UndoGroupID})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Empty(t, titlesIn(t, s, s.Token, north))
	require.Equal(t, []string{"Call Mira", "Draft brief"}, titlesIn(t, s, s.Token, s.SpaceID))
	require.Equal(t, []string{"Book ferry"}, titlesIn(t, s, s.Token, south))

	// And the conversation's space's group takes back both of its tasks,
	// leaving South's.
	r = s.Do(t, s.Token, "POST", "/api/assistant/undo", map[string]any{"undoGroupId": brief.UndoGroupID})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Empty(t, titlesIn(t, s, s.Token, s.SpaceID))
	require.Equal(t, []string{"Book ferry"}, titlesIn(t, s, s.Token, south))
}

// TestCrossSpaceSpaceNotInTheTurnFails: a "space" that is not among the
// turn's spaces (a space of the person's that the turn did not list, or a
// name nobody has) fails the call with invalid_payload and writes nothing.
func TestCrossSpaceSpaceNotInTheTurnFails(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`)})
	_, north := s.Member(t, "North", "Mira Chen", workspace.RoleOwner)
	_, south := s.Member(t, "South", "Mira Chen", workspace.RoleOwner)
	s.Model.SetScript(callsThenSummary(t,
		newTask("Book ferry", "South"),
		newTask("Book train", south),
		newTask("Book flight", "Nowhere")))
	conv := s.Conversation(t)
	st := askIn(t, s, conv, "add a task called Book ferry", []string{north})
	events := s.Stream(t, st.StreamURL, 0, 0)
	allFailed(t, events, 3, "invalid_payload")
	// The errors name the turn's spaces by name, and no id, even the one
	// the model gave (seed 000 §4.1).
	for _, f := range finished(events) {
		msg := f["error"].(map[string]any)["message"].(string)
		require.Contains(t, msg, "its spaces are", "%v", f)
		require.Contains(t, msg, "“North”", "%v", f)
		require.NotRegexp(t, tools.IDPattern, msg)
	}
	reqs := s.Model.Requests()
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "tool" {
			require.NotRegexp(t, tools.IDPattern, m.Content, "what the model reads of a tool error")
		}
	}
	require.Zero(t, totalTasks(t, s), "nothing written in any space")
	require.Empty(t, titlesIn(t, s, s.Token, south))
	require.Empty(t, titlesIn(t, s, s.Token, north))
	require.Empty(t, titlesIn(t, s, s.Token, s.SpaceID))
}

// TestCrossSpaceViewerThereMayReadNotWrite: the person's role in the space
// a call acts in decides: a viewer there reads, and a write is forbidden,
// although they own the conversation's space.
func TestCrossSpaceViewerThereMayReadNotWrite(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`)})
	galleryOwner, gallery := s.Member(t, "Gallery", "Gia Gallery", workspace.RoleOwner)
	s.Member(t, "Gallery", "Mira Chen", workspace.RoleViewer)
	r := s.Do(t, galleryOwner, "POST", "/api/spaces/"+gallery+"/tasks", map[string]any{"title": "Hang prints"})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)

	s.Model.SetScript(callsThenSummary(t,
		modelCall{Name: "hub_list_tasks", Args: map[string]any{"space": "Gallery"}},
		newTask("Repaint walls", "Gallery")))
	conv := s.Conversation(t)
	st := askIn(t, s, conv, "add a task called Repaint walls", []string{gallery})
	ends := finished(s.Stream(t, st.StreamURL, 0, 0))
	require.Len(t, ends, 2)
	byTool := map[string]map[string]any{}
	for _, f := range ends {
		byTool[f["tool"].(string)] = f
	}
	list, create := byTool["hub_list_tasks"], byTool["hub_create_tasks"]
	require.NotNil(t, list, "%v", ends)
	require.NotNil(t, create, "%v", ends)
	require.Equal(t, "done", list["phase"], "a viewer reads: %v", list)
	require.Contains(t, list["summary"], "Hang prints")
	require.Equal(t, "failed", create["phase"], "%v", create)
	require.Equal(t, "forbidden", toolErrorCode(t, create), "%v", create)
	require.Equal(t, []string{"Hang prints"}, titlesIn(t, s, galleryOwner, gallery), "nothing written in Gallery")
	require.Empty(t, titlesIn(t, s, s.Token, s.SpaceID), "nor in the conversation's space")
}

// TestCrossSpaceApplyAfterAccessToOneSpaceWasRemoved: the person lost
// access to one space between the proposal and Apply: that space's call
// fails as forbidden, the others' succeed; a retried Apply resends none of
// the succeeded calls.
func TestCrossSpaceApplyAfterAccessToOneSpaceWasRemoved(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`)})
	_, north := s.Member(t, "North", "Mira Chen", workspace.RoleEditor)
	northOwner, _ := s.Member(t, "North", "Nora North", workspace.RoleOwner)
	_, south := s.Member(t, "South", "Mira Chen", workspace.RoleEditor)
	r := s.Do(t, s.Token, "PATCH", "/api/me/settings", map[string]any{"writePolicy": "preview"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)

	s.Model.SetScript(callsThenSummary(t,
		newTask("Draft brief", ""),
		newTask("Order paint", "North"),
		newTask("Book ferry", "South")))
	conv := s.Conversation(t)
	st := askIn(t, s, conv, "add a task called Draft brief", []string{north, south})
	ends := finished(s.Stream(t, st.StreamURL, 0, 0))
	require.Len(t, ends, 3)
	for _, f := range ends {
		require.Equal(t, "held", f["phase"], "%v", f)
	}

	// Mira leaves North.
	res := s.DB.WithContext(context.Background()).Where("space_id = ? AND person_id = ?", north, s.OwnerID).Delete(&storage.Membership{})
	require.NoError(t, res.Error)
	require.EqualValues(t, 1, res.RowsAffected)

	first := applyReceipts(t, s, conv, st.ReplyMessageID)
	require.Len(t, first, 3)
	brief := receiptOf(t, first, heldCall(t, ends, "Draft brief"))
	paint := receiptOf(t, first, heldCall(t, ends, "Order paint"))
	ferry := receiptOf(t, first, heldCall(t, ends, "Book ferry"))
	require.Equal(t, "succeeded", brief.Status, "%+v", brief)
	require.Equal(t, "succeeded", ferry.Status, "%+v", ferry)
	require.Equal(t, "failed", paint.Status, "%+v", paint)
	require.NotNil(t, paint.Error, "%+v", paint)
	require.Equal(t, "forbidden", paint.Error.Code, "%+v", paint)
	require.Equal(t, north, paint.SpaceID)
	require.Equal(t, s.SpaceID, brief.SpaceID)
	require.Equal(t, south, ferry.SpaceID)
	require.NotEqual(t, brief.UndoGroupID, ferry.UndoGroupID, "one Undo group per space")

	require.Equal(t, []string{"Draft brief"}, titlesIn(t, s, s.Token, s.SpaceID))
	require.Equal(t, []string{"Book ferry"}, titlesIn(t, s, s.Token, south))
	require.Empty(t, titlesIn(t, s, northOwner, north), "nothing written in the space Mira left")

	// Retry: the succeeded calls are not sent again.
	again := applyReceipts(t, s, conv, st.ReplyMessageID)
	require.Len(t, again, 3)
	for _, a := range []crossReceipt{brief, ferry} {
		b := receiptOf(t, again, a.CallID)
		require.Equal(t, "succeeded", b.Status, "%+v", b)
		require.Equal(t, a.UndoGroupID, b.UndoGroupID, "the same write, not a new one")
		require.Equal(t, a.SpaceID, b.SpaceID)
	}
	require.Equal(t, "failed", receiptOf(t, again, paint.CallID).Status)
	require.Equal(t, []string{"Draft brief"}, titlesIn(t, s, s.Token, s.SpaceID))
	require.Equal(t, []string{"Book ferry"}, titlesIn(t, s, s.Token, south))
	require.Empty(t, titlesIn(t, s, northOwner, north))
	require.EqualValues(t, 2, totalTasks(t, s))
}

// allFailed checks that a turn ended done with n tool calls, every one
// failed with code.
func allFailed(t *testing.T, events []hubtest.Event, n int, code string) {
	t.Helper()
	require.Equal(t, "done", events[len(events)-1].Data["status"])
	ends := finished(events)
	require.Len(t, ends, n)
	for _, f := range ends {
		require.Equal(t, "failed", f["phase"], "%v", f)
		require.Equal(t, code, toolErrorCode(t, f), "%v", f)
	}
}

// TestCrossSpaceTurnRequestValidation: "spaces" must list spaces the
// person can open, as strings, at most 20 of them; a rejected request
// creates nothing. The conversation's own space and repeats are ignored.
func TestCrossSpaceTurnRequestValidation(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`)})
	_, north := s.Member(t, "North", "Mira Chen", workspace.RoleViewer)
	_, elsewhere := s.Member(t, "Elsewhere", "Olu Ade", workspace.RoleOwner)
	var many []string
	for i := range 21 {
		_, id := s.Member(t, fmt.Sprintf("Space %02d", i), "Mira Chen", workspace.RoleEditor)
		many = append(many, id)
	}
	conv := s.Conversation(t)
	turns := "/api/assistant/conversations/" + conv + "/turns"

	cases := []struct {
		name   string
		spaces any
		status int
		code   string
		path   string // exact; "/spaces/*" means any path under /spaces
	}{
		{"unknown space", []string{"space_nope"}, 404, "not_found", "/spaces/0"},
		{"a space the person cannot open", []string{north, elsewhere}, 404, "not_found", "/spaces/1"},
		{"more than 20", many, 400, "invalid_payload", "/spaces"},
		{"not a list", north, 400, "invalid_payload", "/spaces"},
		{"an object", map[string]any{"id": north}, 400, "invalid_payload", "/spaces"},
		{"not strings", []any{42}, 400, "invalid_payload", "/spaces/*"},
	}
	before := counts(t, s)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := s.Do(t, s.Token, "POST", turns, map[string]any{"text": "add a task called Order paint", "spaces": tc.spaces})
			require.Equal(t, tc.status, r.Status, "%s", r.Body)
			e, ok := r.JSON(t)["error"].(map[string]any)
			require.True(t, ok, "%s", r.Body)
			require.Equal(t, tc.code, e["code"], "%s", r.Body)
			require.NotEmpty(t, e["message"], "%s", r.Body)
			if tc.path == "/spaces/*" {
				require.True(t, strings.HasPrefix(fmt.Sprint(e["path"]), "/spaces"), "%s", r.Body)
			} else {
				require.Equal(t, tc.path, e["path"], "%s", r.Body)
			}
		})
	}
	require.Equal(t, before, counts(t, s), "rejected requests created nothing")
	r := s.Do(t, s.Token, "GET", "/api/assistant/conversations/"+conv+"/messages", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Empty(t, r.JSON(t)["messages"], "no message in the conversation")

	// Exactly 20 is allowed.
	st := askIn(t, s, conv, "add a task called Order paint", many[:20])
	s.Stream(t, st.StreamURL, 0, 0)
	got := turnSpaces(t, s, st.TurnID)
	require.Len(t, got, 20)
	for _, id := range many[:20] {
		require.Contains(t, got, id)
	}

	// The conversation's own space and a repeat are ignored; a viewer's
	// space may be listed.
	st = askIn(t, s, conv, "add a task called Order paint", []string{s.SpaceID, north, north})
	s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, []any{north}, turnSpaces(t, s, st.TurnID))
}

// TestCrossSpaceArgumentOutsideACrossSpaceTurn: a turn started without
// "spaces" does not know the "space" argument: a call that sends one is a
// schema error and writes nothing, whichever space it names.
func TestCrossSpaceArgumentOutsideACrossSpaceTurn(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`)})
	_, north := s.Member(t, "North", "Mira Chen", workspace.RoleOwner)
	s.Model.SetScript(callsThenSummary(t,
		newTask("Draft brief", "Team"),
		newTask("Order paint", north)))
	conv := s.Conversation(t)
	st := s.Ask(t, conv, "add a task called Draft brief")
	allFailed(t, s.Stream(t, st.StreamURL, 0, 0), 2, "invalid_payload")
	require.Zero(t, totalTasks(t, s), "nothing written")
	require.Equal(t, []any{}, turnSpaces(t, s, st.TurnID))

	schemas := toolSchemas(t, s.Model.Requests()[0].Body)
	require.Contains(t, schemas, "hub_create_tasks")
	for name, props := range schemas {
		require.NotContains(t, props, "space", "%s offers no space outside a cross-space turn", name)
	}
}

// A viewer of the conversation's space who edits another of the turn's
// spaces is offered the write tools (the widest role of the turn's spaces),
// and each write is still checked where it acts: it runs there and is
// forbidden here.
func TestCrossSpaceOfferFollowsTheWidestRole(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`)})
	vera, team := s.Member(t, "Team", "Vera Viewer", workspace.RoleViewer)
	_, north := s.Member(t, "North", "Vera Viewer", workspace.RoleEditor)
	r := s.Do(t, vera, "POST", "/api/assistant/conversations", map[string]any{"spaceId": team, "title": "plans"})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	conv := r.JSON(t)["id"].(string)
	s.Model.SetScript(callsThenSummary(t, newTask("Order paint", "North"), newTask("Sweep floor", "")))

	r = s.Do(t, vera, "POST", "/api/assistant/conversations/"+conv+"/turns", map[string]any{"text": "add a task called Order paint", "spaces": []string{north}})
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	var st hubtest.Started
	r.Decode(t, &st)
	ends := finished(s.Stream(t, st.StreamURL, 0, 0))
	require.Len(t, ends, 2)
	byTitle := map[string]map[string]any{}
	for _, f := range ends {
		if strings.Contains(fmt.Sprint(f), "Order paint") {
			byTitle["north"] = f
		} else {
			byTitle["team"] = f
		}
	}
	require.Equal(t, "done", byTitle["north"]["phase"], "%v", byTitle["north"])
	require.Equal(t, "failed", byTitle["team"]["phase"], "%v", byTitle["team"])
	require.Equal(t, "forbidden", toolErrorCode(t, byTitle["team"]))
	require.Contains(t, s.Model.Requests()[0].Tools, "hub_create_tasks", "offered: Vera edits North")
	require.Equal(t, []string{"Order paint"}, titlesIn(t, s, vera, north))
	require.Empty(t, titlesIn(t, s, vera, team))

	// The same person in a turn of the viewer's space alone is offered no write.
	s.Model.SetScript(fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`))
	s.Model.Reset()
	r = s.Do(t, vera, "POST", "/api/assistant/conversations/"+conv+"/turns", map[string]any{"text": "add a task called Sweep floor"})
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	r.Decode(t, &st)
	s.Stream(t, st.StreamURL, 0, 0)
	require.NotContains(t, s.Model.Requests()[0].Tools, "hub_create_tasks")
}

// A space of the turn that the person has left since is forbidden, named
// by its name as by its id; nothing is written there. (A retried turn keeps
// the spaces it was started with, checked then.)
func TestCrossSpaceALeftSpaceIsForbiddenByNameOrId(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(
		`{"rules": [{"reply": {"fault": {"kind": "http_error", "status": 400}}}]}`)})
	_, north := s.Member(t, "North", "Mira Chen", workspace.RoleEditor)
	conv := s.Conversation(t)
	first := askIn(t, s, conv, "add a task called By name", []string{north})
	events := s.Stream(t, first.StreamURL, 0, 0)
	require.Equal(t, "error", events[len(events)-1].Data["status"], "the first try fails")

	require.NoError(t, s.DB.WithContext(context.Background()).Where("space_id = ? AND person_id = ?", north, s.OwnerID).
		Delete(&storage.Membership{}).Error)
	s.Model.SetScript(callsThenSummary(t, newTask("By name", "north"), newTask("By id", north)))
	r := s.Do(t, s.Token, "POST", "/api/assistant/turns/"+first.TurnID+"/retry", nil)
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	var st hubtest.Started
	r.Decode(t, &st)
	require.Equal(t, []any{north}, turnSpaces(t, s, st.TurnID), "the retry keeps its spaces")
	allFailed(t, s.Stream(t, st.StreamURL, 0, 0), 2, "forbidden")
	require.Zero(t, totalTasks(t, s))
}
