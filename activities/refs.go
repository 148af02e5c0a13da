package activities

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"slices"

	"hub/assistant"
	"hub/chat"
	"hub/workspace"
)

// maxTurnRefs: a turn knows at most 200 records by id, so the titles it
// can name stay a bounded part of its prompt.
const maxTurnRefs = 200

// knownRefs are the records a turn knows by id before any tool runs: the
// person's mentions and the records earlier replies named.
func knownRefs(user chat.Message, history []chat.Message) []workspace.Ref {
	refs := slices.Clone(user.Mentions)
	for _, m := range history {
		refs = append(refs, m.Mentions...)
		refs = append(refs, m.Refs...)
	}
	return dedupeRefs(refs, maxTurnRefs)
}

// turnMessages reads the person's message of the turn and the history
// before it, once per turn run on a worker (transcripts.go). Callers do
// not change what they get.
func (a *Activities) turnMessages(ctx context.Context, turn chat.Turn) (chat.Message, []chat.Message, error) {
	key := transcriptKey(ctx, turn)
	if t, ok := a.transcripts.get(key); ok {
		return t.user, t.history, nil
	}
	user, err := a.Chat.GetMessage(ctx, turn.UserMessageID)
	if err != nil {
		return chat.Message{}, nil, gone(err)
	}
	history, err := a.Chat.HistoryBefore(ctx, turn, user)
	if err != nil {
		return chat.Message{}, nil, err
	}
	if err := a.currentLabels(ctx, turn, &user, history); err != nil {
		return chat.Message{}, nil, err
	}
	a.transcripts.put(key, transcript{user: user, history: history})
	return user, history, nil
}

// currentLabels gives the records the person's message and the history
// name their title and status as they are now: another member may have
// renamed or finished one since. One lookup per space; a record gone, or
// a space the person left, keeps its label as it was.
func (a *Activities) currentLabels(ctx context.Context, turn chat.Turn, user *chat.Message, history []chat.Message) error {
	lists := []*[]workspace.Ref{&user.Mentions}
	for i := range history {
		m := &history[i]
		lists = append(lists, &m.Mentions, &m.Refs)
		for j := range m.ToolCalls {
			lists = append(lists, &m.ToolCalls[j].Refs)
		}
	}
	bySpace := map[string][]string{}
	for _, l := range lists {
		for _, r := range *l {
			space := cmp.Or(r.SpaceID, turn.SpaceID)
			if (r.Kind == workspace.KindTask || r.Kind == workspace.KindProject || r.Kind == workspace.KindPerson) &&
				!slices.Contains(bySpace[space], r.ID) {
				bySpace[space] = append(bySpace[space], r.ID)
			}
		}
	}
	if len(bySpace) == 0 {
		return nil
	}
	actor := workspace.Actor{PersonID: turn.PersonID, Via: workspace.ViaAssistant}
	now := map[string]map[string]workspace.Ref{}
	for _, space := range slices.Sorted(maps.Keys(bySpace)) {
		found, err := a.Workspace.FindRefs(ctx, actor, space, bySpace[space])
		switch {
		case errors.Is(err, workspace.ErrForbidden) || errors.Is(err, workspace.ErrNotFound):
			continue
		case err != nil:
			return err
		}
		now[space] = found
	}
	for _, l := range lists {
		refs := slices.Clone(*l) // never the slice a cache or a caller holds
		for i, r := range refs {
			if cur, ok := now[cmp.Or(r.SpaceID, turn.SpaceID)][r.ID]; ok && cur.Kind == r.Kind {
				refs[i].Label, refs[i].Detail = cur.Label, cur.Detail
			}
		}
		*l = refs
	}
	return nil
}

// knownTitles maps the ids the turn knows so far to their titles, so
// previews and summaries name records as people do.
func (a *Activities) knownTitles(ctx context.Context, turn chat.Turn, steps []chat.Step) (map[string]string, error) {
	user, history, err := a.turnMessages(ctx, turn)
	if err != nil {
		return nil, err
	}
	refs := knownRefs(user, history)
	for _, st := range steps {
		for _, c := range st.ToolCalls {
			refs = append(refs, c.Refs...)
		}
	}
	out := map[string]string{}
	for _, r := range dedupeRefs(refs, maxTurnRefs) {
		out[r.ID] = r.Label
	}
	return out, nil
}

// earlierCalls counts, by tool, the calls of the turn's steps that come
// before call, whatever became of them.
func earlierCalls(steps []chat.Step, call chat.ToolCall) map[string]int {
	out := map[string]int{}
	for _, st := range steps {
		for _, c := range st.ToolCalls {
			if c.Step < call.Step || c.Step == call.Step && c.Idx < call.Idx {
				out[c.Tool]++
			}
		}
	}
	return out
}

func skillRefs(skills []assistant.SkillLine) []workspace.Ref {
	var out []workspace.Ref
	for _, k := range skills[:min(len(skills), assistant.MaxListedSkills)] {
		out = append(out, workspace.Ref{Kind: workspace.KindSkill, ID: k.ID, Label: k.Name})
	}
	return out
}

func dedupeRefs(refs []workspace.Ref, limit int) []workspace.Ref {
	seen := map[string]bool{}
	var out []workspace.Ref
	for _, r := range refs {
		k := r.Kind + "/" + r.ID
		if seen[k] || r.ID == "" {
			continue
		}
		seen[k] = true
		out = append(out, r)
		if len(out) == limit {
			break
		}
	}
	return out
}
