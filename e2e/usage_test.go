//go:build e2e

package e2e

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/activities"
	"hub/fakemodel"
	"hub/hubtest"
	"hub/llm"
	"hub/storage"
	"hub/usage"
	"hub/workspace"
)

// testPrice is the scripted model's price in these tests, in dollars per
// million tokens.
var testPrice = llm.Price{Input: 2, CachedInput: 0.5, Output: 8}

func priced(llm.Price) func(string) llm.Price {
	return func(string) llm.Price { return testPrice }
}

// threeCalls: list, create, answer — three model calls, some of their
// input from the provider's cache.
const threeCalls = `{"rules": [
  {"match": {"afterToolResult": false},
   "reply": {"toolCalls": [{"name": "hub_list_tasks", "arguments": {}}], "usage": {"input": 1000, "cached": 400, "output": 10}}},
  {"times": 1, "match": {"afterToolResult": true},
   "reply": {"toolCalls": [{"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "Draft brief"}]}}], "usage": {"input": 2000, "output": 20}}},
  {"match": {"afterToolResult": true}, "reply": {"text": "Done.", "usage": {"input": 3000, "cached": 2500, "output": 30}}}
]}`

// turnCalls are a turn's model calls, oldest first.
func turnCalls(t *testing.T, s *hubtest.Stack, turnID string) []storage.ModelCall {
	t.Helper()
	var rows []storage.ModelCall
	require.NoError(t, s.DB.Where("turn_id = ?", turnID).Order("created_at, id").Find(&rows).Error)
	return rows
}

func spaceSpend(t *testing.T, s *hubtest.Stack, spaceID string) storage.SpaceSpend {
	t.Helper()
	var row storage.SpaceSpend
	require.NoError(t, s.DB.Where("space_id = ? AND month = ?", spaceID, usage.Month(time.Now())).Take(&row).Error)
	return row
}

func TestEveryModelCallSavesItsUsageAndCost(t *testing.T) {
	t.Parallel()
	for _, engine := range []struct {
		name   string
		sqlite bool
	}{{"postgres", false}, {"sqlite", true}} {
		t.Run(engine.name, func(t *testing.T) {
			t.Parallel()
			everyModelCallSavesItsUsage(t, hubtest.Start(t, hubtest.Options{SQLite: engine.sqlite,
				Script: fakemodel.MustParseScript(threeCalls), Price: priced(testPrice)}))
		})
	}
}

func everyModelCallSavesItsUsage(t *testing.T, s *hubtest.Stack) {
	st := s.Ask(t, s.Conversation(t), "add a task to draft the brief")
	events := s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "done", events[len(events)-1].Data["status"])

	rows := turnCalls(t, s, st.TurnID)
	require.Len(t, rows, 3, "one row per model call")
	want := []llm.Usage{{InputTokens: 1000, CachedInputTokens: 400, OutputTokens: 10}, {InputTokens: 2000, OutputTokens: 20},
		{InputTokens: 3000, CachedInputTokens: 2500, OutputTokens: 30}}
	var cost int64
	for i, r := range rows {
		require.Equal(t, usage.StatusSettled, r.Status)
		require.Equal(t, i+1, r.Step)
		require.Equal(t, s.SpaceID, r.SpaceID)
		require.Equal(t, s.OwnerID, r.PersonID)
		require.Equal(t, "fakemodel", r.Model)
		require.Equal(t, int64(want[i].InputTokens), r.InputTokens)
		require.Equal(t, int64(want[i].CachedInputTokens), r.CachedInputTokens)
		require.Equal(t, int64(want[i].OutputTokens), r.OutputTokens)
		require.Equal(t, testPrice.Cost(want[i]), r.CostMicros)
		cost += r.CostMicros
	}
	// 600 fresh × $2 + 400 cached × $0.50 + 10 out × $8, … per million.
	require.Equal(t, int64(1200+200+80+4000+160+1000+1250+240), cost)
	sp := spaceSpend(t, s, s.SpaceID)
	require.Equal(t, cost, sp.SpentMicros)
	require.Zero(t, sp.ReservedMicros, "every reservation settled")

	r := s.Do(t, s.Token, "GET", "/api/usage?groupBy=model", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	body := r.JSON(t)
	total := body["total"].(map[string]any)
	require.EqualValues(t, 3, total["calls"])
	require.EqualValues(t, 6000, total["inputTokens"])
	require.EqualValues(t, 2900, total["cachedInputTokens"])
	require.EqualValues(t, 60, total["outputTokens"])
	require.EqualValues(t, cost, total["costMicros"])
	require.Equal(t, usage.Dollars(cost), total["cost"])
	groups := body["groups"].([]any)
	require.Len(t, groups, 1)
	require.Equal(t, "fakemodel", groups[0].(map[string]any)["key"])

	// The worker's per-model series are on the process's /metrics.
	m := s.Do(t, "", "GET", "/metrics", nil)
	require.Equal(t, http.StatusOK, m.Status)
	text := string(m.Body)
	for _, line := range []string{
		`hub_model_calls_total{model="fakemodel",outcome="ok"} 3`,
		`hub_model_tokens_total{kind="cached_input",model="fakemodel"} 2900`,
		`hub_model_tokens_total{kind="input",model="fakemodel"} 6000`,
		`hub_model_tokens_total{kind="output",model="fakemodel"} 60`,
		`hub_model_cost_microdollars_total{model="fakemodel"} 8130`,
		`hub_model_call_duration_seconds_count{model="fakemodel"} 3`,
	} {
		require.True(t, strings.Contains(text, line), "/metrics lacks %s", line)
	}
}

