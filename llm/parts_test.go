package llm_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/llm"
)

// A user message's parts go after its text: a picture as an image_url part
// with a data URL, any other file as a file part with its name and data,
// written into the body exactly as the chat completions API names them.
func TestPartsAreSentAsImageAndFileParts(t *testing.T) {
	t.Parallel()
	srv, c := setup(t, `{"rules": [{"reply": {"text": "ok"}}]}`)
	req := llm.Request{Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: "You are Hub."},
		{Role: llm.RoleUser, Content: "what is this?", Parts: []llm.Part{
			{Kind: llm.PartImage, Name: "a.png", ContentType: "image/png", Data: []byte("PNGDATA")},
			{Kind: llm.PartFile, Name: "b.pdf", ContentType: "application/pdf", Data: []byte("%PDF-1.7")},
			{Kind: llm.PartFile, Name: "c.md", ContentType: "text/markdown", Data: []byte("# c")},
		}},
	}}
	_, err := c.Stream(testCtx(t), req, nil)
	require.NoError(t, err)

	rec := srv.Requests()[0]
	require.Equal(t, "what is this?", rec.Messages[1].Content)
	var body struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(rec.Body, &body))
	require.JSONEq(t, `"You are Hub."`, string(body.Messages[0].Content), "a message without parts stays a string")
	require.JSONEq(t, `[
		{"type": "text", "text": "what is this?"},
		{"type": "image_url", "image_url": {"url": "data:image/png;base64,UE5HREFUQQ==", "detail": "auto"}},
		{"type": "file", "file": {"filename": "b.pdf", "file_data": "data:application/pdf;base64,JVBERi0xLjc="}},
		{"type": "file", "file": {"filename": "c.md", "file_data": "data:text/markdown;base64,IyBj"}}
	]`, string(body.Messages[1].Content))
}

// A text file can go as a text part instead, for an endpoint without file
// parts.
func TestTextPart(t *testing.T) {
	t.Parallel()
	srv, c := setup(t, `{"rules": [{"reply": {"text": "ok"}}]}`)
	_, err := c.Stream(testCtx(t), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "read it", Parts: []llm.Part{
		{Kind: llm.PartText, Name: "c.md", ContentType: "text/markdown", Data: []byte("# c")},
	}}}}, nil)
	require.NoError(t, err)
	require.Equal(t, "read it\n\n<file name=\"c.md\">\n# c\n</file>", srv.Requests()[0].Messages[0].Content)
	require.Empty(t, srv.Requests()[0].Messages[0].Parts)
}

func TestPartsNote(t *testing.T) {
	t.Parallel()
	require.Empty(t, llm.PartsNote(nil))
	require.Equal(t, "(The model could not open a.pdf, so this answer does not draw on it.)", llm.PartsNote([]string{"a.pdf"}))
	require.Equal(t, "(The model could not open a.pdf, b.png, so this answer does not draw on them.)", llm.PartsNote([]string{"a.pdf", "b.png"}))
}
