package fakemodel

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"text/template"
	"time"
)

// Script is an ordered list of rules: for each chat completion request the
// first rule whose match holds answers it. A Script is built only by
// ParseScript, LoadScript or DefaultScript, so every Script a Server holds has
// compiled regexes and templates and cannot fail on its own syntax mid-test.
// The zero Script has no rules: every request gets the "no answer" text.
type Script struct {
	name   string
	rules  []*rule
	source json.RawMessage
}

// Name is the script's "name" field (or the file name it was loaded from).
func (s Script) Name() string { return s.name }

// MarshalJSON returns the script's source, for GET /fake/script.
func (s Script) MarshalJSON() ([]byte, error) {
	if s.source == nil {
		return []byte(`{"rules":[]}`), nil
	}
	return s.source, nil
}

// Fault kinds a reply can inject.
const (
	FaultRateLimit         = "rate_limit"          // 429 with Retry-After
	FaultServerError       = "server_error"        // 500
	FaultHTTPError         = "http_error"          // any status 400-599
	FaultCut               = "cut"                 // stream ends mid-way without [DONE]
	FaultMalformedToolArgs = "malformed_tool_args" // tool arguments that are not valid JSON
	FaultHang              = "hang"                // headers, then nothing until the client leaves
)

var faultKinds = []string{FaultRateLimit, FaultServerError, FaultHTTPError, FaultCut, FaultMalformedToolArgs, FaultHang}

// defaultChunkSize is how many characters of text or tool arguments one
// streamed chunk carries unless a reply says otherwise.
const defaultChunkSize = 12

// rule is one compiled script rule.
type rule struct {
	number int // 1-based position, as error messages and recordings name it
	name   string

	lastUser        *regexp.Regexp
	afterToolResult *bool
	offered         string
	toolsOffered    *bool
	toolResults     *int   // tool results after the last user message
	hasPart         string // a part type the last user message must carry
	times           int    // 0 = unlimited

	text            *template.Template
	calls           []callSpec
	usage           *usageSpec
	finishReason    string
	chunkSize       int
	firstTokenDelay time.Duration
	chunkDelay      time.Duration
	fault           faultSpec
}

// label names a rule in errors and recordings: `rule 2 "create a task"`.
func (r *rule) label() string {
	if r.name == "" {
		return "rule " + strconv.Itoa(r.number)
	}
	return fmt.Sprintf("rule %d %q", r.number, r.name)
}

// The JSON shapes of a script file. Unknown fields are errors, so a typo
// ("lastuser") fails loudly instead of making a rule match everything.
type (
	scriptSpec struct {
		Name  string            `json:"name"`
		Rules []json.RawMessage `json:"rules"`
	}
	ruleSpec struct {
		Name  string    `json:"name"`
		Match matchSpec `json:"match"`
		Times int       `json:"times"`
		Reply replySpec `json:"reply"`
	}
	matchSpec struct {
		LastUser        string `json:"lastUser"`
		AfterToolResult *bool  `json:"afterToolResult"`
		Offered         string `json:"offered"`
		ToolsOffered    *bool  `json:"toolsOffered"`
		ToolResults     *int   `json:"toolResults"`
		HasPart         string `json:"hasPart"`
	}
	replySpec struct {
		Text            string     `json:"text"`
		ToolCalls       []callSpec `json:"toolCalls"`
		Usage           *usageSpec `json:"usage"`
		FinishReason    string     `json:"finishReason"`
		ChunkSize       int        `json:"chunkSize"`
		FirstTokenDelay string     `json:"firstTokenDelay"`
		ChunkDelay      string     `json:"chunkDelay"`
		Fault           *faultSpec `json:"fault"`
	}
	callSpec struct {
		ID   string `json:"id"`
		Name string `json:"name"`
		// Arguments is a JSON object whose string values are templates;
		// values are JSON-escaped after rendering, so a capture with quotes
		// still yields valid JSON.
		Arguments json.RawMessage `json:"arguments"`
		// RawArguments is sent verbatim after rendering: for arguments that
		// are deliberately not valid JSON.
		RawArguments *string `json:"rawArguments"`
	}
	usageSpec struct {
		Input int `json:"input"`
		// Cached is how many of the input tokens the provider's prompt
		// cache served (prompt_tokens_details.cached_tokens; 0: omitted).
		Cached int `json:"cached"`
		Output int `json:"output"`
	}
)

