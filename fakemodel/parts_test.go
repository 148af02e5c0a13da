package fakemodel_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
)

// Image and file parts of a user message are recorded (type, file name,
// media type, decoded size) and can be matched with hasPart, so a script can
// stand for a provider that refuses pictures or files.
func TestPartsAreRecordedAndMatched(t *testing.T) {
	t.Parallel()
	srv, baseURL, hc := start(t, `{"rules": [
		{"name": "no files", "match": {"hasPart": "file"}, "reply": {"fault": {"kind": "http_error", "status": 400, "message": "no files"}}},
		{"name": "sees a picture", "match": {"hasPart": "image_url"}, "reply": {"text": "a picture"}},
		{"name": "plain", "reply": {"text": "text only"}}
	]}`)
	image := msg{"type": "image_url", "image_url": msg{"url": "data:image/png;base64,UE5HREFUQQ=="}}
	file := msg{"type": "file", "file": msg{"filename": "b.pdf", "file_data": "data:application/pdf;base64,JVBERi0xLjc="}}
	text := msg{"type": "text", "text": "look"}
	withParts := func(parts ...msg) msg { return msg{"role": "user", "content": parts} }

	resp := post(t, waitCtx(t), hc, baseURL, chatBody(true, false, nil, withParts(text, image)))
	require.Equal(t, "a picture", readSSE(t, resp.Body).text())
	resp = post(t, waitCtx(t), hc, baseURL, chatBody(true, false, nil, withParts(text, image, file)))
	require.Equal(t, 400, resp.StatusCode)
	resp = post(t, waitCtx(t), hc, baseURL, chatBody(true, false, nil, user("look")))
	require.Equal(t, "text only", readSSE(t, resp.Body).text())

	reqs := srv.Requests()
	require.Equal(t, "look", reqs[1].Messages[0].Content)
	require.Equal(t, []fakemodel.Part{
		{Type: "image_url", MediaType: "image/png", Bytes: 7},
		{Type: "file", Filename: "b.pdf", MediaType: "application/pdf", Bytes: 8},
	}, reqs[1].Messages[0].Parts)
	require.Empty(t, reqs[2].Messages[0].Parts)

	_, err := fakemodel.ParseScript([]byte(`{"rules": [{"match": {"hasPart": "audio"}}]}`))
	require.ErrorContains(t, err, "match.hasPart")
}