// TestRetriedModelCallCountsEachRequestOnce: the first attempt dies with
// its reservation open (before its request), the second after its request
// settled with its step saved (before it reported), the third goes through. The
// provider saw two requests; usage has exactly those two, and nothing is
// left reserved.
func TestRetriedModelCallCountsEachRequestOnce(t *testing.T) {
	t.Parallel()
	var reservedOnce, settledOnce atomic.Bool
	fault := func(point string) error {
		switch {
		case point == activities.FaultModelReserved && reservedOnce.CompareAndSwap(false, true):
			return context.DeadlineExceeded // a worker killed with the reservation open
		case point == activities.FaultModelSettled && settledOnce.CompareAndSwap(false, true):
			return context.DeadlineExceeded // killed after the request settled and the step was saved
		}
		return nil
	}
	s := hubtest.Start(t, hubtest.Options{Fault: fault, Price: priced(testPrice),
		Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "Hello.", "usage": {"input": 100, "output": 10}}}]}`)})
	st := s.Ask(t, s.Conversation(t), "hi")
	events := s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "done", events[len(events)-1].Data["status"])
	require.Len(t, s.Model.Requests(), 2, "the provider saw two requests")

	rows := turnCalls(t, s, st.TurnID)
	require.Len(t, rows, 3)
	statuses := map[string]int{}
	var cost int64
	for _, r := range rows {
		statuses[r.Status]++
		cost += r.CostMicros
	}
	require.Equal(t, map[string]int{usage.StatusReleased: 1, usage.StatusSettled: 2}, statuses)
	one := testPrice.Cost(llm.Usage{InputTokens: 100, OutputTokens: 10})
	require.Equal(t, 2*one, cost)
	sp := spaceSpend(t, s, s.SpaceID)
	require.Equal(t, 2*one, sp.SpentMicros)
	require.Zero(t, sp.ReservedMicros, "the dead attempt's reservation was released")

	r := s.Do(t, s.Token, "GET", "/api/usage", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	body := r.JSON(t)
	require.EqualValues(t, 2, body["total"].(map[string]any)["calls"], "calls = the provider's requests")
	require.Equal(t, []any{}, body["groups"], "no grouping asked for")
}

// askInSpace posts a message as the token's person in a new conversation of a
// space and waits for the turn's end.
func askInSpace(t *testing.T, s *hubtest.Stack, token, spaceID, text string) hubtest.Started {
	t.Helper()
	r := s.Do(t, token, "POST", "/api/assistant/conversations", map[string]any{"spaceId": spaceID, "title": "t"})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	conv := r.JSON(t)["id"].(string)
	r = s.Do(t, token, "POST", "/api/assistant/conversations/"+conv+"/turns", map[string]any{"text": text})
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	var st hubtest.Started
	r.Decode(t, &st)
	return st
}

func usageOf(t *testing.T, s *hubtest.Stack, token, query string) (int, map[string]any) {
	t.Helper()
	r := s.Do(t, token, "GET", "/api/usage"+query, nil)
	return r.Status, r.JSON(t)
}

func groupKeys(body map[string]any) []string {
	var keys []string
	for _, g := range body["groups"].([]any) {
		keys = append(keys, g.(map[string]any)["key"].(string))
	}
	return keys
}

func TestUsageOwnersSeeTheirSpaceOthersTheirOwn(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Price: priced(testPrice),
		Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok", "usage": {"input": 100, "output": 10}}}]}`)})
	samToken, _ := s.Member(t, "Team", "Sam Park", workspace.RoleEditor)
	olgaToken, elsewhere := s.Member(t, "Elsewhere", "Olga Berg", workspace.RoleOwner)
	for _, a := range []struct{ token, space string }{{s.Token, s.SpaceID}, {samToken, s.SpaceID}, {samToken, s.SpaceID}, {olgaToken, elsewhere}} {
		st := askInSpace(t, s, a.token, a.space, "hello")
		events := s.Stream(t, st.StreamURL, 0, 0)
		require.Equal(t, "done", events[len(events)-1].Data["status"])
	}
	one := testPrice.Cost(llm.Usage{InputTokens: 100, OutputTokens: 10})
	var samID string
	require.NoError(t, s.DB.Model(&storage.Person{}).Where("name = ?", "Sam Park").Pluck("id", &samID).Error)

	// The owner: everyone in Team, not Olga's space.
	status, body := usageOf(t, s, s.Token, "?groupBy=person")
	require.Equal(t, http.StatusOK, status)
	require.EqualValues(t, 3, body["total"].(map[string]any)["calls"])
	require.EqualValues(t, 3*one, body["total"].(map[string]any)["costMicros"])
	require.ElementsMatch(t, []string{s.OwnerID, samID}, groupKeys(body))
	status, body = usageOf(t, s, s.Token, "?groupBy=space&spaceId="+s.SpaceID)
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, []string{s.SpaceID}, groupKeys(body))

	// A member: their own calls only, in the space or everywhere.
	for _, q := range []string{"?groupBy=person", "?groupBy=person&spaceId=" + s.SpaceID} {
		status, body = usageOf(t, s, samToken, q)
		require.Equal(t, http.StatusOK, status)
		require.Equal(t, []string{samID}, groupKeys(body), q)
		require.EqualValues(t, 2, body["total"].(map[string]any)["calls"])
	}
	// Another space's owner sees nothing of Team, and cannot ask for it.
	status, body = usageOf(t, s, olgaToken, "?groupBy=space")
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, []string{elsewhere}, groupKeys(body))
	status, body = usageOf(t, s, olgaToken, "?groupBy=model&from=2026-01-01&to=2026-01-31")
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, []any{}, body["groups"], "a range without calls")
	status, body = usageOf(t, s, olgaToken, "?spaceId="+s.SpaceID)
	require.Equal(t, http.StatusNotFound, status)
	require.Equal(t, "not_found", body["error"].(map[string]any)["code"])

	// Ranges and by-day.
	today := time.Now().UTC().Format(time.DateOnly)
	status, body = usageOf(t, s, s.Token, "?groupBy=day&from="+today+"&to="+today)
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, []string{today}, groupKeys(body))
	status, body = usageOf(t, s, s.Token, "?to="+time.Now().Add(-48*time.Hour).UTC().Format(time.RFC3339)+"&from=2000-01-01T00:00:00Z")
	require.Equal(t, http.StatusBadRequest, status, "a range of over a year")
	require.Equal(t, "/to", body["error"].(map[string]any)["path"])

	for q, path := range map[string]string{
		"?from=yesterday":                      "/from",
		"?to=2026-13-01":                       "/to",
		"?groupBy=week":                        "/groupBy",
		"?from=2026-06-02&to=2026-06-01":       "/to",
		"?from=2025-01-01&to=2026-06-01":       "/to",
		"?from=2026-06-01T00:00:00&to=2026-07": "/from",
	} {
		status, body = usageOf(t, s, s.Token, q)
		require.Equal(t, http.StatusBadRequest, status, q)
		require.Equal(t, "invalid_payload", body["error"].(map[string]any)["code"], q)
		require.Equal(t, path, body["error"].(map[string]any)["path"], q)
	}
}

