package activities

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"unicode/utf8"

	"hub/assistant"
	"hub/chat"
	"hub/files"
	"hub/llm"
	"hub/workspace"
)

// attachedParts reads the files attached to the person's message as model
// parts. A file deleted since (or whose bytes are gone) is left out and
// named in missing, for the reply to say so.
func (a *Activities) attachedParts(ctx context.Context, turn chat.Turn, user chat.Message) (parts []llm.Part, missing []string, err error) {
	if a.Files == nil {
		return nil, nil, nil
	}
	actor := workspace.Actor{PersonID: turn.PersonID, Via: workspace.ViaAssistant}
	for _, m := range user.Mentions {
		if m.Kind != assistant.KindFile {
			continue
		}
		f, data, err := a.Files.Read(ctx, actor, turn.SpaceID, m.ID, a.Files.MaxBytes())
		if err != nil {
			var nf *workspace.NotFoundError
			if errors.As(err, &nf) || errors.Is(err, files.ErrNoBlob) || errors.Is(err, files.ErrNoStore) {
				missing = append(missing, m.Label)
				continue
			}
			return nil, nil, err
		}
		kind := llm.PartFile
		if files.IsImage(f.ContentType) {
			kind = llm.PartImage
		}
		parts = append(parts, llm.Part{Kind: kind, Name: f.Name, ContentType: f.ContentType, Data: data})
	}
	return parts, missing, nil
}

// MaxInlineText bounds a text file sent as a text part (characters), so it
// cannot crowd out the rest of the request.
const MaxInlineText = 20_000

// partLevels are the attempts a request with parts gets, in order: every
// part; then images and text files as text parts (many endpoints refuse
// file parts); then none.
func partLevels(parts []llm.Part) [][]llm.Part {
	levels := [][]llm.Part{parts}
	var plain []llm.Part
	changed := false
	for _, p := range parts {
		switch {
		case p.Kind == llm.PartImage:
			plain = append(plain, p)
		case files.IsText(p.ContentType):
			plain = append(plain, inlineText(p))
			changed = true
		default:
			changed = true // a PDF has no plainer form
		}
	}
	if changed && len(plain) > 0 {
		levels = append(levels, plain)
	}
	return append(levels, nil)
}

// inlineText turns a text file part into a text part, cut to MaxInlineText
// characters with a line saying so.
func inlineText(p llm.Part) llm.Part {
	text := string(p.Data)
	if n := utf8.RuneCountInString(text); n > MaxInlineText {
		text = string([]rune(text)[:MaxInlineText]) + fmt.Sprintf("\n[cut: %d more characters of this file are not shown]", n-MaxInlineText)
	}
	return llm.Part{Kind: llm.PartText, Name: p.Name, ContentType: p.ContentType, Data: []byte(text)}
}

// leftOut names the parts of all that sent does not hold.
func leftOut(all, sent []llm.Part) []string {
	var out []string
	for _, p := range all {
		if !slices.ContainsFunc(sent, func(s llm.Part) bool { return s.Name == p.Name }) {
			out = append(out, p.Name)
		}
	}
	return out
}

// streamWithParts sends the request with the message's parts and, when
// the provider refuses it before any text, again with fewer (partLevels),
// starting at level from, where earlier steps ended. It returns the files
// the model was not given and the level the call ended at.
func (a *Activities) streamWithParts(ctx context.Context, send streamer, req llm.Request, userIdx int, parts []llm.Part, from int, onChunk func(llm.Chunk) error) (llm.Result, []string, int, error) {
	if len(parts) == 0 || userIdx < 0 {
		res, err := send.Stream(ctx, req, onChunk)
		return res, nil, 0, err
	}
	levels := partLevels(parts)
	for i := min(max(from, 0), len(levels)-1); ; i++ {
		req.Messages[userIdx].Parts = levels[i]
		res, err := send.Stream(ctx, req, onChunk)
		var le *llm.Error
		switch {
		case err == nil:
			return res, leftOut(parts, levels[i]), i, nil
		case !errors.As(err, &le) || le.Kind != llm.KindBadRequest || res.Text != "" || i == len(levels)-1:
			return res, nil, i, err // only a refusal of the request as sent may be cured by fewer parts
		}
		slog.InfoContext(ctx, "model refused the attached files; sending fewer", "sent", len(levels[i]), "error", err)
	}
}

func userMessageIndex(msgs []llm.Message, history int) int {
	i := 1 + history // the instructions, then the history
	if i < len(msgs) && msgs[i].Role == llm.RoleUser {
		return i
	}
	return -1
}

// notSeenNote is the reply's line for files the model was not given, once per turn.
func notSeenNote(names []string, steps []chat.Step) string {
	note := llm.PartsNote(names)
	if note == "" {
		return ""
	}
	for _, st := range steps {
		if strings.Contains(st.Text, note) {
			return ""
		}
	}
	return note
}
