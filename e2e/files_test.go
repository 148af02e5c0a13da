//go:build e2e

package e2e

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
	"hub/workspace"
)

// A 1×1 PNG.
var tinyPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")

// upload posts one file as the multipart part "file".
func upload(t testing.TB, s *hubtest.Stack, token, spaceID, name string, data []byte) hubtest.Response {
	t.Helper()
	return sendFile(t, s, token, "POST", "/api/spaces/"+spaceID+"/files", name, data)
}

// replaceFile gives a file new contents through the API (PUT, multipart).
func replaceFile(t testing.TB, s *hubtest.Stack, token, spaceID, fileID, name string, data []byte) hubtest.Response {
	t.Helper()
	return sendFile(t, s, token, "PUT", "/api/spaces/"+spaceID+"/files/"+fileID, name, data)
}

func sendFile(t testing.TB, s *hubtest.Stack, token, method, path, name string, data []byte) hubtest.Response {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	w, err := mw.CreateFormFile("file", name)
	require.NoError(t, err)
	_, err = w.Write(data)
	require.NoError(t, err)
	require.NoError(t, mw.Close())
	req, err := http.NewRequest(method, s.URL+path, &body)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := s.HTTP.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return hubtest.Response{Status: resp.StatusCode, Body: raw, Header: resp.Header}
}

