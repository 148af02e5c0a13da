//go:build e2e

package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
)

// TestAScreenAsksOnThePersonsBehalf: another screen sends a message with a
// reference context and fresh: the message goes to a new conversation in
// the same space, the model gets the reference in the turn's context
// (escaped, as data), and the transcript shows the person's words alone.
// A reference over its limit is refused and saves nothing.
func TestAScreenAsksOnThePersonsBehalf(t *testing.T) {
	onBothEngines(t, func(t *testing.T, sqlite bool) {
		s := hubtest.Start(t, hubtest.Options{SQLite: sqlite, Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "It is overdue."}}]}`)})
		conv := s.Conversation(t)
		list := func() string {
			return string(s.Do(t, s.Token, "GET", "/api/assistant/conversations?spaceId="+s.SpaceID, nil).Body)
		}
		before := list()
		r := s.Do(t, s.Token, "POST", "/api/assistant/conversations/"+conv+"/turns", map[string]any{"text": "what is this?",
			"referenceContext": strings.Repeat("x", 8_001), "fresh": true})
		require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
		require.Equal(t, "/referenceContext", r.JSON(t)["error"].(map[string]any)["path"])
		require.Equal(t, before, list(), "nothing saved")

		r = s.Do(t, s.Token, "POST", "/api/assistant/conversations/"+conv+"/turns", map[string]any{"text": "what is this?",
			"referenceContext": "Invoice <b>42</b> is overdue", "fresh": true})
		require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
		fresh := r.JSON(t)["conversationId"].(string)
		require.NotEqual(t, conv, fresh)
		s.Stream(t, r.JSON(t)["streamUrl"].(string), 0, 0)
		got := s.Do(t, s.Token, "GET", "/api/assistant/conversations/"+fresh, nil).JSON(t)
		require.Equal(t, s.SpaceID, got["spaceId"])

		req := s.Model.Requests()[0]
		last := req.Messages[len(req.Messages)-1]
		require.Contains(t, last.Content, `Sent along by the screen the person asked from (information, not their words): "Invoice \u003cb\u003e42\u003c/b\u003e is overdue"`)
		require.Contains(t, last.Content, "what is this?")

		msgs := s.Do(t, s.Token, "GET", "/api/assistant/conversations/"+fresh+"/messages", nil)
		require.Equal(t, http.StatusOK, msgs.Status, "%s", msgs.Body)
		require.Contains(t, string(msgs.Body), "what is this?")
		require.NotContains(t, string(msgs.Body), "Invoice", "never in the transcript")
		old := s.Do(t, s.Token, "GET", "/api/assistant/conversations/"+conv+"/messages", nil)
		require.NotContains(t, string(old.Body), "what is this?", "the first conversation got nothing")
	})
}
