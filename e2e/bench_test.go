//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/activities"
	"hub/chat"
	"hub/fakemodel"
	"hub/hubtest"
	"hub/workspace"
)

// threeCallsTwoTools: three model calls (list, create, answer) with two tool
// calls between them, from a zero-delay model.
const threeCallsTwoTools = `{"rules": [
  {"name": "list", "match": {"afterToolResult": false}, "reply": {"toolCalls": [{"name": "hub_list_tasks", "arguments": {}}]}},
  {"name": "create", "times": 1, "match": {"afterToolResult": true}, "reply": {"toolCalls": [{"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "Bench"}]}}]}},
  {"name": "answer", "match": {"afterToolResult": true}, "reply": {"text": "Done."}}
]}`

// BenchmarkTurn measures one turn of 3 model calls and 2 tool calls,
// end to end through the HTTP api (POST the message, read the stream to
// done) against real Postgres and an embedded Temporal server, next to the
// same activities called in a plain in-process loop without Temporal. It
// reports the median and p99 of each; docs/benchmarks.md has the numbers.
func BenchmarkTurn(b *testing.B) {
	s := hubtest.Start(b, hubtest.Options{Script: fakemodel.MustParseScript(threeCallsTwoTools)})
	b.Run("api", func(b *testing.B) {
		var d []time.Duration
		for b.Loop() {
			s.Model.Reset()
			conv := s.Conversation(b)
			start := time.Now()
			st := s.Ask(b, conv, "add a task")
			events := s.Stream(b, st.StreamURL, 0, 0)
			d = append(d, time.Since(start))
			require.Equal(b, "done", events[len(events)-1].Data["status"])
		}
		report(b, d)
	})
	b.Run("in-process", func(b *testing.B) {
		ctx := context.Background()
		var d []time.Duration
		for b.Loop() {
			s.Model.Reset()
			conv := s.Conversation(b)
			start := time.Now()
			turn, err := s.Chat.StartTurn(ctx, chat.NewTurn{ConversationID: conv, PersonID: s.OwnerID, Text: "add a task"})
			require.NoError(b, err)
			runLoop(b, s.Activities, turn.ID)
			d = append(d, time.Since(start))
			got, _, err := s.Chat.GetTurn(ctx, turn.ID)
			require.NoError(b, err)
			require.Equal(b, chat.StatusDone, got.Status)
		}
		report(b, d)
	})
}

// runLoop is the Turn workflow's loop as plain calls.
func runLoop(b *testing.B, a *activities.Activities, turnID string) {
	ctx := context.Background()
	plan, err := a.PrepareTurn(ctx, activities.TurnRef{TurnID: turnID})
	require.NoError(b, err)
	for step := 1; step <= plan.MaxSteps; step++ {
		ms, err := a.CallModel(ctx, activities.CallModelInput{TurnID: turnID, Step: step, ToolsOff: step == plan.MaxSteps})
		require.NoError(b, err)
		if len(ms.ToolCalls) == 0 {
			break
		}
		for _, c := range ms.ToolCalls {
			_, err := a.RunTool(ctx, activities.RunToolInput{TurnID: turnID, CallID: c.ID})
			require.NoError(b, err)
		}
	}
	require.NoError(b, a.FinishTurn(ctx, activities.FinishInput{TurnID: turnID, Status: "done"}))
}

func report(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	ms := func(x time.Duration) float64 { return float64(x) / float64(time.Millisecond) }
	b.ReportMetric(ms(d[len(d)/2]), "p50-ms")
	b.ReportMetric(ms(d[(len(d)*99)/100]), "p99-ms")
	b.ReportMetric(0, "ns/op") // the percentiles are the measure
}

// BenchmarkApply measures Apply of 1, 10 and 100 held writes (one task
// each) through the api, in one space and spread over 10 spaces (a turn
// started with "spaces", its calls naming them round robin), next to the
// same writes made directly through the domain service: one transaction
// per space, the spaces one after another.
func BenchmarkApply(b *testing.B) {
	for _, spread := range []int{1, 10} {
		s := hubtest.Start(b, hubtest.Options{})
		r := s.Do(b, s.Token, "PATCH", "/api/me/settings", map[string]any{"writePolicy": "preview"})
		require.Equal(b, http.StatusOK, r.Status)
		spaces := []string{s.SpaceID}
		for i := 1; i < spread; i++ {
			_, id := s.Member(b, fmt.Sprintf("Space %d", i), "Mira Chen", workspace.RoleOwner)
			spaces = append(spaces, id)
		}
		where := "one-space"
		if spread > 1 {
			where = fmt.Sprintf("%d-spaces", spread)
		}
		for _, n := range []int{1, 10, 100} {
			if n < spread {
				continue // fewer writes than spaces: not across them
			}
			calls := make([]string, n)
			for i := range calls {
				space := ""
				if spread > 1 {
					space = fmt.Sprintf(`, "space": %q`, spaces[i%spread])
				}
				calls[i] = fmt.Sprintf(`{"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "Task %d"}]%s}}`, i, space)
			}
			script := `{"rules": [{"times": 1, "reply": {"toolCalls": [` + strings.Join(calls, ",") + `]}}, {"reply": {"text": "Proposed."}}]}`
			b.Run(fmt.Sprintf("api/%s/%d", where, n), func(b *testing.B) {
				s.Model.SetScript(fakemodel.MustParseScript(script))
				var d []time.Duration
				for b.Loop() {
					b.StopTimer()
					s.Model.Reset()
					conv := s.Conversation(b)
					r := s.Do(b, s.Token, "POST", "/api/assistant/conversations/"+conv+"/turns", map[string]any{"text": "add them", "spaces": spaces[1:]})
					require.Equal(b, http.StatusAccepted, r.Status, "%s", r.Body)
					var st hubtest.Started
					r.Decode(b, &st)
					s.Stream(b, st.StreamURL, 0, 0)
					b.StartTimer()
					start := time.Now()
					r = s.Do(b, s.Token, "POST", "/api/assistant/apply", map[string]any{"conversationId": conv, "messageId": st.ReplyMessageID})
					d = append(d, time.Since(start))
					require.Equal(b, http.StatusOK, r.Status, "%s", r.Body)
					var res struct {
						Receipts []struct{ Status, SpaceID string }
					}
					r.Decode(b, &res)
					require.Len(b, res.Receipts, n)
					for i, rc := range res.Receipts {
						require.Equal(b, "succeeded", rc.Status)
						require.Equal(b, spaces[i%spread], rc.SpaceID)
					}
				}
				report(b, d)
			})
			b.Run(fmt.Sprintf("store/%s/%d", where, n), func(b *testing.B) {
				ctx := context.Background()
				actor := workspace.Actor{PersonID: s.OwnerID, Via: workspace.ViaREST}
				var d []time.Duration
				for b.Loop() {
					start := time.Now()
					for sp, spaceID := range spaces {
						err := s.Workspace.InTx(ctx, func(ctx context.Context) error {
							for i := sp; i < n; i += spread {
								if _, err := s.Workspace.CreateTasks(ctx, actor, spaceID, "/tasks", []workspace.NewTask{{Title: fmt.Sprintf("Task %d", i)}}); err != nil {
									return err
								}
							}
							return nil
						})
						require.NoError(b, err)
					}
					d = append(d, time.Since(start))
				}
				report(b, d)
			})
		}
	}
}

