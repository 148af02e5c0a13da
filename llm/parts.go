package llm

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// PartKind is what a message part is.
type PartKind string

// The parts a user message can carry besides its text.
const (
	// PartImage is a picture, sent as an image_url part with a data URL.
	PartImage PartKind = "image"
	// PartFile is any other file, sent as a file part.
	PartFile PartKind = "file"
	// PartText is a text file as a text part, in a <file name="…">
	// element, for an endpoint that takes no file parts.
	PartText PartKind = "text"
)

// Part is a file given to the model with a user message.
type Part struct {
	Kind        PartKind
	Name        string
	ContentType string
	Data        []byte
}

func (p Part) dataURL() string {
	return "data:" + p.ContentType + ";base64," + base64.StdEncoding.EncodeToString(p.Data)
}

// filePartType is the chat completions part type for a file. go-openai
// knows only text and image_url parts, so a file part leaves it as a
// placeholder holding its index in the request's files, which the
// transport replaces in the body (rewriteFileParts).
const filePartType openai.ChatMessagePartType = "file"

// multiContent renders a message's text, then its parts; files collects
// the file parts in order.
func multiContent(m Message, files *[]Part) []openai.ChatMessagePart {
	out := []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: m.Content}}
	for _, p := range m.Parts {
		switch p.Kind {
		case PartImage:
			out = append(out, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL,
				ImageURL: &openai.ChatMessageImageURL{URL: p.dataURL(), Detail: openai.ImageURLDetailAuto}})
		case PartText:
			out = append(out, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText,
				Text: "\n\n<file name=" + strconv.Quote(p.Name) + ">\n" + string(p.Data) + "\n</file>"})
		default:
			out = append(out, openai.ChatMessagePart{Type: filePartType, Text: strconv.Itoa(len(*files))})
			*files = append(*files, p)
		}
	}
	return out
}

// rewriteFileParts replaces multiContent's placeholders in a request body
// by the file parts. Text inside a message is a JSON string with escaped
// quotes, so it can never look like a placeholder.
func rewriteFileParts(req *http.Request, files []Part) error {
	if len(files) == 0 || req.Body == nil {
		return nil
	}
	body, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return err
	}
	for i, f := range files {
		placeholder, _ := json.Marshal(openai.ChatMessagePart{Type: filePartType, Text: strconv.Itoa(i)})
		part, _ := json.Marshal(map[string]any{"type": "file", "file": map[string]string{"filename": f.Name, "file_data": f.dataURL()}})
		body = bytes.Replace(body, placeholder, part, 1)
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return nil
}

// PartsNote says which files a model was not given, for the reply.
func PartsNote(names []string) string {
	if len(names) == 0 {
		return ""
	}
	them := "them"
	if len(names) == 1 {
		them = "it"
	}
	return "(The model could not open " + strings.Join(names, ", ") + ", so this answer does not draw on " + them + ".)"
}
