//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
)

// Keys of the two endpoints: long enough that finding one in a body
// cannot be chance.
const (
	keyA = "sk-endpoint-a-0123456789abcdef"
	keyB = "sk-endpoint-b-fedcba9876543210"
)

// catalogStack runs Hub with a catalog of two endpoints, each a scripted
// model on loopback with its own key: "small" (the default, on A, no
// effort, no images), "deep" (on B, sent as "deep-v2", efforts low and
// high, with a window and prices) and "tiny" (on A, a 2,048-token window);
// small and tiny are of tier "fast", deep of "strong".
func catalogStack(t *testing.T, scriptA, scriptB string) (s *hubtest.Stack, a, b *fakemodel.Server) {
	t.Helper()
	start := func(script string) (*fakemodel.Server, string) {
		m := fakemodel.New(fakemodel.MustParseScript(script))
		base, err := m.Start("127.0.0.1:0")
		require.NoError(t, err)
		t.Cleanup(func() { _ = m.Close() })
		return m, base
	}
	a, baseA := start(scriptA)
	b, baseB := start(scriptB)
	catalog := fmt.Sprintf(`{
	  "endpoints": [
	    {"name": "hosted", "baseUrl": %q, "apiKeyEnv": "HOSTED_KEY"},
	    {"name": "local", "baseUrl": %q, "apiKeyEnv": "LOCAL_KEY"}],
	  "models": [
	    {"name": "small", "endpoint": "hosted", "default": true, "files": true, "tier": "fast",
	     "price": {"input": 0.4, "cachedInput": 0.1, "output": 1.6}},
	    {"id": "deep", "name": "deep-v2", "endpoint": "local", "contextWindow": 200000,
	     "efforts": ["low", "high"], "images": true, "files": true, "tier": "strong",
	     "price": {"input": 2, "cachedInput": 0.5, "output": 8}},
	    {"name": "tiny", "endpoint": "hosted", "contextWindow": 2048, "tier": "fast"}]}`, baseA, baseB)
	s = hubtest.Start(t, hubtest.Options{NoModel: true, Env: map[string]string{
		"HUB_MODELS": catalog, "HOSTED_KEY": keyA, "LOCAL_KEY": keyB}})
	return s, a, b
}

const answerOnly = `{"rules": [{"reply": {"text": "Here you are."}}]}`

// askModel posts a message with the given extra fields.
func askModel(t *testing.T, s *hubtest.Stack, conv string, fields map[string]any) hubtest.Response {
	t.Helper()
	body := map[string]any{"text": "what is on my plate"}
	for k, v := range fields {
		body[k] = v
	}
	return s.Do(t, s.Token, "POST", "/api/assistant/conversations/"+conv+"/turns", body)
}

func errorPath(t *testing.T, r hubtest.Response) string {
	t.Helper()
	e := r.JSON(t)["error"].(map[string]any)
	require.Equal(t, "invalid_payload", e["code"], "%s", r.Body)
	p, _ := e["path"].(string)
	return p
}

