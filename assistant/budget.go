package assistant

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"hub/llm"
)

// EstimateTokens estimates how many tokens a model's tokenizer makes of s,
// erring high: a prompt estimated too small is cut silently by the
// provider, dropping the person's question (docs/prompts.md, "The prompt
// budget"). It counts by character class, with no tokenizer, and is never
// below OpenAI's cl100k_base and o200k_base counts (budget_test.go).
func EstimateTokens(s string) int {
	tokens := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == ' ' && (i+1 == len(s) || s[i+1] != ' ' && s[i+1] != '\t' && s[i+1] != '\n' && s[i+1] != '\r'):
			i++
			if i < len(s) && s[i] >= '0' && s[i] <= '9' {
				tokens++ // numbers do not take the space before them
			}
		case unicode.IsSpace(r):
			n := strings.IndexFunc(s[i:], func(r rune) bool { return !unicode.IsSpace(r) })
			if n < 0 {
				n = len(s) - i
			}
			i += n
			tokens += (n + 3) / 4
		case r >= '0' && r <= '9':
			n := 0
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				i++
				n++
			}
			tokens += (n + 2) / 3
		case unicode.IsLetter(r) || unicode.IsMark(r):
			// An accent splits "Zürich" into three tokens.
			units, ascii := 0, size == 1
			for i < len(s) {
				r, size := utf8.DecodeRuneInString(s[i:])
				if !(unicode.IsLetter(r) || unicode.IsMark(r)) {
					break
				}
				if (size == 1) != ascii {
					tokens += (units + 3) / 4
					units, ascii = 0, size == 1
				}
				units += letterUnits[size]
				i += size
			}
			tokens += (units + 3) / 4
		case r < utf8.RuneSelf:
			n := 0
			for i < len(s) && s[i] < utf8.RuneSelf && asciiPunct(s[i]) {
				i++
				n++
			}
			if n == 0 { // a control character
				i++
				n = 1
			}
			tokens += (n + 1) / 2
		case r > 0xFFFF:
			i += size
			tokens += 3
		default:
			i += size
			tokens++
		}
	}
	return tokens
}

func asciiPunct(c byte) bool {
	return c > ' ' && c < 0x7f && !(c >= '0' && c <= '9') && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z')
}

// letterUnits is what a letter of each UTF-8 length adds to a word, in
// quarters of a token: byte-level tokenizers merge ASCII best and longer
// encodings less.
var letterUnits = [utf8.UTFMax + 1]int{1: 1, 2: 3, 3: 5, 4: 12}

// Per-message, per-tool and per-request framing the estimate adds: chat
// formats wrap each message and tool definition in role markers.
const (
	MessageOverheadTokens = 4
	ToolOverheadTokens    = 8
	RequestOverheadTokens = 3
)

// MessageTokens estimates one chat message: its content, the text of its
// tool calls, and its framing.
func MessageTokens(m llm.Message) int {
	n := MessageOverheadTokens + EstimateTokens(m.Content)
	for _, c := range m.ToolCalls {
		n += EstimateTokens(c.Name) + EstimateTokens(c.Arguments) + MessageOverheadTokens
	}
	return n
}

// ToolTokens estimates one tool definition as the JSON the request
// carries. Counts are remembered by the definition's text: an offer sends
// the same definitions in every request (recounting was ~1.5 % of CPU).
func ToolTokens(t llm.Tool) int {
	key := toolKey(t)
	toolCounts.mu.Lock()
	n, ok := toolCounts.byKey[key]
	toolCounts.mu.Unlock()
	if ok {
		return n
	}
	n = ToolOverheadTokens + EstimateTokens(ToolText(t))
	toolCounts.mu.Lock()
	if len(toolCounts.byKey) >= maxToolCounts {
		// MCP servers' definitions change as they are listed again: start
		// afresh rather than keep every version ever seen.
		clear(toolCounts.byKey)
	}
	toolCounts.byKey[key] = n
	toolCounts.mu.Unlock()
	return n
}

// toolKey hashes a definition's text (an MCP schema may be kilobytes);
// each part's length goes first, so no two definitions hash the same bytes.
func toolKey(t llm.Tool) uint64 {
	var h maphash.Hash
	h.SetSeed(toolSeed)
	var n [8]byte
	for _, part := range []string{t.Name, t.Description} {
		_, _ = h.Write(binary.LittleEndian.AppendUint64(n[:0], uint64(len(part))))
		_, _ = h.WriteString(part)
	}
	_, _ = h.Write(t.Parameters)
	return h.Sum64()
}

var toolSeed = maphash.MakeSeed()

const maxToolCounts = 4096

var toolCounts = struct {
	mu    sync.Mutex
	byKey map[uint64]int
}{byKey: map[uint64]int{}}