func setBudget(t *testing.T, s *hubtest.Stack, token string, budget any) hubtest.Response {
	t.Helper()
	return s.Do(t, token, "PATCH", "/api/spaces/"+s.SpaceID+"/settings", map[string]any{"monthlyBudget": budget})
}

func TestBudgetEndsATurnBeforeSpendingAndRetryWorksOnceRaised(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Price: priced(testPrice),
		Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "Hello.", "usage": {"input": 100, "output": 10}}}]}`)})
	samToken, _ := s.Member(t, "Team", "Sam Park", workspace.RoleEditor)

	// Bad budgets and non-owners change nothing.
	for _, bad := range []any{-1, 1.5, "5", true, map[string]any{}} {
		r := setBudget(t, s, s.Token, bad)
		require.Equal(t, http.StatusBadRequest, r.Status, "%v: %s", bad, r.Body)
		require.Equal(t, "/monthlyBudget", r.JSON(t)["error"].(map[string]any)["path"])
	}
	r := setBudget(t, s, samToken, 5)
	require.Equal(t, http.StatusForbidden, r.Status, "%s", r.Body)
	r = s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/settings", nil)
	require.Equal(t, http.StatusOK, r.Status)
	require.Nil(t, r.JSON(t)["monthlyBudget"], "no budget yet")

	// $0.01 cannot hold a call that may write 4,096 tokens at $8 per million.
	r = setBudget(t, s, s.Token, 10_000)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.EqualValues(t, 10_000, r.JSON(t)["monthlyBudget"])
	st := s.Ask(t, s.Conversation(t), "hi")
	events := s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "error", events[len(events)-1].Data["status"])
	errFrame := events[len(events)-2]
	require.Equal(t, "error", errFrame.Type)
	require.Equal(t, "budget_exceeded", errFrame.Data["code"])
	msg := errFrame.Data["message"].(string)
	require.Contains(t, msg, "monthly budget of $0.01")
	require.Contains(t, msg, "$0.01 is left")
	require.Contains(t, msg, "Retry")
	require.Empty(t, s.Model.Requests(), "no request reached the model")
	turn := s.AwaitStatus(t, st.TurnID)
	require.Equal(t, "budget_exceeded", turn["error"].(map[string]any)["code"])
	require.Empty(t, turnCalls(t, s, st.TurnID), "a refused call is not usage")

	// The owner raises it; Retry answers.
	r = setBudget(t, s, s.Token, 1_000_000)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	r = s.Do(t, s.Token, "POST", "/api/assistant/turns/"+st.TurnID+"/retry", nil)
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	var retry hubtest.Started
	r.Decode(t, &retry)
	events = s.Stream(t, retry.StreamURL, 0, 0)
	require.Equal(t, "done", events[len(events)-1].Data["status"])
	require.Len(t, s.Model.Requests(), 1)
	r = s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/settings", nil)
	settings := r.JSON(t)
	one := testPrice.Cost(llm.Usage{InputTokens: 100, OutputTokens: 10})
	require.EqualValues(t, one, settings["spent"])
	require.EqualValues(t, 0, settings["reserved"])
	require.EqualValues(t, 1_000_000-one, settings["left"])
	// null removes the budget.
	r = setBudget(t, s, s.Token, nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Nil(t, r.JSON(t)["monthlyBudget"])
}

// TestTwoTurnsRaceForABudgetThatHoldsOne: the first turn's call holds its
// reservation (its worker is slow to send) while the second turn's call
// reserves: the budget holds one estimate, so the second ends with
// budget_exceeded and the model sees one request.
func TestTwoTurnsRaceForABudgetThatHoldsOne(t *testing.T) {
	t.Parallel()
	reserved, release := make(chan struct{}), make(chan struct{})
	var first sync.Once
	fault := func(point string) error {
		if point == activities.FaultModelReserved {
			first.Do(func() {
				close(reserved)
				select {
				case <-release:
				case <-time.After(time.Minute):
				}
			})
		}
		return nil
	}
	s := hubtest.Start(t, hubtest.Options{Fault: fault, Price: func(string) llm.Price { return llm.Price{Output: 100} },
		Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "Hello.", "usage": {"input": 100, "output": 10}}}]}`)})
	// One estimate is 4,096 tokens × $100 per million = $0.4096; two do not fit $0.60.
	r := setBudget(t, s, s.Token, 600_000)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	a := askInSpace(t, s, s.Token, s.SpaceID, "first")
	<-reserved
	b := askInSpace(t, s, s.Token, s.SpaceID, "second")
	turnB := s.AwaitStatus(t, b.TurnID)
	require.Equal(t, "budget_exceeded", turnB["error"].(map[string]any)["code"])
	require.Contains(t, turnB["error"].(map[string]any)["message"], "$0.1904 is left")
	close(release)
	turnA := s.AwaitStatus(t, a.TurnID)
	require.Equal(t, "done", turnA["status"])
	require.Len(t, s.Model.Requests(), 1)
}