// GET /api/models lists what a person may choose, never an endpoint's key,
// the variable holding it or its address.
func TestModelsAreListedWithoutKeys(t *testing.T) {
	t.Parallel()
	s, _, _ := catalogStack(t, answerOnly, answerOnly)
	r := s.Do(t, s.Token, "GET", "/api/models", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	body := string(r.Body)
	for _, secret := range []string{keyA, keyB, "HOSTED_KEY", "LOCAL_KEY", "127.0.0.1", "apiKey", "baseUrl", "endpoint"} {
		require.NotContains(t, body, secret)
	}
	require.JSONEq(t, `{"default": "small", "models": [
	  {"id": "small", "name": "small", "contextWindow": 0, "efforts": [], "images": false, "files": true,
	   "price": {"input": 0.4, "cachedInput": 0.1, "output": 1.6}, "default": true, "tier": "fast"},
	  {"id": "deep", "name": "deep-v2", "contextWindow": 200000, "efforts": ["low", "high"], "images": true, "files": true,
	   "price": {"input": 2, "cachedInput": 0.5, "output": 8}, "default": false, "tier": "strong"},
	  {"id": "tiny", "name": "tiny", "contextWindow": 2048, "efforts": [], "images": false, "files": false,
	   "price": {"input": 0, "cachedInput": 0, "output": 0}, "default": false, "tier": "fast"}]}`, body)
	require.Equal(t, http.StatusUnauthorized, s.Do(t, "", "GET", "/api/models", nil).Status)
}

// An unknown model or an effort the model does not take is refused at its
// path before anything is saved or any model is called; settings are
// checked the same way.
func TestTurnModelAndEffortAreCheckedBeforeSpending(t *testing.T) {
	t.Parallel()
	s, a, b := catalogStack(t, answerOnly, answerOnly)
	conv := s.Conversation(t)
	for _, c := range []struct {
		fields map[string]any
		path   string
	}{
		{map[string]any{"model": "gpt-9"}, "/model"},
		{map[string]any{"model": "deep", "effort": "medium"}, "/effort"},
		{map[string]any{"model": "small", "effort": "low"}, "/effort"},
		{map[string]any{"effort": "high"}, "/effort"}, // the default, small, takes none
		{map[string]any{"model": "gpt-9", "effort": "high"}, "/model"},
		{map[string]any{"tier": "huge"}, "/tier"},
		{map[string]any{"tier": "strong", "model": "deep"}, "/tier"},
		{map[string]any{"tier": "fast", "effort": "high"}, "/effort"},
	} {
		r := askModel(t, s, conv, c.fields)
		require.Equal(t, http.StatusBadRequest, r.Status, "%v: %s", c.fields, r.Body)
		require.Equal(t, c.path, errorPath(t, r), "%v", c.fields)
	}
	msgs := s.Do(t, s.Token, "GET", "/api/assistant/conversations/"+conv+"/messages", nil).JSON(t)["messages"].([]any)
	require.Empty(t, msgs, "nothing saved")
	require.Empty(t, a.Requests(), "no request reached a model")
	require.Empty(t, b.Requests())

	for body, path := range map[string]string{
		`{"model": "gpt-9"}`:                    "/model",
		`{"model": "deep", "effort": "medium"}`: "/effort",
		`{"effort": "low"}`:                     "/effort",
	} {
		r := s.Do(t, s.Token, "PATCH", "/api/me/settings", json.RawMessage(body))
		require.Equal(t, http.StatusBadRequest, r.Status, "%s: %s", body, r.Body)
		require.Equal(t, path, errorPath(t, r), body)
	}
	st := s.Do(t, s.Token, "GET", "/api/me/settings", nil).JSON(t)
	require.Equal(t, "", st["model"], "nothing changed")
	require.Equal(t, "", st["effort"])
}

// A turn that names model B reaches B's endpoint with B's key, B's
// provider name and the effort; the turn shows what it ran with, a retry
// runs the same, and a turn naming none runs the person's default.
func TestTurnRunsItsModelOnItsEndpoint(t *testing.T) {
	t.Parallel()
	failOnce := `{"rules": [
	  {"times": 1, "reply": {"fault": {"kind": "http_error", "status": 400, "message": "refused"}}},
	  {"reply": {"text": "Deep answer.", "usage": {"input": 1000, "cached": 400, "output": 10}}}]}`
	s, a, b := catalogStack(t, answerOnly, failOnce)
	conv := s.Conversation(t)

	r := askModel(t, s, conv, map[string]any{"model": "deep", "effort": "high"})
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	var st hubtest.Started
	r.Decode(t, &st)
	s.Stream(t, st.StreamURL, 0, 0)
	turn := s.Do(t, s.Token, "GET", "/api/assistant/turns/"+st.TurnID, nil).JSON(t)
	require.Equal(t, "error", turn["status"], "B refused the first request")
	require.Equal(t, "deep", turn["model"])
	require.Equal(t, "high", turn["effort"])

	r = s.Do(t, s.Token, "POST", "/api/assistant/turns/"+st.TurnID+"/retry", nil)
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	var retried hubtest.Started
	r.Decode(t, &retried)
	require.Equal(t, "Deep answer.", hubtest.Text(s.Stream(t, retried.StreamURL, 0, 0)))
	turn = s.Do(t, s.Token, "GET", "/api/assistant/turns/"+retried.TurnID, nil).JSON(t)
	require.Equal(t, "done", turn["status"])
	require.Equal(t, "deep", turn["model"], "the retry runs the model of the turn it retries")
	require.Equal(t, "high", turn["effort"])
	// The call is billed under the catalog's model at the catalog's price:
	// 600 fresh × $2/M + 400 cached × $0.5/M + 10 out × $8/M = 1,480 µ$.
	calls := turnCalls(t, s, retried.TurnID)
	require.Len(t, calls, 1)
	require.Equal(t, "deep", calls[0].Model)
	require.EqualValues(t, 400, calls[0].CachedInputTokens)
	require.EqualValues(t, 1480, calls[0].CostMicros)

	reqs := b.Requests()
	require.Len(t, reqs, 2)
	for _, q := range reqs {
		require.Equal(t, keyB, q.BearerToken, "B's own key")
		require.Equal(t, "deep-v2", q.Model, "the provider's name for the model")
		require.Equal(t, "high", q.ReasoningEffort)
	}
	require.Empty(t, a.Requests(), "nothing went to A")

	// The person's default: deep at low effort, used when a turn names none.
	r = s.Do(t, s.Token, "PATCH", "/api/me/settings", map[string]any{"model": "deep", "effort": "low"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, "deep", r.JSON(t)["model"])
	st = s.Ask(t, conv, "and now?")
	s.Stream(t, st.StreamURL, 0, 0)
	reqs = b.Requests()
	require.Len(t, reqs, 3)
	require.Equal(t, "low", reqs[2].ReasoningEffort, "the settings' effort")
	require.Empty(t, a.Requests())

	// Naming small picks A; the default effort is not one small takes, so none is sent.
	r = askModel(t, s, conv, map[string]any{"model": "small"})
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	r.Decode(t, &st)
	s.Stream(t, st.StreamURL, 0, 0)
	ra := a.Requests()
	require.Len(t, ra, 1)
	require.Equal(t, keyA, ra[0].BearerToken)
	require.Equal(t, "small", ra[0].Model)
	require.Empty(t, ra[0].ReasoningEffort)
	turn = s.Do(t, s.Token, "GET", "/api/assistant/turns/"+st.TurnID, nil).JSON(t)
	require.Equal(t, "small", turn["model"])
	require.Equal(t, "", turn["effort"])
}

// hub_update_settings is offered when the person asks about their
// settings, held for Apply even under the immediate policy, and Apply
// changes the default model and effort through the one write path.
func TestUpdateSettingsToolIsHeldThenApplied(t *testing.T) {
	t.Parallel()
	script := `{"rules": [
	  {"times": 1, "match": {"afterToolResult": false, "offered": "hub_update_settings"}, "reply": {"toolCalls": [
	    {"name": "hub_update_settings", "arguments": {"model": "deep", "effort": "high"}}]}},
	  {"reply": {"text": "Apply it and new messages use deep."}}]}`
	s, a, b := catalogStack(t, script, answerOnly)
	conv := s.Conversation(t)
	st := s.Ask(t, conv, "make deep my default model with high effort")
	s.Stream(t, st.StreamURL, 0, 0)
	require.Contains(t, a.Requests()[0].Tools, "hub_update_settings", "offered for a message about settings")
	settings := s.Do(t, s.Token, "GET", "/api/me/settings", nil).JSON(t)
	require.Equal(t, "", settings["model"], "held: nothing changed yet")
	require.Equal(t, "immediate", settings["writePolicy"])

	r := s.Do(t, s.Token, "POST", "/api/assistant/apply", map[string]any{"conversationId": conv, "messageId": st.ReplyMessageID})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var res struct {
		Receipts []struct{ Status, Summary string }
	}
	r.Decode(t, &res)
	require.Len(t, res.Receipts, 1)
	require.Equal(t, "succeeded", res.Receipts[0].Status, "%s", r.Body)
	settings = s.Do(t, s.Token, "GET", "/api/me/settings", nil).JSON(t)
	require.Equal(t, "deep", settings["model"])
	require.Equal(t, "high", settings["effort"])

	st = s.Ask(t, conv, "add a task to call the bank")
	s.Stream(t, st.StreamURL, 0, 0)
	require.Len(t, a.Requests(), 2, "the next turn runs the new default, on B")
	reqs := b.Requests()
	require.Len(t, reqs, 1)
	require.Equal(t, "high", reqs[0].ReasoningEffort)
	require.NotContains(t, reqs[0].Tools, "hub_update_settings", "not offered for other messages")
	require.Equal(t, "deep", s.Do(t, s.Token, "GET", "/api/assistant/turns/"+st.TurnID, nil).JSON(t)["model"])
}

// A model's images and files flags decide which attached parts are sent
// from the first request: small takes no pictures, so it gets the text
// file and the reply says the picture was not seen; deep gets both. A
// model's context window is the one the prompt must fit.
func TestModelTakesOnlyItsParts(t *testing.T) {
	t.Parallel()
	s, a, b := catalogStack(t, answerOnly, answerOnly)
	r := upload(t, s, s.Token, s.SpaceID, "pixel.png", tinyPNG)
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	png := r.JSON(t)["id"].(string)
	r = upload(t, s, s.Token, s.SpaceID, "notes.md", []byte("# Notes\n\nShip on Friday.\n"))
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	notes := r.JSON(t)["id"].(string)
	conv := s.Conversation(t)

	ask := func(model string) string {
		t.Helper()
		r := askModel(t, s, conv, map[string]any{"model": model, "files": []string{png, notes}})
		require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
		var st hubtest.Started
		r.Decode(t, &st)
		return hubtest.Text(s.Stream(t, st.StreamURL, 0, 0))
	}
	userParts := func(q fakemodel.RecordedRequest) []fakemodel.Part {
		return q.Messages[len(q.Messages)-1].Parts
	}

	text := ask("small")
	reqs := a.Requests()
	require.Len(t, reqs, 1, "no refused request first")
	require.Equal(t, []fakemodel.Part{{Type: "file", Filename: "notes.md", MediaType: "text/markdown", Bytes: 25}}, userParts(reqs[0]))
	require.Contains(t, text, "could not open pixel.png")

	ask("deep")
	require.Len(t, b.Requests(), 1)
	require.Equal(t, []string{"image_url", "file"}, []string{userParts(b.Requests()[0])[0].Type, userParts(b.Requests()[0])[1].Type})

	r = askModel(t, s, conv, map[string]any{"model": "tiny"})
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	var st hubtest.Started
	r.Decode(t, &st)
	s.Stream(t, st.StreamURL, 0, 0)
	turn := s.Do(t, s.Token, "GET", "/api/assistant/turns/"+st.TurnID, nil).JSON(t)
	require.Equal(t, "error", turn["status"])
	e := turn["error"].(map[string]any)
	require.Equal(t, "too_large", e["code"], "%v", e)
	require.Contains(t, e["message"], "2048")
	require.Len(t, a.Requests(), 1, "nothing was sent to tiny")
}

// A message may name a tier instead of a model: it runs the person's
// default model when that is of the tier, else the tier's first model, and
// the turn shows the model it ran.
func TestATierPicksItsModel(t *testing.T) {
	t.Parallel()
	s, a, b := catalogStack(t, answerOnly, answerOnly)
	conv := s.Conversation(t)
	for _, c := range []struct {
		tier, setting, model string
		server               *fakemodel.Server
		sent                 string
	}{
		{"strong", "", "deep", b, "deep-v2"},
		{"fast", "", "small", a, "small"},
		{"fast", "tiny", "tiny", nil, ""}, // its 2,048 tokens hold no prompt: it ends too_large, unsent
		{"strong", "tiny", "deep", b, "deep-v2"},
	} {
		if c.setting != "" {
			require.Equal(t, http.StatusOK, s.Do(t, s.Token, "PATCH", "/api/me/settings", map[string]any{"model": c.setting}).Status)
		}
		a.Reset()
		b.Reset()
		r := askModel(t, s, conv, map[string]any{"tier": c.tier})
		require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
		turn := s.AwaitStatus(t, r.JSON(t)["turnId"].(string))
		require.Equal(t, c.model, turn["model"], "tier %s with default %q", c.tier, c.setting)
		if c.server == nil {
			continue
		}
		reqs := c.server.Requests()
		require.NotEmpty(t, reqs, "tier %s with default %q: %v", c.tier, c.setting, turn)
		require.Equal(t, c.sent, reqs[0].Model)
	}
}