// ToolText is a tool definition as the JSON a request carries; parameters
// that are not JSON are kept as a string, so nothing is left uncounted.
func ToolText(t llm.Tool) string {
	params := t.Parameters
	if len(params) == 0 {
		params = json.RawMessage(`{}`)
	}
	if !json.Valid(params) {
		quoted, _ := json.Marshal(string(params)) // a string always encodes
		params = quoted
	}
	type function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	raw, _ := json.Marshal(struct {
		Type     string   `json:"type"`
		Function function `json:"function"`
	}{"function", function{t.Name, t.Description, params}})
	return string(raw)
}

// DefaultContextWindow is the window of a model Hub does not know: small
// enough that nearly every chat model holds it, large enough for Hub's
// instructions, 24 tool schemas, the context and a long message.
const DefaultContextWindow = 16_384

// contextWindows are known model families by name prefix; the longest
// matching prefix wins. Sizes are the providers' published windows, the
// smallest of a family's.
var contextWindows = []struct {
	prefix string
	tokens int
}{
	{"gpt-5", 272_000}, // 400k in all, of which 272k input
	{"gpt-4.1", 1_047_576},
	{"gpt-4o", 128_000},
	{"gpt-4-turbo", 128_000},
	{"gpt-4-32k", 32_768},
	{"gpt-4", 8_192},
	{"gpt-3.5-turbo", 16_385},
	{"o1", 128_000},
	{"o3", 200_000},
	{"o4-mini", 200_000},
	{"claude", 200_000},
	{"gemini", 1_000_000},
	{"llama3.1", 131_072}, {"llama3.2", 131_072}, {"llama3.3", 131_072}, {"llama4", 131_072},
	{"llama3", 8_192}, {"llama2", 4_096}, // "llama-3" is read as "llama3"
	{"mistral", 32_768}, {"mixtral", 32_768}, {"ministral", 32_768},
	{"qwen", 32_768},
	{"deepseek", 65_536},
	{"gemma", 8_192}, {"gemma3", 32_768},
	{"phi", 4_096},
	{"fakemodel", 1_000_000}, // the scripted test double has no window
}

// ContextWindow is the context window of a model by name, or
// DefaultContextWindow. The name is matched without case and without a
// provider's path ("openai/gpt-4o"); an Ollama tag matches its family.
func ContextWindow(model string) int {
	name := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	if rest, ok := strings.CutPrefix(name, "llama-"); ok {
		name = "llama" + rest
	}
	best, tokens := 0, DefaultContextWindow
	for _, w := range contextWindows {
		if strings.HasPrefix(name, w.prefix) && len(w.prefix) > best {
			best, tokens = len(w.prefix), w.tokens
		}
	}
	return tokens
}

// ContextTokensEnv names the variable an operator sets to the context
// window of HUB_MODEL, in tokens, when the table guesses wrong.
const ContextTokensEnv = "HUB_MODEL_CONTEXT_TOKENS"

// The bounds ParseContextTokens accepts: below 2,048 tokens Hub's own
// instructions do not fit; no model takes more than 10 million.
const (
	MinContextTokens = 2_048
	MaxContextTokens = 10_000_000
)

// ParseContextTokens reads HUB_MODEL_CONTEXT_TOKENS: empty is 0 (use the
// table), else a whole number of tokens ("32768", "128_000" or "128,000")
// within MinContextTokens–MaxContextTokens.
func ParseContextTokens(v string) (int, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(strings.NewReplacer("_", "", ",", "").Replace(v))
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not a whole number of tokens", ContextTokensEnv, v)
	}
	if n < MinContextTokens || n > MaxContextTokens {
		return 0, fmt.Errorf("%s: %d is outside %d–%d tokens", ContextTokensEnv, n, MinContextTokens, MaxContextTokens)
	}
	return n, nil
}

// Budget is how many tokens a model request may hold.
type Budget struct {
	Model  string // named in errors a person reads
	Window int    // the model's context window, in tokens
	// Headroom is kept free for the answer; 0 means ResponseHeadroom(Window).
	Headroom int
}

// NewBudget is the budget of a model: override (the operator's
// HUB_MODEL_CONTEXT_TOKENS, 0 when unset) or the model's known window.
func NewBudget(model string, override int) Budget {
	b := Budget{Model: model, Window: override}
	b.Window = b.window()
	return b
}

// ResponseHeadroom is what a request leaves free for the model's answer:
// 15% of the window and at least 4,096 tokens, but never more than half
// the window, so a small model still has room for the prompt.
func ResponseHeadroom(window int) int {
	return min(max(4096, window*15/100), window/2)
}

// Limit is how many prompt tokens fit: the window less the headroom. A
// budget without a window takes its model's (ContextWindow).
func (b Budget) Limit() int { return b.window() - b.headroom() }

func (b Budget) window() int {
	if b.Window <= 0 {
		return ContextWindow(b.Model)
	}
	return b.Window
}

func (b Budget) headroom() int {
	if b.Headroom <= 0 {
		return ResponseHeadroom(b.window())
	}
	return b.Headroom
}

