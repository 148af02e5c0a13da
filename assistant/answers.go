package assistant

import (
	"context"
	"regexp"
	"slices"
	"strings"
)

// Nudges go back to the model, once, when a text-only reply leaves the
// work undone (docs/prompts.md, "Answers that do the work").
const (
	// NudgeLookup answers a reply that promises a lookup no tool made.
	NudgeLookup = "You said you would look something up, but no tool ran and text alone does nothing. Call the tool now; answer only once its result is back."
	// NudgeToolCallAsText answers a reply that writes a tool call as text.
	NudgeToolCallAsText = "You wrote a tool call as text, and text runs nothing. Make that call as a real tool call now, or answer the person without it."
	// NudgeAnnouncedWrite answers a reply that announces a change it did not make.
	NudgeAnnouncedWrite = "You announced a change but made no tool call, so nothing changed. Call the tool now; say it is done only once its result is back."
	// NudgeHeldDone answers a reply that reports a held write as done.
	NudgeHeldDone = "Those changes were proposed, not made: they wait for the person's Apply. Answer again and say what you proposed, not that it is done."
	// NudgeCite answers a reply that quotes a passage found this turn
	// without any passage's link.
	NudgeCite = "You quoted a file without citing it. Answer again and cite each passage you use by its link from the search results, as [the file's name](hub://file/…#…)."
)

// HeldWriteNote is what the model reads in the result of a write that was
// held for Apply, so it reports the write as proposed, never as done.
const HeldWriteNote = "Proposed, not done: this change waits for the person's Apply. Say what you proposed; do not say it is done."

// Answer is a model step's reply as the final-answer check sees it.
type Answer struct {
	Text       string // the reply's text; only a reply that made no tool call is checked
	ToolsRan   bool   // a tool ran earlier in this turn
	HeldWrites bool   // a write of this turn was held for Apply
	// StepsLeft counts the model steps after this one, the final tools-off one included (MaxSteps - step).
	StepsLeft int
	Nudged    bool // this turn already went back once
	// Found are the passages this turn's searches returned (their text).
	Found []string
}

// CheckAnswer decides whether a text-only reply stands (ok) or goes back
// with nudge, at most once a turn. What only a tool call can fix is sent
// back only while a step with tools remains (StepsLeft ≥ 2, the last step
// being tools-off).
func CheckAnswer(a Answer) (nudge string, ok bool) {
	if a.Nudged || a.StepsLeft < 1 || strings.TrimSpace(a.Text) == "" {
		return "", true
	}
	if a.StepsLeft >= 2 {
		if WritesToolCall(a.Text) {
			return NudgeToolCallAsText, false
		}
		switch p := Promise(a.Text); {
		case p == PromiseWrite:
			return NudgeAnnouncedWrite, false
		case p == PromiseLookup && !a.ToolsRan:
			return NudgeLookup, false
		}
	}
	if a.HeldWrites && ClaimsDone(a.Text) {
		return NudgeHeldDone, false
	}
	if QuotesUncited(a.Text, a.Found) {
		return NudgeCite, false
	}
	return "", true
}

// minQuotedWords: a quotation this long or longer is a quote of a source,
// not a name in quotation marks.
const minQuotedWords = 4

// QuotesUncited tells whether a reply quotes one of the passages found
// (a quotation of minQuotedWords words or more that occurs in one, case and
// spacing ignored) but cites no file's passage by its link.
func QuotesUncited(text string, found []string) bool {
	if len(found) == 0 || strings.Contains(text, "hub://file/") {
		return false
	}
	squash := func(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }
	for _, m := range quotedRe.FindAllString(text, -1) {
		quote := squash(strings.Trim(m, "“”\"«»„‘’`.,;:!? \n"))
		if len(strings.Fields(quote)) < minQuotedWords {
			continue
		}
		for _, p := range found {
			if strings.Contains(squash(p), quote) {
				return true
			}
		}
	}
	return false
}

// PromiseKind is what a reply promises to do next.
type PromiseKind int

// The kinds of promise a reply can end on.
const (
	NoPromise     PromiseKind = iota
	PromiseLookup             // "Let me check your tasks…"
	PromiseWrite              // "I will now add the task."
)