// TestSweeperReleasesAReservationNothingSettled: a call reserved and its
// worker gone for good (no retry came): the sweeper releases it once it is
// older than the model timeout plus 5 minutes, and the space's budget has
// it back.
func TestSweeperReleasesAReservationNothingSettled(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{NoModel: true})
	created := time.Now().UTC()
	require.NoError(t, s.DB.Create(&storage.ModelCall{ID: "turn_x.1.run.5.1.1", TurnID: "turn_x", Step: 1, ConversationID: "c",
		SpaceID: s.SpaceID, PersonID: s.OwnerID, Model: "m", Status: usage.StatusReserved, Day: usage.Day(created),
		ReservedMicros: 4000, CreatedAt: created}).Error)
	require.NoError(t, s.DB.Create(&storage.SpaceSpend{SpaceID: s.SpaceID, Month: usage.Month(created), ReservedMicros: 4000}).Error)

	require.Zero(t, s.Sweep(t, time.Now()).Reservations, "not before its bound")
	swept := s.Sweep(t, time.Now().Add(llm.MaxTimeout+5*time.Minute+time.Second)) // past any model timeout
	require.Equal(t, int64(1), swept.Reservations)
	require.Zero(t, spaceSpend(t, s, s.SpaceID).ReservedMicros)
	var row storage.ModelCall
	require.NoError(t, s.DB.Where("id = ?", "turn_x.1.run.5.1.1").Take(&row).Error)
	require.Equal(t, usage.StatusReleased, row.Status)
}