// blobCount counts the files the local blob store holds.
func blobCount(t testing.TB, s *hubtest.Stack) int {
	t.Helper()
	n := 0
	_ = filepath.WalkDir(s.Config().Files.Dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	return n
}

const filesScript = `{"rules": [
  {"name": "refuses files", "match": {"lastUser": "(?i)refuse", "hasPart": "file"},
   "reply": {"fault": {"kind": "http_error", "status": 400, "message": "file parts are not supported by this model"}}},
  {"name": "refuses pictures", "match": {"lastUser": "(?i)refuse all", "hasPart": "image_url"},
   "reply": {"fault": {"kind": "http_error", "status": 400, "message": "image input is not supported"}}},
  {"name": "opens", "match": {"lastUser": "(?i)open (file_\\w+)", "afterToolResult": false},
   "reply": {"toolCalls": [{"name": "hub_view_file", "arguments": {"id": "{{index .Groups 1}}"}}]}},
  {"name": "reads", "match": {"afterToolResult": true},
   "reply": {"text": "{{if .LastToolError}}Failed: {{.LastToolError}}{{else}}{{.LastToolSummary}}{{end}}"}},
  {"name": "answers", "reply": {"text": "Looked at it."}}
]}`

// Attached files through the real API: upload, list, read, a turn whose
// model gets a picture as an image part and a text file as a file part, a
// model that refuses file parts (sent again with the picture only, then
// none, the reply naming what it could not see), an earlier message's files
// named as links, and delete. Another space's file is 404 everywhere.
func TestAttachedFiles(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(filesScript)})
	outsider, otherSpace := s.Member(t, "Elsewhere", "Otto Outsider", workspace.RoleOwner)

	r := upload(t, s, s.Token, s.SpaceID, "pixel.png", tinyPNG)
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	png := r.JSON(t)
	require.Equal(t, "image/png", png["contentType"])
	require.EqualValues(t, len(tinyPNG), png["size"])
	require.Equal(t, "pixel.png", png["name"])
	r = upload(t, s, s.Token, s.SpaceID, "notes.md", []byte("# Notes\n\nShip on Friday.\n"))
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	notes := r.JSON(t)
	require.Equal(t, "text/markdown", notes["contentType"])

	r = s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/files", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Len(t, r.JSON(t)["files"], 2)
	r = s.Do(t, s.Token, "GET", png["url"].(string), nil)
	require.Equal(t, http.StatusOK, r.Status)
	require.Equal(t, tinyPNG, r.Body)
	require.Equal(t, "image/png", r.Header.Get("Content-Type"))
	require.Equal(t, "nosniff", r.Header.Get("X-Content-Type-Options"))

	// Another space's member, and the owner's file asked in another space.
	for _, path := range []string{"/api/spaces/" + s.SpaceID + "/files", "/api/spaces/" + s.SpaceID + "/files/" + png["id"].(string), png["url"].(string)} {
		r = s.Do(t, outsider, "GET", path, nil)
		require.Equal(t, http.StatusNotFound, r.Status, path)
	}
	r = s.Do(t, outsider, "GET", "/api/spaces/"+otherSpace+"/files/"+png["id"].(string), nil)
	require.Equal(t, http.StatusNotFound, r.Status)
	r = s.Do(t, outsider, "DELETE", "/api/spaces/"+otherSpace+"/files/"+png["id"].(string), nil)
	require.Equal(t, http.StatusNotFound, r.Status)

	// A turn with both files: the model sees a picture and a file.
	conv := s.Conversation(t)
	turnPath := "/api/assistant/conversations/" + conv + "/turns"
	r = s.Do(t, s.Token, "POST", turnPath, map[string]any{"text": "what is in these?", "files": []string{png["id"].(string), notes["id"].(string)}})
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	var st hubtest.Started
	r.Decode(t, &st)
	events := s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "Looked at it.", hubtest.Text(events))
	reqs := s.Model.Requests()
	last := reqs[len(reqs)-1].Messages
	user := last[len(last)-1]
	require.Equal(t, "user", user.Role)
	require.Equal(t, []fakemodel.Part{
		{Type: "image_url", MediaType: "image/png", Bytes: len(tinyPNG)},
		{Type: "file", Filename: "notes.md", MediaType: "text/markdown", Bytes: 25},
	}, user.Parts)
	require.Contains(t, user.Content, "hub://file/"+png["id"].(string), "the context names the files too")

	// The next message: the earlier one names its files as links, no parts.
	s.Model.Reset()
	st = s.Ask(t, conv, "thanks")
	s.Stream(t, st.StreamURL, 0, 0)
	reqs = s.Model.Requests()
	for _, m := range reqs[0].Messages {
		require.Empty(t, m.Parts, "nothing is sent again")
	}
	require.Contains(t, reqs[0].Messages[1].Content, "Attached files (open one with hub_view_file): [pixel.png](hub://file/"+png["id"].(string)+")")

	// A model that refuses file parts: sent again with the picture and the
	// text file as text; the PDF has no plainer form, and the reply says so.
	r = upload(t, s, s.Token, s.SpaceID, "plan.pdf", []byte("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"))
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	pdf := r.JSON(t)
	require.Equal(t, "application/pdf", pdf["contentType"])
	s.Model.Reset()
	r = s.Do(t, s.Token, "POST", turnPath, map[string]any{"text": "refuse this", "files": []string{png["id"].(string), notes["id"].(string), pdf["id"].(string)}})
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	r.Decode(t, &st)
	events = s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "Looked at it.\n\n(The model could not open plan.pdf, so this answer does not draw on it.)", hubtest.Text(events))
	reqs = s.Model.Requests()
	require.Len(t, reqs, 2)
	require.Equal(t, http.StatusBadRequest, reqs[0].Status)
	require.Len(t, reqs[0].Messages[len(reqs[0].Messages)-1].Parts, 3)
	resent := reqs[1].Messages[len(reqs[1].Messages)-1]
	require.Equal(t, []fakemodel.Part{{Type: "image_url", MediaType: "image/png", Bytes: len(tinyPNG)}}, resent.Parts)
	require.Contains(t, resent.Content, "<file name=\"notes.md\">\n# Notes\n\nShip on Friday.\n\n</file>")
	r = s.Do(t, s.Token, "GET", "/api/assistant/conversations/"+conv+"/messages", nil)
	msgs := r.JSON(t)["messages"].([]any)
	require.Contains(t, msgs[len(msgs)-1].(map[string]any)["text"], "could not open plan.pdf")

	// One that refuses pictures too: sent with none.
	s.Model.Reset()
	r = s.Do(t, s.Token, "POST", turnPath, map[string]any{"text": "refuse all of it", "files": []string{png["id"].(string), notes["id"].(string)}})
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	r.Decode(t, &st)
	events = s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "Looked at it.\n\n(The model could not open pixel.png, notes.md, so this answer does not draw on them.)", hubtest.Text(events))
	require.Len(t, s.Model.Requests(), 3)

	// A turn goes on from where its files' fallback ended: after a tool
	// call, the next step sends the fewer parts at once instead of being
	// refused again.
	s.Model.Reset()
	r = s.Do(t, s.Token, "POST", turnPath, map[string]any{"text": "refuse this and open " + notes["id"].(string),
		"files": []string{png["id"].(string), notes["id"].(string)}})
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	r.Decode(t, &st)
	events = s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "done", events[len(events)-1].Type)
	reqs = s.Model.Requests()
	require.Len(t, reqs, 3, "refused once, then the tool call, then the answer with the same fewer parts")
	require.Equal(t, http.StatusBadRequest, reqs[0].Status)
	for _, m := range reqs[2].Messages {
		if m.Role == "user" && len(m.Parts) > 0 {
			require.Equal(t, []fakemodel.Part{{Type: "image_url", MediaType: "image/png", Bytes: len(tinyPNG)}}, m.Parts,
				"the person's message carries the parts the turn settled on")
		}
	}
	require.Equal(t, http.StatusOK, reqs[2].Status)

	// hub_view_file opens a file of the space through the tool path: text
	// as text, a picture described; another space's file is not found.
	s.Model.Reset()
	st = s.Ask(t, conv, "open "+notes["id"].(string))
	events = s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "Opened “notes.md”.", hubtest.Text(events))
	reqs = s.Model.Requests()
	require.Contains(t, reqs[1].Messages[len(reqs[1].Messages)-1].Content, `"text":"# Notes\n\nShip on Friday.\n"`)
	s.Model.Reset()
	st = s.Ask(t, conv, "open "+png["id"].(string))
	s.Stream(t, st.StreamURL, 0, 0)
	result := s.Model.Requests()[1].Messages
	require.Contains(t, result[len(result)-1].Content, `"width":1,"height":1`)
	require.Contains(t, result[len(result)-1].Content, "cannot be shown in a tool result")
	r = upload(t, s, outsider, otherSpace, "theirs.txt", []byte("their secret notes"))
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	st = s.Ask(t, conv, "open "+r.JSON(t)["id"].(string))
	events = s.Stream(t, st.StreamURL, 0, 0)
	require.Contains(t, hubtest.Text(events), "Failed: ")
	require.NotContains(t, hubtest.Text(events), "secret")

	// Files of one message add up to at most 50 MiB.
	var big []string
	for i := range 3 {
		r = upload(t, s, s.Token, s.SpaceID, fmt.Sprintf("big-%d.txt", i), bytes.Repeat([]byte("words "), (17<<20)/6))
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		big = append(big, r.JSON(t)["id"].(string))
	}
	r = s.Do(t, s.Token, "POST", turnPath, map[string]any{"text": "read these", "files": big})
	require.Equal(t, http.StatusRequestEntityTooLarge, r.Status, "%s", r.Body)
	require.Equal(t, "/files", r.JSON(t)["error"].(map[string]any)["path"])
	for _, id := range big {
		require.Equal(t, http.StatusNoContent, s.Do(t, s.Token, "DELETE", "/api/spaces/"+s.SpaceID+"/files/"+id, nil).Status)
	}

	// Delete: gone from the list, the store and the next turn.
	r = s.Do(t, s.Token, "DELETE", "/api/spaces/"+s.SpaceID+"/files/"+notes["id"].(string), nil)
	require.Equal(t, http.StatusNoContent, r.Status, "%s", r.Body)
	r = s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/files/"+notes["id"].(string), nil)
	require.Equal(t, http.StatusNotFound, r.Status)
	require.Equal(t, 3, blobCount(t, s), "the picture, the PDF and the other space's file are left")
	r = s.Do(t, s.Token, "POST", turnPath, map[string]any{"text": "again", "files": []string{notes["id"].(string)}})
	require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Body)
	require.Equal(t, "/files/0", r.JSON(t)["error"].(map[string]any)["path"])
}

