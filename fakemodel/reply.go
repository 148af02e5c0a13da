package fakemodel

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// conversation holds the facts of a request that rules match on and
// templates read.
type conversation struct {
	lastUser       string
	lastAssistant  string
	lastIsTool     bool
	lastToolResult string
	// toolResults counts the tool results after the last user message:
	// which model call of a turn this request is.
	toolResults int
	tools       []string
	// partTypes are the part types of the last user message.
	partTypes []string
}

func conversationOf(rec *RecordedRequest) conversation {
	var c conversation
	for _, m := range rec.Messages {
		switch m.Role {
		case "user":
			c.lastUser = m.Content
			c.toolResults = 0
			c.partTypes = c.partTypes[:0]
			for _, p := range m.Parts {
				c.partTypes = append(c.partTypes, p.Type)
			}
		case "tool":
			c.lastToolResult = m.Content
			c.toolResults++
		case "assistant":
			c.lastAssistant = m.Content
		}
	}
	if n := len(rec.Messages); n > 0 {
		c.lastIsTool = rec.Messages[n-1].Role == "tool"
	}
	c.tools = rec.Tools
	return c
}

// matches reports whether every condition the rule sets holds, and returns
// the lastUser regex's captures.
func (r *rule) matches(c conversation) ([]string, bool) {
	if r.afterToolResult != nil && *r.afterToolResult != c.lastIsTool {
		return nil, false
	}
	if r.toolsOffered != nil && *r.toolsOffered != (len(c.tools) > 0) {
		return nil, false
	}
	if r.toolResults != nil && *r.toolResults != c.toolResults {
		return nil, false
	}
	if r.offered != "" && !slices.Contains(c.tools, r.offered) {
		return nil, false
	}
	if r.hasPart != "" && !slices.Contains(c.partTypes, r.hasPart) {
		return nil, false
	}
	if r.lastUser == nil {
		return nil, true
	}
	groups := r.lastUser.FindStringSubmatch(c.lastUser)
	return groups, groups != nil
}

// answer is a rule's reply rendered for one request.
type answer struct {
	text            string
	calls           []ToolCall
	usage           usageSpec
	finishReason    string
	chunkSize       int
	firstTokenDelay time.Duration
	chunkDelay      time.Duration
	fault           faultSpec
}

// render runs the rule's templates on the request's data. reqIndex makes
// tool-call ids unique across requests.
func (r *rule) render(c conversation, groups []string, reqIndex int, promptChars int) (answer, error) {
	summary, toolErr := "", ""
	if c.lastToolResult != "" {
		summary, toolErr = summarizeToolResult(c.lastToolResult)
	}
	data := templateData{
		Groups:          groups,
		LastUser:        c.lastUser,
		LastAssistant:   c.lastAssistant,
		LastToolResult:  c.lastToolResult,
		LastToolSummary: summary,
		LastToolError:   toolErr,
	}
	a := answer{
		finishReason:    r.finishReason,
		chunkSize:       r.chunkSize,
		firstTokenDelay: r.firstTokenDelay,
		chunkDelay:      r.chunkDelay,
		fault:           r.fault,
	}
	if r.text != nil {
		var b strings.Builder
		if err := r.text.Execute(&b, data); err != nil {
			return answer{}, fmt.Errorf("%s: reply.text: %w", r.label(), err)
		}
		a.text = b.String()
	}
	for i, spec := range r.calls {
		call := ToolCall{ID: spec.ID, Name: spec.Name, Arguments: "{}"}
		if call.ID == "" {
			call.ID = fmt.Sprintf("call_%d_%d", reqIndex, i)
		}
		field := fmt.Sprintf("reply.toolCalls[%d]", i)
		switch {
		case spec.RawArguments != nil:
			args, err := execTemplate(field+".rawArguments", *spec.RawArguments, data)
			if err != nil {
				return answer{}, fmt.Errorf("%s: %s.rawArguments: %w", r.label(), field, err)
			}
			call.Arguments = args
		case len(spec.Arguments) > 0:
			args, err := renderJSONStrings(spec.Arguments, func(s string) (string, error) {
				return execTemplate(field+".arguments", s, data)
			})
			if err != nil {
				return answer{}, fmt.Errorf("%s: %s.arguments: %w", r.label(), field, err)
			}
			call.Arguments = string(args)
		}
		if r.fault.Kind == FaultMalformedToolArgs {
			call.Arguments = breakJSON(call.Arguments)
		}
		a.calls = append(a.calls, call)
	}
	if a.finishReason == "" {
		a.finishReason = "stop"
		if len(a.calls) > 0 {
			a.finishReason = "tool_calls"
		}
	}
	if r.usage != nil {
		a.usage = *r.usage
	} else {
		a.usage = estimateUsage(promptChars, a)
	}
	return a, nil
}

// noAnswer is the reply when no rule matched: a plain text that says so, so
// a test or demo shows the gap in the script instead of hanging.
func noAnswer(c conversation, promptChars int) answer {
	said := c.lastUser
	if utf8.RuneCountInString(said) > 200 {
		said = string([]rune(said)[:200]) + "…"
	}
	a := answer{
		text:         fmt.Sprintf("fakemodel (a scripted test double, not a real model) has no answer in its script for: %q", said),
		finishReason: "stop",
		chunkSize:    defaultChunkSize,
	}
	a.usage = estimateUsage(promptChars, a)
	return a
}

// breakJSON makes valid JSON arguments invalid the way a model that stopped
// early does: the closing brace is missing.
func breakJSON(args string) string {
	if len(args) <= 1 {
		return "{"
	}
	return args[:len(args)-1]
}

// estimateUsage counts roughly four characters per token, for scripts that
// do not state usage, so that usage bookkeeping sees plausible numbers.
func estimateUsage(promptChars int, a answer) usageSpec {
	out := len(a.text)
	for _, c := range a.calls {
		out += len(c.Name) + len(c.Arguments)
	}
	return usageSpec{Input: promptChars/4 + 1, Output: out/4 + 1}
}

// splitRunes cuts s into pieces of at most n characters (never inside a
// UTF-8 sequence).
func splitRunes(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		i, count := 0, 0
		for i < len(s) && count < n {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			count++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}
