//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"hub/assistant"
	"hub/fakemodel"
	"hub/hubtest"
)

// A page context past its limits (docs/api.md, "Page context": a long
// selection, a board with hundreds of cards) is cut, not refused: the
// person's message goes through, and the model reads the start of the
// selection, the first 100 ids of each list and a note saying what was cut.
func TestOverLongPageContextIsCutNotRefused(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "Noted."}}]}`)})
	conv := s.Conversation(t)
	turns := "/api/assistant/conversations/" + conv + "/turns"

	selection := "Quarterly numbers are due Friday. " + strings.Repeat("Revenue grew in every region. ", 300)
	// Three cards are tasks of the space; the rest name nothing, so they
	// are dropped after the cut (docs/api.md, "Page context ids").
	cardIDs := make([]string, 250)
	for i := range cardIDs {
		cardIDs[i] = fmt.Sprintf("task_card%03d", i)
		if i < 3 {
			cardIDs[i] = newRecord(t, s, s.Token, s.SpaceID, "tasks", map[string]any{"title": fmt.Sprintf("Card %d", i)})
		}
	}
	r := s.Do(t, s.Token, "POST", turns, map[string]any{"text": "summarise what I selected", "context": map[string]any{
		"path":         "/board",
		"selectedText": selection,
		"surface": map[string]any{"kind": "board", "tab": "Sprint",
			"selectedIds": cardIDs[:3], "visibleIds": cardIDs},
	}})
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	var st hubtest.Started
	r.Decode(t, &st)
	events := s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "done", events[len(events)-1].Data["status"])

	page := pageTheModelRead(t, s, "summarise what I selected")
	var got struct {
		Path         string `json:"path"`
		SelectedText string `json:"selectedText"`
		Surface      struct {
			Kind        string   `json:"kind"`
			Tab         string   `json:"tab"`
			SelectedIDs []string `json:"selectedIds"`
			VisibleIDs  []string `json:"visibleIds"`
		} `json:"surface"`
		Truncated []string `json:"truncatedByHub"`
	}
	require.NoError(t, json.Unmarshal([]byte(page), &got), page)
	require.Equal(t, "/board", got.Path)
	require.Equal(t, "Sprint", got.Surface.Tab)
	require.Equal(t, assistant.MaxSelectedTextChars+1, utf8.RuneCountInString(got.SelectedText), "2,000 characters and the mark")
	require.Equal(t, selection[:assistant.MaxSelectedTextChars]+"…", got.SelectedText)
	require.Equal(t, cardIDs[:3], got.Surface.SelectedIDs, "within the limit: as sent")
	require.Equal(t, cardIDs[:3], got.Surface.VisibleIDs, "the first 100 kept, then those that name nothing dropped")
	require.Contains(t, contextTheModelRead(t, s, "summarise what I selected"),
		"Left out of the page: /surface/visibleIds: 97 of 100 ids name no record the person can open in this space\n")
	require.Equal(t, []string{
		fmt.Sprintf("/selectedText: cut to its first 2000 of %d characters", len(selection)),
		"/surface/visibleIds: cut to its first 100 of 250 ids",
	}, got.Truncated)

	// A selection larger than the context may be at all (64 KiB) is cut
	// first, so the message still goes through.
	huge := strings.Repeat("x", 100_000)
	r = s.Do(t, s.Token, "POST", turns, map[string]any{"text": "and this one?", "context": map[string]any{"selectedText": huge}})
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	r.Decode(t, &st)
	s.Stream(t, st.StreamURL, 0, 0)
	require.NoError(t, json.Unmarshal([]byte(pageTheModelRead(t, s, "and this one?")), &got))
	require.Equal(t, huge[:assistant.MaxSelectedTextChars]+"…", got.SelectedText)

	// What is too large after cutting is still refused, at /context.
	r = s.Do(t, s.Token, "POST", turns, map[string]any{"text": "too much", "context": map[string]any{"notes": huge}})
	require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
	require.Equal(t, "/context", r.JSON(t)["error"].(map[string]any)["path"])
}

// pageTheModelRead returns the "On screen" data of the last model request
// whose last message is the person's text.
func pageTheModelRead(t *testing.T, s *hubtest.Stack, text string) string {
	t.Helper()
	reqs := s.Model.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		msgs := reqs[i].Messages
		if len(msgs) == 0 || !strings.Contains(msgs[len(msgs)-1].Content, text) {
			continue
		}
		for j := len(msgs) - 1; j >= 0; j-- {
			if _, after, ok := strings.Cut(msgs[j].Content, "\nOn screen: "); ok {
				line, _, _ := strings.Cut(after, "\n")
				return line
			}
		}
	}
	t.Fatalf("no model request for %q showed the page", text)
	return ""
}
