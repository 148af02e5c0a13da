package activities

import (
	"context"

	"hub/chat"
	"hub/files"
	"hub/llm"
)

type streamer interface {
	Stream(ctx context.Context, req llm.Request, onChunk func(llm.Chunk) error) (llm.Result, error)
}

// turnModel is the model a turn's call goes to and its catalog entry: the
// id given, else the turn's, else the catalog's default. Without a catalog
// it is Model, taking images and files.
func (a *Activities) turnModel(turn chat.Turn, id, effort string) (streamer, llm.Model) {
	if a.Models == nil {
		name := ""
		if a.Model != nil {
			name = a.Model.Model()
		}
		return a.Model, llm.Model{ID: name, Name: name, Images: true, Files: true}
	}
	if id == "" {
		id, effort = turn.Model, turn.Effort
	}
	b := a.Models.For(id, effort)
	return b, b.Model
}

// modelParts keeps the parts the model takes: no images for a model
// without them, and without files only text files, as text parts. It
// names the files left out.
func modelParts(parts []llm.Part, m llm.Model) (kept []llm.Part, left []string) {
	if m.Images && m.Files {
		return parts, nil
	}
	for _, p := range parts {
		switch {
		case p.Kind == llm.PartImage && !m.Images:
			left = append(left, p.Name)
		case p.Kind == llm.PartFile && !m.Files && files.IsText(p.ContentType):
			kept = append(kept, inlineText(p))
		case p.Kind == llm.PartFile && !m.Files:
			left = append(left, p.Name)
		default:
			kept = append(kept, p)
		}
	}
	return kept, left
}

// budgetWindow is the context window the prompt must fit: the catalog
// model's, else HUB_MODEL_CONTEXT_TOKENS (0: the model family's).
func (a *Activities) budgetWindow(m llm.Model) int {
	if m.ContextWindow > 0 {
		return m.ContextWindow
	}
	return a.ContextTokens
}