// Bad uploads and bad file ids: a clear error at /file or /files/<i>, and
// nothing stored, no turn started.
func TestAttachedFilesBadInput(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.DefaultScript(), Env: map[string]string{"HUB_FILES_MAX_BYTES": "4096"}})
	outsider, otherSpace := s.Member(t, "Elsewhere", "Otto Outsider", workspace.RoleOwner)
	viewer, _ := s.Member(t, "Team", "Vera Viewer", workspace.RoleViewer)
	errOf := func(r hubtest.Response) map[string]any { return r.JSON(t)["error"].(map[string]any) }

	r := upload(t, s, s.Token, s.SpaceID, "big.txt", []byte(strings.Repeat("a", 4097)))
	require.Equal(t, http.StatusRequestEntityTooLarge, r.Status, "%s", r.Body)
	require.Equal(t, "too_large", errOf(r)["code"])
	require.Contains(t, errOf(r)["message"], "4 KiB")

	r = upload(t, s, s.Token, s.SpaceID, "huge.txt", []byte(strings.Repeat("a", 200<<10)))
	require.Equal(t, http.StatusRequestEntityTooLarge, r.Status, "%s", r.Body)

	r = upload(t, s, s.Token, s.SpaceID, "tool.exe", []byte("MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff"))
	require.Equal(t, http.StatusUnsupportedMediaType, r.Status, "%s", r.Body)
	require.Equal(t, "unsupported_type", errOf(r)["code"])
	require.Equal(t, "/file", errOf(r)["path"])

	r = s.Do(t, s.Token, "POST", "/api/spaces/"+s.SpaceID+"/files", map[string]any{"file": "x"})
	require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
	require.Equal(t, "invalid_payload", errOf(r)["code"])

	r = upload(t, s, viewer, s.SpaceID, "notes.txt", []byte("hello"))
	require.Equal(t, http.StatusForbidden, r.Status, "%s", r.Body)
	r = upload(t, s, outsider, s.SpaceID, "notes.txt", []byte("hello"))
	require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Body)

	r = s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/files", nil)
	require.Empty(t, r.JSON(t)["files"], "nothing stored")
	require.Zero(t, blobCount(t, s), "no blob left behind")

	// A turn naming another space's file, an unknown one, or nine.
	r = upload(t, s, outsider, otherSpace, "theirs.txt", []byte("their notes"))
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	theirs := r.JSON(t)["id"].(string)
	conv := s.Conversation(t)
	turnPath := "/api/assistant/conversations/" + conv + "/turns"
	for _, tc := range []struct {
		files  []string
		status int
		path   string
	}{
		{[]string{theirs}, http.StatusNotFound, "/files/0"},
		{[]string{"file_nope"}, http.StatusNotFound, "/files/0"},
		{[]string{""}, http.StatusBadRequest, "/files/0"},
		{[]string{"a", "b", "c", "d", "e", "f", "g", "h", "i"}, http.StatusBadRequest, "/files"},
	} {
		r = s.Do(t, s.Token, "POST", turnPath, map[string]any{"text": "look", "files": tc.files})
		require.Equal(t, tc.status, r.Status, "%v: %s", tc.files, r.Body)
		require.Equal(t, tc.path, errOf(r)["path"], "%v", tc.files)
	}
	r = s.Do(t, s.Token, "GET", "/api/assistant/conversations/"+conv+"/messages", nil)
	require.Empty(t, r.JSON(t)["messages"], "no turn started")
	require.Empty(t, s.Model.Requests())
}

// On SQLite (`hub dev`'s engine) an upload, a turn with the file and a
// delete work the same.
func TestSQLiteAttachedFiles(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{SQLite: true, Script: fakemodel.MustParseScript(filesScript)})
	r := upload(t, s, s.Token, s.SpaceID, "pixel.png", tinyPNG)
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	id := r.JSON(t)["id"].(string)
	conv := s.Conversation(t)
	r = s.Do(t, s.Token, "POST", "/api/assistant/conversations/"+conv+"/turns", map[string]any{"text": "what is this?", "files": []string{id}})
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	var st hubtest.Started
	r.Decode(t, &st)
	require.Equal(t, "Looked at it.", hubtest.Text(s.Stream(t, st.StreamURL, 0, 0)))
	msgs := s.Model.Requests()[0].Messages
	require.Equal(t, []fakemodel.Part{{Type: "image_url", MediaType: "image/png", Bytes: len(tinyPNG)}}, msgs[len(msgs)-1].Parts)
	r = s.Do(t, s.Token, "DELETE", "/api/spaces/"+s.SpaceID+"/files/"+id, nil)
	require.Equal(t, http.StatusNoContent, r.Status, "%s", r.Body)
	require.Zero(t, blobCount(t, s))
}
