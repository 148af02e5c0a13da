package tools

import (
	"bytes"
	"context"
	"fmt"
	"image"
	_ "image/gif" // DecodeConfig reads the sizes of the picture types Hub takes
	_ "image/jpeg"
	_ "image/png"
	"unicode/utf8"

	"hub/files"
	"hub/retrieval"
	"hub/workspace"
)

// FileReader reads a space's attached files for a tool (files.Service).
type FileReader interface {
	Read(ctx context.Context, actor workspace.Actor, spaceID, id string, limit int64) (files.File, []byte, error)
}

// MaxFileText is how much of a text file hub_view_file returns, in
// characters, so one file cannot crowd the transcript.
const MaxFileText = 4_500

// ViewFileInput names the file.
type ViewFileInput struct {
	ID string `json:"id" jsonschema:"minLength=1,maxLength=100" jsonschema_description:"The file's id: from an attached-file link (hub://file/<id>)."`
}

// FileData is what hub_view_file returns.
type FileData struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	ContentType string `json:"contentType"`
	Size        int64  `json:"size"`
	// Text is a text file's content, at most MaxFileText characters.
	Text string `json:"text,omitempty"`
	// Width and Height are a picture's size in pixels, when known.
	Width  int `json:"width,omitempty"`
	Height int `json:"height,omitempty"`
	// Note says what was cut or what cannot be shown here.
	Note string `json:"note,omitempty"`
}

// maxExtractedBytes bounds what hub_view_file reads of a document whose
// text it extracts (a PDF, a Word document, an HTML page): the upload limit.
const maxExtractedBytes = files.DefaultMaxBytes

// ViewFile is hub_view_file: one attached file of the space, as text (a
// document's extracted text); a picture cannot travel in a tool result, so
// it is described.
var ViewFile = Define(Spec{
	Name: "hub_view_file", Area: "files",
	Description: "Open a file attached in this space by its id (from a hub://file/<id> link). Text files, PDFs, Word documents and web pages come back as text (first 4,500 characters); for a picture you get its name, type and size: it reaches you only when attached to a message.",
}, func(ctx context.Context, env Env, in ViewFileInput) (Result, error) {
	if env.Files == nil {
		return Result{}, Errorf(CodeFailed, "files cannot be opened here: no file store is configured")
	}
	// A text file's first MaxFileText characters take at most 4 bytes each.
	f, data, err := env.Files.Read(ctx, env.Actor, env.SpaceID, in.ID, 4*MaxFileText+4)
	if err != nil {
		return Result{}, err
	}
	out := FileData{ID: f.ID, Name: f.Name, ContentType: f.ContentType, Size: f.Size}
	switch {
	case f.ContentType == "application/pdf" || f.ContentType == files.TypeDOCX || f.ContentType == "text/html":
		if int64(len(data)) < f.Size {
			if _, data, err = env.Files.Read(ctx, env.Actor, env.SpaceID, in.ID, maxExtractedBytes); err != nil {
				return Result{}, err
			}
		}
		doc, err := retrieval.Extract(ctx, f.ContentType, data)
		if err != nil {
			out.Note = "Its text cannot be read: " + err.Error()
			break
		}
		text, cut := cutRunes([]byte(doc.Text()), MaxFileText)
		out.Text = text
		if cut {
			out.Note = fmt.Sprintf("Only the first %d characters are shown; find a later part with %s.", MaxFileText, SearchFilesTool)
		}
	case files.IsText(f.ContentType):
		text, cut := cutRunes(data, MaxFileText)
		out.Text = text
		if cut || int64(len(data)) < f.Size {
			out.Note = fmt.Sprintf("Only the first %d characters of %d bytes are shown; the rest was cut.", MaxFileText, f.Size)
		}
	case files.IsImage(f.ContentType):
		if cfg, _, err := image.DecodeConfig(bytes.NewReader(data)); err == nil {
			out.Width, out.Height = cfg.Width, cfg.Height
		}
		out.Note = "A picture cannot be shown in a tool result. Say what you know of it from its name and size; to look at it, ask the person to attach it to their message."
	}
	return Result{Summary: fmt.Sprintf("Opened “%s”.", f.Name), Data: out, Refs: []workspace.Ref{f.Ref()}}, nil
})

// cutRunes keeps at most n characters of UTF-8 text, reporting a cut.
func cutRunes(b []byte, n int) (string, bool) {
	i := 0
	for count := 0; i < len(b) && count < n; count++ {
		_, size := utf8.DecodeRune(b[i:])
		i += size
	}
	return string(b[:i]), i < len(b)
}