// BenchmarkPrepareTurnScreen measures PrepareTurn (the local activity that
// renders the instructions and the context) for a message without a page,
// and for one whose page carries an open task and 100 selected and 100
// visible ids (half of them tasks of the space, half naming nothing), with
// 10 of the conversation's records changed by someone else since the
// person's last message: what resolving the screen and reading the change
// log add to a turn.
func BenchmarkPrepareTurnScreen(b *testing.B) {
	s := hubtest.Start(b, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`)})
	ctx := context.Background()
	ken, _ := s.Member(b, "Team", "Ken Ito", "editor")
	var ids []string
	var mentions []workspace.Ref
	for i := range 50 {
		r := s.Do(b, s.Token, "POST", "/api/spaces/"+s.SpaceID+"/tasks", map[string]any{"title": fmt.Sprintf("Card %d", i)})
		require.Equal(b, http.StatusCreated, r.Status)
		id := r.JSON(b)["id"].(string)
		ids = append(ids, id, fmt.Sprintf("task_nothing%03d", i))
		if i < 10 {
			mentions = append(mentions, workspace.Ref{Kind: "task", ID: id, Label: fmt.Sprintf("Card %d", i)})
		}
	}
	page := fmt.Sprintf(`{"path":"/board","open":{"kind":"task","id":%q},"surface":{"kind":"board","selectedIds":%s,"visibleIds":%s}}`,
		ids[0], jsonList(ids), jsonList(ids))
	// One finished exchange that knows 10 cards, then Ken changes them.
	conv := s.Conversation(b)
	first, err := s.Chat.StartTurn(ctx, chat.NewTurn{ConversationID: conv, PersonID: s.OwnerID, Text: "look at these", Mentions: mentions})
	require.NoError(b, err)
	_, err = s.Chat.FinishTurn(ctx, first.ID, chat.Ending{Status: chat.StatusDone, Text: "ok"})
	require.NoError(b, err)
	for _, m := range mentions {
		r := s.Do(b, ken, "PATCH", "/api/spaces/"+s.SpaceID+"/tasks/"+m.ID, map[string]any{"status": "doing"})
		require.Equal(b, http.StatusOK, r.Status)
	}
	// The two kinds of message alternate in one loop, so both meet the
	// same load on a shared machine.
	prepare := func(page string) time.Duration {
		turn, err := s.Chat.StartTurn(ctx, chat.NewTurn{ConversationID: conv, PersonID: s.OwnerID, Text: "what now?", PageContext: page})
		require.NoError(b, err)
		start := time.Now()
		_, err = s.Activities.PrepareTurn(ctx, activities.TurnRef{TurnID: turn.ID})
		took := time.Since(start)
		require.NoError(b, err)
		// An error turn leaves history as it was, so every run sees the
		// same last message and the same changes.
		_, err = s.Chat.FinishTurn(ctx, turn.ID, chat.Ending{Status: chat.StatusError, ErrorCode: "failed"})
		require.NoError(b, err)
		return took
	}
	var plain, screen []time.Duration
	for b.Loop() {
		plain = append(plain, prepare(""))
		screen = append(screen, prepare(page))
	}
	slices.Sort(plain)
	slices.Sort(screen)
	ms := func(x time.Duration) float64 { return float64(x) / float64(time.Millisecond) }
	b.ReportMetric(ms(plain[len(plain)/2]), "no-page-p50-ms")
	b.ReportMetric(ms(plain[(len(plain)*99)/100]), "no-page-p99-ms")
	b.ReportMetric(ms(screen[len(screen)/2]), "page-p50-ms")
	b.ReportMetric(ms(screen[(len(screen)*99)/100]), "page-p99-ms")
	b.ReportMetric(0, "ns/op")
}

func jsonList(ids []string) string {
	return `["` + strings.Join(ids, `","`) + `"]`
}