// A promise is a first-person announcement of the next action; its verb
// says whether it is a lookup or a write.
const (
	lookupVerbs = `check|look|search|find|fetch|pull|get|grab|retrieve|query|review|verify|confirm|gather|list|read|open|scan|go through|dig|browse|take a look|have a look|double-check|see (?:what|if|whether|which|how|who|when|your|the|all)`
	writeVerbs  = `create|add|make|set|update|change|edit|modify|move|mark|assign|reassign|delete|remove|rename|schedule|reschedule|post|send|apply|close|complete|archive|put|log|record|write|save|fix|link|attach|tag|prioriti[sz]e|set up|clean up|bump|push`
	// Neutral verbs continue whatever the reply promised before them ("I
	// need to look at your tasks. Let me do that now.").
	neutralVerbs = `do that|do it|do this|do so|go ahead|proceed|start|begin|get started|get on it|get to it|get going`
	adverbs      = `(?:now |quickly |first |just |then |also |go ahead and |next |right away |immediately |straight away |actually )*`
	promiseLead  = `(?:let me|let's|let us|i'll|i will|i'm going to|i am going to|i shall|i'm about to|i am about to|allow me to|i need to|i'm gonna)\s+` + adverbs
	// A sentence that starts with a gerund ("Checking your tasks now…")
	// promises only when it is short and says now (or trails off), so
	// "Adding a date helps" does not.
	lookupGerunds = `checking|looking up|looking into|looking at|looking for|looking through|searching|fetching|pulling up|retrieving|gathering|reviewing|querying`
	writeGerunds  = `creating|adding|updating|changing|moving|marking|assigning|deleting|removing|renaming|scheduling|posting|sending|applying|setting up|making`
)

var (
	lookupRe = regexp.MustCompile(`\b` + promiseLead + `(?:` + lookupVerbs + `)\b` +
		`|\b(?:i'm|i am) (?:now |just )?(?:` + lookupGerunds + `)\b` +
		`|^(?:one|just a) (?:moment|sec|second|minute)\b|\bhold on\b|\bgive me a (?:moment|sec|second|minute)\b|\bbear with me\b`)
	lookupGerundRe = regexp.MustCompile(`^(?:now |next,? )?(?:` + lookupGerunds + `)\b[^,]{0,80}$`)
	writeRe        = regexp.MustCompile(`\b` + promiseLead + `(?:` + writeVerbs + `)\b` +
		`|\b(?:proceeding|moving on|going ahead|getting started) (?:to|with|now)\b` +
		`|\b(?:i'm|i am) (?:now |just )?(?:` + writeGerunds + `)\b`)
	neutralRe     = regexp.MustCompile(`\b` + promiseLead + `(?:` + neutralVerbs + `)\b`)
	writeGerundRe = regexp.MustCompile(`^(?:now |next,? )?(?:` + writeGerunds + `)\b[^,]{0,80}$`)
	nowRe         = regexp.MustCompile(`\b(?:now|right away|for you|first|next|immediately)\b`)
	// An offer or a condition waits for the person; it is not a promise.
	conditionalRe = regexp.MustCompile(`\b(?:if|once|when|whenever|after|unless|as soon as) (?:you|it|that|they|we|there)\b|\bif (?:needed|necessary|desired|required|so|not|wanted|useful|helpful)\b` +
		`|\blet me know\b|\bwant me to\b|\bwould you like\b|\bshould i\b|\bshall i\b|\bdo you want\b|\bjust say\b|\bjust tell me\b|\bhappy to\b|\bfeel free\b` +
		`|\bi (?:can|could)\s|\bi'd be\b|\bin the future\b|\bnext time\b|\blater\b|\bgoing forward\b|\bfrom now on\b|\btomorrow\b`)
)

// Promise tells what the last two sentences of a reply promise to do next.
// Quoted text is not read; a question, an offer or a condition ("if you'd
// like, I'll add…") is not a promise.
func Promise(text string) PromiseKind {
	trails := strings.HasSuffix(strings.TrimSpace(text), "…") || strings.HasSuffix(strings.TrimSpace(text), "...")
	all := sentences(normalize(text))
	if len(all) > 2 {
		all = all[len(all)-2:]
	}
	lookup, neutral := false, false
	for i, s := range all {
		if strings.HasSuffix(s, "?") || conditionalRe.MatchString(s) {
			continue
		}
		now := nowRe.MatchString(s) || (trails && i == len(all)-1)
		switch {
		case writeRe.MatchString(s), now && writeGerundRe.MatchString(s):
			return PromiseWrite
		case neutralRe.MatchString(s):
			neutral = true
		case lookupRe.MatchString(s), now && lookupGerundRe.MatchString(s):
			lookup = true
		}
	}
	switch {
	case lookup:
		return PromiseLookup
	case neutral:
		return PromiseWrite // work announced, none done
	}
	return NoPromise
}

