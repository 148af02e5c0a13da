//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
	"hub/workspace"
)

const searchScript = `{"rules": [
  {"name": "searches", "match": {"lastUser": "(?im)^search (.+)$", "afterToolResult": false},
   "reply": {"toolCalls": [{"name": "hub_search_files", "arguments": {"query": "{{index .Groups 1}}"}}]}},
  {"name": "finds", "match": {"lastUser": "(?im)^find (.+)$", "afterToolResult": false},
   "reply": {"toolCalls": [{"name": "hub_find_phrase", "arguments": {"phrase": "{{index .Groups 1}}"}}]}},
  {"name": "cites", "match": {"afterToolResult": true},
   "reply": {"text": "{{with find \"hub://file/[a-z0-9_]+#[0-9a-f]+\" .LastToolResult}}As [the file says]({{.}}).{{else}}Nothing found.{{end}}"}},
  {"name": "answers", "reply": {"text": "ok"}}
]}`

const contract = `# Supply agreement

The supplier delivers the parts each month.

## Penalties

A late delivery costs the supplier 2% of the order value per week of delay, at most 10%. Invoice INV-2024-0042 settles the first quarter.

## Termination

Either party may end the agreement with 90 days' notice.
`

const launchPage = `<!doctype html><html><head><title>Lisbon launch</title></head><body><main><article>
<h1>Lisbon launch</h1><p>The Lisbon launch is planned for the spring, with a press event at the riverside venue. The team books
the venue in January and sends invitations to partners in February. Catering and the stage are decided in March, once the
guest list is known. This paragraph is long enough for the page to count as an article and be read as one.</p>
<h2>Budget</h2><p>The launch budget is forty thousand euros, of which half goes to the venue. Travel is booked by each team
on its own budget, and the marketing team pays for the printed material and the photographer.</p>
</article></main></body></html>`

