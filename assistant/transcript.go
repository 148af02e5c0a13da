package assistant

import (
	"cmp"
	"slices"
	"strings"

	"hub/chat"
	"hub/llm"
	"hub/playbooks"
	"hub/tools"
	"hub/workspace"
)

// FinalStepNote goes with the last, tools-off model request.
const FinalStepNote = "This is the last step of this turn: no more tools can run. Answer the person now with what the tools returned; say plainly what was not done."

// ContinueNote follows the reply so far of a model call that a pause cut
// off, when the call runs again on Resume.
const ContinueNote = "Your reply above was cut off by a pause. Continue it from exactly where it stops, mid-sentence if need be, without repeating anything already written."

// Transcript is everything one model request continues from.
type Transcript struct {
	Instructions string
	History      []chat.Message
	Context      string
	UserText     string
	UserParts    []llm.Part  // the files attached to this message (earlier ones are links)
	Steps        []chat.Step // earlier steps of this turn, with their calls' outcomes
	// Partial is this step's reply so far, cut off by a pause; ContinueNote follows it.
	Partial  string
	ToolsOff bool
	Tools    *tools.Registry // tells writes from reads in the history's tool calls
}

// Messages renders the transcript as chat messages.
func (t Transcript) Messages() []llm.Message {
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: t.Instructions}}
	msgs = append(msgs, HistoryMessages(t.History, t.Tools)...)
	user := t.UserText
	if t.Context != "" {
		user = t.Context + "\n\n" + t.UserText
	}
	msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: user, Parts: t.UserParts})
	for _, st := range t.Steps {
		am := llm.Message{Role: llm.RoleAssistant, Content: st.Text}
		for _, c := range st.ToolCalls {
			am.ToolCalls = append(am.ToolCalls, llm.ToolCall{ID: callID(c), Name: c.Tool, Arguments: c.Arguments})
		}
		msgs = append(msgs, am)
		for _, c := range st.ToolCalls {
			msgs = append(msgs, llm.Message{Role: llm.RoleTool, ToolCallID: callID(c), Content: ToolMessage(c)})
		}
		if st.Nudge != "" {
			msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: st.Nudge})
		}
	}
	if t.Partial != "" {
		msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: t.Partial},
			llm.Message{Role: llm.RoleUser, Content: ContinueNote})
	}
	if t.ToolsOff {
		msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: FinalStepNote})
	}
	return msgs
}

// callID is the id the model knows a call by: the provider's when it gave one, else Hub's own.
func callID(c chat.ToolCall) string { return cmp.Or(c.ProviderCallID, c.ID) }

// ToolMessage is what the model reads back for a call.
func ToolMessage(c chat.ToolCall) string {
	if c.Result != "" {
		return c.Result
	}
	if c.Status == chat.CallPending {
		return tools.ErrorText(tools.Errorf(tools.CodeFailed, "this call did not finish; nothing is known of its outcome"))
	}
	return tools.ErrorText(&tools.Error{Code: c.ErrorCode, Message: c.ErrorMessage})
}

// Offer returns every tool the person's role and settings allow, by name,
// in order; BuildOffer bounds it.
func Offer(reg *tools.Registry, role workspace.Role, s workspace.Settings) []string {
	var names []string
	for _, d := range reg.Offerable(role, s) {
		names = append(names, d.Name)
	}
	return names
}

// ToolSchemas returns the llm tool definitions for offered names.
func ToolSchemas(reg *tools.Registry, names []string) []llm.Tool {
	var out []llm.Tool
	for _, n := range names {
		if d, ok := reg.Get(n); ok {
			out = append(out, llm.Tool{Name: d.Name, Description: d.Description, Parameters: d.Schema})
		}
	}
	return out
}

// CrossSpaceSchemas adds the optional space argument to every tool that
// acts in a space, for a turn that may act in several spaces.
func CrossSpaceSchemas(ts []llm.Tool, reg *tools.Registry) []llm.Tool {
	out := make([]llm.Tool, len(ts))
	for i, t := range ts {
		out[i] = t
		if d, ok := reg.Get(t.Name); ok && !d.NoSpace {
			out[i].Parameters = tools.WithSpaceArg(t.Parameters)
		}
	}
	return out
}

