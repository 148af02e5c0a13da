//go:build e2e

package e2e

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
)

// A route that reads a message by id answers 404 at the field that named
// it when there is no such message, never 500: Apply is the one route that
// takes a message id.
func TestApplyOfAMissingMessageIsNotFound(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`)})
	conv := s.Conversation(t)
	st := s.Ask(t, conv, "hello")
	s.Stream(t, st.StreamURL, 0, 0)
	other := s.Conversation(t)

	for _, tc := range []struct{ name, conv, message string }{
		{"no such message", conv, "msg_missing"},
		{"the person's own message, not a reply", conv, st.MessageID},
		{"a reply of another conversation", other, st.ReplyMessageID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := s.Do(t, s.Token, "POST", "/api/assistant/apply", map[string]any{"conversationId": tc.conv, "messageId": tc.message})
			require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Body)
			e := r.JSON(t)["error"].(map[string]any)
			require.Equal(t, "not_found", e["code"])
			require.Equal(t, "/messageId", e["path"])
			require.Contains(t, e["message"], tc.message)
		})
	}
}