// Search through the real API, on both engines: uploaded files are indexed
// by the workflow (queued, then indexed), both tools find passages with
// links a reply cites (the done frame's refs carry the file), a cited
// passage reads through the API, a file that cannot be extracted is failed
// with why, a deleted file is found no more, and another space's member
// finds nothing.
func TestSearchFiles(t *testing.T) {
	t.Parallel()
	onBothEngines(t, func(t *testing.T, sqlite bool) {
		s := hubtest.Start(t, hubtest.Options{SQLite: sqlite, Script: fakemodel.MustParseScript(searchScript)})
		outsider, otherSpace := s.Member(t, "Elsewhere", "Otto Outsider", workspace.RoleOwner)

		r := upload(t, s, s.Token, s.SpaceID, "supply.md", []byte(contract))
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		md := r.JSON(t)
		require.Contains(t, []any{"queued", "indexing", "indexed"}, md["indexStatus"])
		r = upload(t, s, s.Token, s.SpaceID, "launch.html", []byte(launchPage))
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		page := r.JSON(t)
		r = upload(t, s, s.Token, s.SpaceID, "scan.pdf", []byte("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"))
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		scan := r.JSON(t)
		byID := awaitIndexed(t, s, s.Token, s.SpaceID, 3)
		require.Equal(t, "indexed", byID[md["id"].(string)]["indexStatus"])
		require.Equal(t, "indexed", byID[page["id"].(string)]["indexStatus"])
		require.Equal(t, "failed", byID[scan["id"].(string)]["indexStatus"])
		require.NotEmpty(t, byID[scan["id"].(string)]["indexError"], "a failed file says why")

		// A topic: the passage under its heading, with a link the reply cites.
		conv := s.Conversation(t)
		st := s.Ask(t, conv, "search what are the penalties for late delivery?")
		events := s.Stream(t, st.StreamURL, 0, 0)
		text := hubtest.Text(events)
		require.Contains(t, text, "hub://file/"+md["id"].(string)+"#", "the reply cites the passage found")
		result := lastToolResult(t, s)
		require.Contains(t, result, "2% of the order value")
		require.Contains(t, result, "Penalties", "the passage names its section")
		done := events[len(events)-1]
		require.Equal(t, "done", done.Type)
		require.Contains(t, fmt.Sprint(done.Data["refs"]), md["id"].(string), "the done frame's refs carry the cited file")

		// The cited passage reads through the API; the outsider cannot.
		link := text[strings.Index(text, "hub://file/"):]
		link = link[:strings.Index(link, ")")]
		key := link[strings.Index(link, "#")+1:]
		passage := "/api/spaces/" + s.SpaceID + "/files/" + md["id"].(string) + "/passages/" + key
		r = s.Do(t, s.Token, "GET", passage, nil)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		require.Contains(t, r.JSON(t)["text"], "2% of the order value")
		r = s.Do(t, outsider, "GET", passage, nil)
		require.Equal(t, http.StatusNotFound, r.Status)
		r = s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/files/"+md["id"].(string)+"/passages/000000000000", nil)
		require.Equal(t, http.StatusNotFound, r.Status)

		// An exact reference number, and an HTML page's passage.
		st = s.Ask(t, conv, "find inv-2024-0042")
		require.Contains(t, hubtest.Text(s.Stream(t, st.StreamURL, 0, 0)), "hub://file/"+md["id"].(string)+"#")
		st = s.Ask(t, conv, "search lisbon launch venue budget")
		require.Contains(t, hubtest.Text(s.Stream(t, st.StreamURL, 0, 0)), "hub://file/"+page["id"].(string)+"#")

		// Another space's owner searching their own space finds nothing of this one.
		oconv := conversationIn(t, s, outsider, otherSpace)
		st = askAs(t, s, outsider, oconv, "search penalties late delivery")
		require.Equal(t, "Nothing found.", hubtest.Text(s.Stream(t, st.StreamURL, 0, 0)))
		require.Contains(t, lastToolResult(t, s), "Try other words")

		// A replaced file keeps its id and is indexed again: search finds its
		// new text, not the old; the changed passage's old link is gone.
		r = replaceFile(t, s, s.Token, s.SpaceID, md["id"].(string), "supply.md",
			[]byte(strings.Replace(contract, "2% of the order value", "3% of the order value", 1)))
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		require.Equal(t, md["id"], r.JSON(t)["id"])
		require.Equal(t, "indexed", awaitIndexed(t, s, s.Token, s.SpaceID, 3)[md["id"].(string)]["indexStatus"])
		st = s.Ask(t, conv, "search what are the penalties for late delivery?")
		s.Stream(t, st.StreamURL, 0, 0)
		result = lastToolResult(t, s)
		require.Contains(t, result, "3% of the order value")
		require.NotContains(t, result, "2% of the order value")
		r = s.Do(t, s.Token, "GET", passage, nil)
		require.Equal(t, http.StatusNotFound, r.Status, "the passage cited before changed")

		// A deleted file is found no more.
		r = s.Do(t, s.Token, "DELETE", "/api/spaces/"+s.SpaceID+"/files/"+md["id"].(string), nil)
		require.Equal(t, http.StatusNoContent, r.Status)
		st = s.Ask(t, conv, "find inv-2024-0042")
		require.Equal(t, "Nothing found.", hubtest.Text(s.Stream(t, st.StreamURL, 0, 0)))
	})
}

// awaitIndexed waits until n files of the space are no longer queued or
// indexing, and returns them by id.
func awaitIndexed(t *testing.T, s *hubtest.Stack, token, spaceID string, n int) map[string]map[string]any {
	t.Helper()
	var byID map[string]map[string]any
	require.Eventually(t, func() bool {
		r := s.Do(t, token, "GET", "/api/spaces/"+spaceID+"/files", nil)
		var body struct {
			Files []map[string]any `json:"files"`
		}
		if json.Unmarshal(r.Body, &body) != nil || len(body.Files) != n {
			return false
		}
		byID = map[string]map[string]any{}
		for _, f := range body.Files {
			if f["indexStatus"] == "queued" || f["indexStatus"] == "indexing" {
				return false
			}
			byID[f["id"].(string)] = f
		}
		return true
	}, time.Minute, 50*time.Millisecond)
	return byID
}