// HistoryMessages renders earlier messages as the model reads them: as
// written, a reply followed by the writes it made with their records' ids.
func HistoryMessages(history []chat.Message, reg *tools.Registry) []llm.Message {
	out := make([]llm.Message, 0, len(history))
	for _, m := range history {
		content := m.Text
		if note := WritesNote(m.ToolCalls, reg); note != "" && m.Role == chat.RoleAssistant {
			content = strings.TrimSpace(content + "\n\n" + note)
		}
		if note := AttachedNote(m.Mentions); note != "" && m.Role == chat.RoleUser {
			content = strings.TrimSpace(content + "\n\n" + note)
		}
		out = append(out, llm.Message{Role: m.Role, Content: content})
	}
	return out
}

// NewRegistry is every tool the assistant can offer: Hub's tools, the
// optional ones the server is set up for (extra) and the meta tools, with
// the shipped playbooks usable with them. Connected-app writes go out
// through apps.
func NewRegistry(apps tools.Poster, extra ...*tools.Definition) (*tools.Registry, []playbooks.Playbook, error) {
	all, err := playbooks.All()
	if err != nil {
		return nil, nil, err
	}
	reg := tools.Hub(apps)
	// Before the meta tools and the usable playbooks, which read the registry.
	for _, d := range extra {
		reg.Add(d)
	}
	reg.Add(tools.RunPlan(reg))
	for _, d := range MetaTools(all, reg) {
		reg.Add(d)
	}
	return reg, playbooks.Usable(all, reg.Has), nil
}

// KindFile is the mention kind of an attached file.
const KindFile = "file"

// AttachedNote names an earlier message's attached files as links, so a
// replayed message does not send them again; hub_view_file opens one.
func AttachedNote(mentions []workspace.Ref) string {
	files := slices.DeleteFunc(slices.Clone(mentions), func(m workspace.Ref) bool { return m.Kind != KindFile })
	if len(files) == 0 {
		return ""
	}
	return "Attached files (open one with hub_view_file): " + links(files)
}

// Humanize replaces the ids of known records in display text with their titles.
func Humanize(text string, known map[string]string) string {
	if text == "" || len(known) == 0 {
		return text
	}
	ids := make([]string, 0, len(known))
	for id := range known {
		if strings.Contains(text, id) {
			ids = append(ids, id)
		}
	}
	// Longest first, so an id that contains another is replaced whole.
	slices.SortFunc(ids, func(a, b string) int { return len(b) - len(a) })
	for _, id := range ids {
		text = strings.ReplaceAll(text, id, "“"+known[id]+"”")
	}
	return text
}

// WritesNote renders the writes an earlier reply made, with their records
// as links, so a later model call still has the ids. An applied call says
// what Apply did, and one whose Apply stopped partway what was done and
// where it stopped.
func WritesNote(calls []chat.ToolCall, reg *tools.Registry) string {
	if reg == nil {
		return ""
	}
	var lines []string
	for _, c := range calls {
		if c.Status != chat.CallDone && c.Status != chat.CallHeld && c.Status != chat.CallApplied {
			continue
		}
		if d, ok := reg.Get(c.Tool); !ok || !d.IsWrite {
			continue
		}
		refs, line := c.Refs, c.Summary
		switch r := c.Receipt; {
		case c.Status == chat.CallApplied:
			if r != nil && r.Summary != "" {
				line = r.Summary
			}
			line = "Proposed, then applied by the person: " + line
		case c.Status == chat.CallHeld && r != nil && r.Status == chat.ReceiptFailed && len(r.Refs) > 0:
			refs, line = r.Refs, "Proposed; the person's Apply did part of it: "+r.Summary+" "+r.ErrorMessage
		case c.Status == chat.CallHeld:
			line = "Proposed (waiting for Apply): " + line
		}
		if len(refs) == 0 || c.Summary == "" {
			continue
		}
		lines = append(lines, line+" Records: "+links(refs))
	}
	return strings.Join(lines, "\n")
}