// toolCallRes find a tool call written as text: a snake_case name called
// like a function or followed by JSON, a JSON object naming a tool and its
// arguments, and chat templates' call markers.
var toolCallRes = []*regexp.Regexp{
	regexp.MustCompile(`\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\s*\(\s*(?:\)|\{|\[|"|'|[a-z_]+\s*[=:])`),
	regexp.MustCompile(`\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\s*:?\s*\{\s*"`),
	regexp.MustCompile("```\\s*[a-z][a-z0-9]*(?:_[a-z0-9]+)+\\s*\\n\\s*[{\\[]"),
	regexp.MustCompile(`"(?:name|tool|tool_name|function|recipient_name|action)"\s*:\s*"[A-Za-z][\w.\-]*"[\s\S]{0,400}?"(?:arguments|parameters|args|input|action_input)"\s*:`),
	regexp.MustCompile(`"(?:arguments|parameters|args|input)"\s*:\s*\{[\s\S]{0,400}?"(?:name|tool|function)"\s*:\s*"[a-z][a-z0-9]*_[a-z0-9_]+"`),
	regexp.MustCompile(`(?i)<\|?(?:tool_call|function_call|tool_calls|python_tag)\|?>|\[TOOL_CALLS\]|<function=[a-z_]|<invoke\b|"type"\s*:\s*"function"`),
}

// WritesToolCall tells whether a reply writes a tool call as text instead of making it.
func WritesToolCall(text string) bool {
	return slices.ContainsFunc(toolCallRes, func(re *regexp.Regexp) bool { return re.MatchString(text) })
}

// A claim that a change was made ("I've added", "it was created", "Done —");
// a negation ("I haven't added") is not one.
const (
	doneVerbs    = `added|created|updated|changed|edited|modified|moved|marked|assigned|reassigned|deleted|removed|renamed|scheduled|rescheduled|posted|sent|set|set up|completed|made|saved|closed|archived|applied|logged|recorded|put|linked|attached|tagged|prioriti[sz]ed|cleared|finished|done`
	doneOpeners  = `added|created|updated|changed|moved|marked|assigned|reassigned|deleted|removed|renamed|scheduled|rescheduled|posted|sent|completed|saved|closed|archived|applied`
	doneSubjects = `it|this|that|they|these|those|both|all|everything|each|all of them|both of them|(?:the|your|these|those|both|all) (?:\w+ )?(?:task|tasks|project|projects|change|changes|update|updates|item|items|record|records|post|message)|task|tasks|project|projects|“”`
	doneAdverbs  = `(?:just |now |already |also |successfully |all |gone ahead and |went ahead and )*`
)

var (
	doneRe = regexp.MustCompile(`\b(?:i've|i have|we've|we have|i|we)\s+` + doneAdverbs + `(?:` + doneVerbs + `)\b` +
		`|(?:^|\s)(?:` + doneSubjects + `)\s+(?:has|have|is|are|was|were)\s+` + doneAdverbs + `(?:been\s+)?` + doneAdverbs + `(?:` + doneVerbs + `)\b` +
		`|\b(?:it's|they're|that's|they've|it has|they have)\s+` + doneAdverbs + `(?:been\s+)?` + doneAdverbs + `(?:` + doneVerbs + `)\b` +
		`|^(?:all )?(?:done|all set|finished|complete)\b|^(?:` + doneOpeners + `)\b|\bsuccessfully\b|✅|✔`)
	// A sentence that says the change waits, or speaks of saying it is
	// done ("do not say it is done"), is not a claim it is done.
	proposedRe = regexp.MustCompile(`\b(?:not|never|n't) (?:say|claim|report)\b|propos|\bapply\b|approv|\bwaiting\b|\bwaits\b|\bpending\b|\bonce you\b|\bwhen you\b|\bafter you\b|needs me|\breview\b|\bconfirm|\bheld\b|\bnot yet\b|\bqueued\b|\bwill be\b`)
)