// faultSpec is written either as a kind ("fault": "cut") or as an object with
// parameters ("fault": {"kind": "cut", "afterChunks": 2, "clean": true}).
type faultSpec struct {
	Kind string `json:"kind"`
	// Status for http_error.
	Status int `json:"status"`
	// RetryAfter is the Retry-After header: a number of seconds or any
	// string (an HTTP date) sent as it is. rate_limit defaults to "1".
	RetryAfter string `json:"retryAfter"`
	// Message replaces the error body's message.
	Message string `json:"message"`
	// AfterChunks is how many data chunks a cut stream sends first
	// (default: half of the answer's chunks, at least one).
	AfterChunks int `json:"afterChunks"`
	// Clean ends a cut response properly at the HTTP level (the server just
	// stops) instead of dropping the connection mid-body.
	Clean bool `json:"clean"`
}

func (f *faultSpec) UnmarshalJSON(b []byte) error {
	var kind string
	if err := json.Unmarshal(b, &kind); err == nil {
		*f = faultSpec{Kind: kind}
		return nil
	}
	var raw struct {
		faultFields
		RetryAfter json.RawMessage `json:"retryAfter"`
	}
	if err := strictUnmarshal(b, &raw); err != nil {
		return fmt.Errorf("fault: %w", err)
	}
	*f = faultSpec(raw.faultFields)
	if len(raw.RetryAfter) > 0 {
		var secs json.Number
		if err := json.Unmarshal(raw.RetryAfter, &secs); err == nil {
			f.RetryAfter = secs.String()
		} else if err := json.Unmarshal(raw.RetryAfter, &f.RetryAfter); err != nil {
			return errors.New("fault.retryAfter: want a number of seconds or a string")
		}
	}
	return nil
}

// faultFields is faultSpec without its UnmarshalJSON, for decoding.
type faultFields struct {
	Kind        string `json:"kind"`
	Status      int    `json:"status"`
	RetryAfter  string `json:"-"`
	Message     string `json:"message"`
	AfterChunks int    `json:"afterChunks"`
	Clean       bool   `json:"clean"`
}

// ParseScript reads a script from its JSON text. Errors name the rule and
// field at fault: `rule 2 "create a task": match.lastUser: ...`.
func ParseScript(data []byte) (Script, error) {
	var spec scriptSpec
	if err := strictUnmarshal(data, &spec); err != nil {
		return Script{}, fmt.Errorf("script: %w", describeJSONError(data, err))
	}
	s := Script{name: spec.Name, source: json.RawMessage(bytes.TrimSpace(data))}
	for i, raw := range spec.Rules {
		r, err := compileRule(i+1, raw)
		if err != nil {
			return Script{}, fmt.Errorf("script: %w", err)
		}
		s.rules = append(s.rules, r)
	}
	return s, nil
}

// LoadScript reads a script file; an unnamed script takes the file's name.
func LoadScript(path string) (Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Script{}, fmt.Errorf("load script: %w", err)
	}
	s, err := ParseScript(data)
	if err != nil {
		return Script{}, fmt.Errorf("%s: %w", path, err)
	}
	if s.name == "" {
		s.name = path
	}
	return s, nil
}

// MustParseScript is ParseScript for scripts written inside tests, where a
// broken script is a bug in the test.
func MustParseScript(data string) Script {
	s, err := ParseScript([]byte(data))
	if err != nil {
		panic(err)
	}
	return s
}

//go:embed default_script.json
var defaultScript []byte

// DefaultScript is the script `hub dev --fake-model` runs: it understands
// "add a task called X" (hub_create_tasks), "list my tasks"
// (hub_list_tasks), answers a tool result with its summary, and says what it
// is for anything else. Its source is default_script.json in this package.
func DefaultScript() Script {
	return MustParseScript(string(defaultScript))
}

func compileRule(number int, raw json.RawMessage) (*rule, error) {
	r := &rule{number: number}
	// Read the name first, leniently, so that even a rule with a bad field
	// is named in the error.
	var named struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(raw, &named)
	r.name = named.Name

	var spec ruleSpec
	if err := strictUnmarshal(raw, &spec); err != nil {
		return nil, fmt.Errorf("%s: %w", r.label(), err)
	}
	if err := r.compile(spec); err != nil {
		return nil, fmt.Errorf("%s: %w", r.label(), err)
	}
	return r, nil
}