// lastToolResult is the content of the last tool message the model was sent.
func lastToolResult(t *testing.T, s *hubtest.Stack) string {
	t.Helper()
	reqs := s.Model.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		msgs := reqs[i].Messages
		for j := len(msgs) - 1; j >= 0; j-- {
			if msgs[j].Role == "tool" {
				return msgs[j].Content
			}
		}
	}
	t.Fatal("no tool result was sent to the model")
	return ""
}

// conversationIn starts a conversation for token's person in a space.
func conversationIn(t *testing.T, s *hubtest.Stack, token, spaceID string) string {
	t.Helper()
	r := s.Do(t, token, "POST", "/api/assistant/conversations", map[string]any{"spaceId": spaceID, "title": "search"})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	return r.JSON(t)["id"].(string)
}

// With an embeddings model, on both engines: a file's passages are
// embedded once (the same text uploaded again makes no embeddings
// request), a topic search fuses both rankings, and an embeddings endpoint
// that fails leaves the file indexed and found by its words, the sweeper
// embedding it once the endpoint answers.
func TestSearchWithEmbeddings(t *testing.T) {
	t.Parallel()
	onBothEngines(t, func(t *testing.T, sqlite bool) {
		s := hubtest.Start(t, hubtest.Options{SQLite: sqlite, Script: fakemodel.MustParseScript(searchScript),
			Env: map[string]string{"HUB_EMBEDDINGS_MODEL": "fake-embeddings"}})
		r := upload(t, s, s.Token, s.SpaceID, "supply.md", []byte(contract))
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		supply := r.JSON(t)["id"].(string)
		awaitIndexed(t, s, s.Token, s.SpaceID, 1)
		first := s.Model.Embeddings()
		require.Positive(t, first.Texts, "the passages were embedded")

		r = upload(t, s, s.Token, s.SpaceID, "supply-copy.md", []byte(contract))
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		awaitIndexed(t, s, s.Token, s.SpaceID, 2)
		require.Equal(t, first, s.Model.Embeddings(), "unchanged passages are not embedded again")

		// A replace that changes one passage embeds that passage alone.
		r = replaceFile(t, s, s.Token, s.SpaceID, supply, "supply.md", []byte(strings.Replace(contract, "at most 10%", "at most 12%", 1)))
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		require.Equal(t, "indexed", awaitIndexed(t, s, s.Token, s.SpaceID, 2)[supply]["indexStatus"])
		replaced := s.Model.Embeddings()
		require.Equal(t, first.Texts+1, replaced.Texts, "only the changed passage is embedded")
		first = replaced

		conv := s.Conversation(t)
		st := s.Ask(t, conv, "search what does delivering late cost the supplier")
		require.Contains(t, hubtest.Text(s.Stream(t, st.StreamURL, 0, 0)), "#")
		require.Contains(t, lastToolResult(t, s), "2% of the order value")
		require.Equal(t, first.Requests+1, s.Model.Embeddings().Requests, "the query was embedded")

		// The endpoint down: indexed all the same, found by its words.
		s.Model.FailEmbeddings(true)
		r = upload(t, s, s.Token, s.SpaceID, "venue.md", []byte("# Venue\n\nThe riverside venue holds 300 guests."))
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		require.Equal(t, "indexed", awaitIndexed(t, s, s.Token, s.SpaceID, 3)[r.JSON(t)["id"].(string)]["indexStatus"])
		st = s.Ask(t, conv, "find riverside venue")
		require.Contains(t, hubtest.Text(s.Stream(t, st.StreamURL, 0, 0)), "hub://file/"+r.JSON(t)["id"].(string)+"#")
		s.Model.FailEmbeddings(false)
		require.Positive(t, s.Sweep(t, time.Now()).Embedded, "the sweeper embeds what the outage left")
		require.Zero(t, s.Sweep(t, time.Now()).Embedded, "and then nothing is left")
	})
}