// ClaimsDone tells whether a reply says a change was made, outside quoted
// text and sentences saying it waits (proposedRe).
func ClaimsDone(text string) bool {
	return slices.ContainsFunc(sentences(normalize(text)), func(s string) bool {
		return !proposedRe.MatchString(s) && doneRe.MatchString(s)
	})
}

var (
	// quotedRe finds quoted text: titles and the person's words are data,
	// and “Let me check the boiler” as a task title promises nothing.
	quotedRe = regexp.MustCompile("“[^”]*”|\"[^\"\n]*\"|«[^»]*»|„[^“”]*[“”]|`[^`\n]*`|‘[^’\n]*’(?:\\s|[.,;:!?]|$)")
	fencedRe = regexp.MustCompile("(?s)```.*?(?:```|$)")
	// sentenceEnd ends a sentence at . ! ? … ; a line break or a dash
	// between spaces ("Done — added …").
	sentenceEnd = regexp.MustCompile(`[.!?…;]+(?:\s+|$)|\n+|\s[—–-]\s`)
)

// normalize empties quoted text (keeping “” so a sentence keeps its shape)
// and fenced code, folds curly apostrophes and lowercases.
func normalize(text string) string {
	text = fencedRe.ReplaceAllString(text, " ")
	text = quotedRe.ReplaceAllString(text, "“” ")
	text = strings.NewReplacer("’", "'", "‘", "'").Replace(text)
	return strings.ToLower(text)
}

// sentences splits normalized text into trimmed sentences, dropping those
// with no letters (emoji, a lone dash). A question keeps its "?".
func sentences(text string) []string {
	var out []string
	last := 0
	for _, m := range sentenceEnd.FindAllStringIndex(text, -1) {
		out = appendSentence(out, text[last:m[1]])
		last = m[1]
	}
	return appendSentence(out, text[last:])
}

func appendSentence(out []string, s string) []string {
	s = strings.TrimSpace(s)
	q := strings.HasSuffix(s, "?")
	s = strings.TrimSpace(strings.TrimRight(s, ".!?…;—–- "))
	s = strings.TrimSpace(strings.TrimLeft(s, "-*•># )"))
	if !strings.ContainsFunc(s, func(r rune) bool { return r >= 'a' && r <= 'z' }) {
		return out
	}
	if q {
		s += "?"
	}
	return append(out, s)
}

// MaxVerifyRounds is how often a verify hook may send a turn back.
const MaxVerifyRounds = 2

// VerifyInput is what a verify hook reads: the person's request, the final
// text, and what the turn's tools did.
type VerifyInput struct {
	TurnID  string
	Request string   // the person's message
	Answer  string   // the model's final text
	Calls   []string // the turn's tool calls, one line each ("hub_create_tasks: Added 1 task: “Buy milk”.")
	Round   int      // 1 for the first round
}

// Verifier checks a final answer against the request and says what is
// still missing ("" when nothing is). A surface passes one to check its
// own kind of work; it runs in an activity, never in workflow code.
type Verifier interface {
	Verify(ctx context.Context, in VerifyInput) (missing string, err error)
}

// VerifierFunc lets a function be a Verifier.
type VerifierFunc func(ctx context.Context, in VerifyInput) (string, error)

// Verify calls f.
func (f VerifierFunc) Verify(ctx context.Context, in VerifyInput) (string, error) { return f(ctx, in) }

// VerifyPolicy decides when a verify hook runs: at most MaxRounds rounds
// (MaxVerifyRounds when 0), only while a step with tools remains (what is
// missing needs tools). It is pure, so workflow code may call it.
type VerifyPolicy struct {
	MaxRounds int
}

// Allow tells whether another round may run after roundsDone rounds, with
// stepsLeft model steps left (as Answer.StepsLeft).
func (p VerifyPolicy) Allow(roundsDone, stepsLeft int) bool {
	limit := p.MaxRounds
	if limit <= 0 {
		limit = MaxVerifyRounds
	}
	return roundsDone < limit && stepsLeft >= 2
}

// VerifyNote is what goes back to the model when a verify hook finds something missing.
func VerifyNote(missing string) string {
	return "Before you answer, this is still missing from the request: " + strings.TrimSpace(missing) +
		"\nDo it with the tools now, or say plainly why it cannot be done."
}