func (r *rule) compile(spec ruleSpec) error {
	m := spec.Match
	if m.LastUser != "" {
		re, err := regexp.Compile(m.LastUser)
		if err != nil {
			return fmt.Errorf("match.lastUser: %w", err)
		}
		r.lastUser = re
	}
	r.afterToolResult, r.offered, r.toolsOffered = m.AfterToolResult, m.Offered, m.ToolsOffered
	if m.ToolResults != nil && *m.ToolResults < 0 {
		return fmt.Errorf("match.toolResults: %d is negative", *m.ToolResults)
	}
	r.toolResults = m.ToolResults
	switch m.HasPart {
	case "", "image_url", "file":
		r.hasPart = m.HasPart
	default:
		return fmt.Errorf("match.hasPart: want image_url or file, not %q", m.HasPart)
	}
	if spec.Times < 0 {
		return fmt.Errorf("times: %d is negative", spec.Times)
	}
	r.times = spec.Times

	rep := spec.Reply
	var err error
	if rep.Text != "" {
		if r.text, err = r.parseTemplate("reply.text", rep.Text); err != nil {
			return err
		}
	}
	for i, c := range rep.ToolCalls {
		field := fmt.Sprintf("reply.toolCalls[%d]", i)
		if c.Name == "" {
			return fmt.Errorf("%s.name is missing", field)
		}
		switch {
		case c.RawArguments != nil && len(c.Arguments) > 0:
			return fmt.Errorf("%s: give arguments or rawArguments, not both", field)
		case c.RawArguments != nil:
			if _, err := r.parseTemplate(field+".rawArguments", *c.RawArguments); err != nil {
				return err
			}
		case len(c.Arguments) > 0:
			if !bytes.HasPrefix(bytes.TrimSpace(c.Arguments), []byte("{")) {
				return fmt.Errorf("%s.arguments must be a JSON object (use rawArguments for anything else)", field)
			}
			if _, err := renderJSONStrings(c.Arguments, func(s string) (string, error) {
				_, err := r.parseTemplate(field+".arguments", s)
				return s, err
			}); err != nil {
				return err
			}
		}
	}
	r.calls = rep.ToolCalls
	if rep.Usage != nil && (rep.Usage.Input < 0 || rep.Usage.Output < 0 || rep.Usage.Cached < 0) {
		return errors.New("reply.usage: token counts cannot be negative")
	}
	if rep.Usage != nil && rep.Usage.Cached > rep.Usage.Input {
		return errors.New("reply.usage: cached tokens are part of the input and cannot be more")
	}
	r.usage, r.finishReason = rep.Usage, rep.FinishReason
	if rep.ChunkSize < 0 {
		return fmt.Errorf("reply.chunkSize: %d is negative", rep.ChunkSize)
	}
	r.chunkSize = rep.ChunkSize
	if r.chunkSize == 0 {
		r.chunkSize = defaultChunkSize
	}
	if r.firstTokenDelay, err = parseDelay("reply.firstTokenDelay", rep.FirstTokenDelay); err != nil {
		return err
	}
	if r.chunkDelay, err = parseDelay("reply.chunkDelay", rep.ChunkDelay); err != nil {
		return err
	}
	if rep.Fault != nil {
		r.fault = *rep.Fault
		if err := r.checkFault(); err != nil {
			return err
		}
	}
	return nil
}

func (r *rule) checkFault() error {
	f := &r.fault
	switch f.Kind {
	case FaultRateLimit:
		if f.RetryAfter == "" {
			f.RetryAfter = "1"
		}
	case FaultServerError, FaultHang:
	case FaultHTTPError:
		if f.Status < 400 || f.Status > 599 {
			return fmt.Errorf("reply.fault: http_error needs a status from 400 to 599, got %d", f.Status)
		}
	case FaultCut:
		if f.AfterChunks < 0 {
			return fmt.Errorf("reply.fault.afterChunks: %d is negative", f.AfterChunks)
		}
	case FaultMalformedToolArgs:
		if len(r.calls) == 0 {
			return errors.New("reply.fault: malformed_tool_args needs reply.toolCalls to break")
		}
	default:
		return fmt.Errorf("reply.fault: unknown kind %q (known: %s)", f.Kind, strings.Join(faultKinds, ", "))
	}
	return nil
}

func parseDelay(field, s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not a duration like \"20ms\"", field, s)
	}
	if d < 0 {
		return 0, fmt.Errorf("%s: %s is negative", field, d)
	}
	return d, nil
}

// parseTemplate parses a reply template and runs it once on sample data, so
// that a misspelt field (.LastUsr) or a capture the rule's regex does not
// have (index .Groups 3) is a load error, not a surprise mid-test.
func (r *rule) parseTemplate(field, text string) (*template.Template, error) {
	t, err := newTemplate(field, text)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", field, err)
	}
	sample := templateData{}
	if r.lastUser != nil {
		sample.Groups = make([]string, r.lastUser.NumSubexp()+1)
	}
	if err := t.Execute(io.Discard, sample); err != nil {
		return nil, fmt.Errorf("%s: %w", field, err)
	}
	return t, nil
}

// strictUnmarshal decodes one JSON value, refusing unknown fields and
// trailing data.
func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

// describeJSONError adds the line and column to a syntax error, which
// encoding/json reports only as a byte offset.
func describeJSONError(data []byte, err error) error {
	var syn *json.SyntaxError
	if !errors.As(err, &syn) {
		return err
	}
	// Offset counts the bytes read up to and including the offending one.
	before := data[:min(max(int(syn.Offset)-1, 0), len(data))]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Errorf("line %d, column %d: %w", line, col, err)
}