// Guide is a playbook's text preloaded in the message's context.
type Guide struct {
	Name string // the playbook's name, for the report
	Text string // the text as sent
}

// PromptParts are the parts of a model request, as they will be sent.
type PromptParts struct {
	Instructions string
	Tools        []llm.Tool    // the schemas offered; their JSON counts
	Context      string        // the message's <context> block, without guides
	Guides       []Guide       // preloaded playbooks, most relevant first; the last is dropped first
	History      []llm.Message // earlier messages as sent, oldest first; the oldest is dropped first
	Message      string        // the person's message: never dropped
	Turn         []llm.Message // this turn's earlier steps, tool results and notes: never dropped
}

// FitReport says what Fit counted and dropped.
type FitReport struct {
	Window, Limit  int // the model's window; the prompt tokens that fit in it
	Tokens         int // the estimated prompt after fitting
	Fixed          int // what cannot be dropped
	Tools          int // of which the tool schemas
	HistoryDropped int // the oldest this many history messages
	GuidesDropped  []string
}

// ErrPromptTooLarge is what every PromptTooLargeError is (errors.Is): the
// request cannot fit even with history and guides dropped.
var ErrPromptTooLarge = errors.New("the prompt does not fit the model's context window")

// PromptTooLargeError says, with the numbers, why a request cannot fit.
// Its message is written for the person who sent the message.
type PromptTooLargeError struct {
	Model    string
	Window   int // the model's context window
	Headroom int // kept for the answer
	Base     int // instructions, tool schemas and the context block
	Message  int // the person's message
	Turn     int // this turn's steps and tool results
}

func (e *PromptTooLargeError) Error() string {
	model := cmp.Or(e.Model, "the model")
	limit := e.Window - e.Headroom
	switch {
	case e.Base > limit:
		return fmt.Sprintf("Hub's instructions and tools (about %d tokens) do not fit %s's context window of %d tokens with %d kept for the answer, so no message can be answered. If the model takes more, an operator can set %s.",
			e.Base, model, e.Window, e.Headroom, ContextTokensEnv)
	case e.Base+e.Message > limit:
		return fmt.Sprintf("Your message is too long for %s's context window: it is about %d tokens, and about %d fit beside Hub's instructions and tools (the window is %d tokens, %d of them kept for the answer). Shorten it or send it in parts.",
			model, e.Message, limit-e.Base, e.Window, e.Headroom)
	}
	return fmt.Sprintf("This turn's tool results grew past %s's context window (about %d tokens with the message, and the window is %d tokens, %d of them kept for the answer). Ask again with a narrower request.",
		model, e.Base+e.Message+e.Turn, e.Window, e.Headroom)
}

// Is makes errors.Is(err, ErrPromptTooLarge) true.
func (e *PromptTooLargeError) Is(target error) bool { return target == ErrPromptTooLarge }

// Fit makes p fit b: it drops history first, oldest message first, then
// guides, last first, and nothing else. If the rest alone does not fit it
// returns a *PromptTooLargeError.
func Fit(b Budget, p PromptParts) (PromptParts, FitReport, error) {
	limit := b.Limit()
	rep := FitReport{Window: b.window(), Limit: limit}
	_, rep.Tools = estimates(p.Tools, ToolTokens)
	// The message goes with the context in one user message.
	base := RequestOverheadTokens + MessageOverheadTokens + EstimateTokens(p.Instructions) + rep.Tools +
		MessageOverheadTokens + EstimateTokens(p.Context)
	message := EstimateTokens(p.Message)
	_, turn := estimates(p.Turn, MessageTokens)
	rep.Fixed = base + message + turn
	if rep.Fixed > limit {
		return p, rep, &PromptTooLargeError{Model: b.Model, Window: b.window(), Headroom: b.headroom(),
			Base: base, Message: message, Turn: turn}
	}

	guides, guidesTotal := estimates(p.Guides, func(g Guide) int {
		return EstimateTokens(g.Text) + 1 // the blank line between blocks
	})
	history, historyTotal := estimates(p.History, MessageTokens)
	total := rep.Fixed + guidesTotal + historyTotal
	for total > limit && rep.HistoryDropped < len(p.History) {
		total -= history[rep.HistoryDropped]
		rep.HistoryDropped++
	}
	keep := len(p.Guides)
	for total > limit && keep > 0 {
		keep--
		total -= guides[keep]
		rep.GuidesDropped = append(rep.GuidesDropped, p.Guides[keep].Name)
	}
	out := p
	out.History = p.History[rep.HistoryDropped:]
	out.Guides = p.Guides[:keep]
	rep.Tokens = total
	return out, rep, nil
}

// estimates estimates each item with f and returns the estimates and their sum.
func estimates[T any](items []T, f func(T) int) (each []int, sum int) {
	each = make([]int, len(items))
	for i, x := range items {
		each[i] = f(x)
		sum += each[i]
	}
	return each, sum
}
