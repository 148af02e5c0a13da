package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	invopop "github.com/invopop/jsonschema"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"hub/workspace"
)

// Risk says how much a write can disturb.
type Risk string

// Risks, lowest first.
const (
	RiskNone   Risk = "none" // reads
	RiskLow    Risk = "low"
	RiskMedium Risk = "medium"
	RiskHigh   Risk = "high"
)

// Env is what a tool runs with.
type Env struct {
	// Workspace is bound to the call's transaction for writes.
	Workspace *workspace.Service
	// Files reads the space's attached files (nil: none can be read).
	Files    FileReader
	Actor    workspace.Actor
	SpaceID  string
	Role     workspace.Role
	Settings workspace.Settings // the acting person's assistant settings
	// CallID is Hub's stable id of this call, outside writes' idempotency key.
	CallID string
	// Applying is set when the person's Apply runs a held call: the write
	// policy lets it through (every other check runs again).
	Applying bool
	// Known maps the ids of records the turn knows to their titles.
	Known map[string]string
	// EarlierCalls counts each tool's calls made earlier in the turn,
	// whatever became of them (per-turn limits count attempts); empty
	// outside a turn.
	EarlierCalls map[string]int
	// PageContext is the page context the turn's message carries (JSON, as
	// the client sent it, bounded), "" for none: hub_read_surface reads it.
	PageContext string
	// Registry is the one Dispatch runs from, so the help tools find what
	// this call may reach, a space's MCP tools among them.
	Registry *Registry
}

// Result is what a tool returns: a summary people read (titles and counts,
// never ids), bounded data with the ids for the model, and the records it
// names.
type Result struct {
	Summary string
	Data    any
	Refs    []workspace.Ref
	// Held: the write waits for Apply; Summary is its preview and Input the
	// prepared input Apply will run.
	Held  bool
	Input json.RawMessage
}

// Spec describes a tool; Define adds its input type and run function.
type Spec struct {
	Name        string
	Area        string // "tasks", "projects", "people", "apps", …
	Description string
	IsWrite     bool
	Risk        Risk
	Undoable    bool
	// OutsideTransaction marks a network write, never run in a transaction.
	OutsideTransaction bool
	// AlwaysHold: the write waits for Apply whatever the write policy.
	AlwaysHold bool
	// OwnersOnly: only a space's owners are offered it or may call it.
	OwnersOnly bool
	// NoSpace: the tool acts in no space and takes no space argument.
	NoSpace bool
	// AreaOfSteps: the allowed write areas are checked on each step's tool
	// (hub_run_workflow), not on this tool's area.
	AreaOfSteps bool
	// Personal marks a write to the acting person's own settings, which no
	// write area names. Its Apply still runs in the space's write path, so
	// a viewer changes settings in Hub instead.
	Personal bool
}

// AreaApps is the area of connected-app tools: their writes always wait for
// Apply and run outside any Hub transaction.
const AreaApps = "apps"

// Definition is a registered tool.
type Definition struct {
	Spec
	// Schema is the input JSON Schema sent to the model.
	Schema json.RawMessage

	validator *jsonschema.Schema
	run       func(ctx context.Context, env Env, input json.RawMessage) (Result, error)
	prepare   func(ctx context.Context, env Env, input json.RawMessage) (json.RawMessage, error)
	preview   func(ctx context.Context, env Env, input json.RawMessage) (string, error)
}

// Option adds an optional step to a tool whose input is In.
type Option[In any] func(*Definition)

// Prepare runs after validation, before any preview or write, and fixes the
// exact records a call means (a filter becomes ids), so a held call's Apply
// changes only what was previewed.
func Prepare[In any](fn func(ctx context.Context, env Env, in In) (In, error)) Option[In] {
	return func(d *Definition) {
		d.prepare = decoded(func(ctx context.Context, env Env, in In) (json.RawMessage, error) {
			in, err := fn(ctx, env, in)
			if err != nil {
				return nil, err
			}
			return json.Marshal(in)
		})
	}
}

// Preview says in titles what a held call will change. A tool without one
// gets its summary from the generic preview (its action and fields).
func Preview[In any](fn func(ctx context.Context, env Env, in In) (string, error)) Option[In] {
	return func(d *Definition) { d.preview = decoded(fn) }
}

// Define makes a tool whose input is the Go type In. The schema comes from
// In's fields (json names; `omitempty` fields are optional, every other one
// required; `jsonschema:"…"` tags add descriptions, enums and bounds), and
// the same schema validates every call before run sees it.
func Define[In any](spec Spec, run func(ctx context.Context, env Env, in In) (Result, error), opts ...Option[In]) *Definition {
	s := (&invopop.Reflector{DoNotReference: true, ExpandedStruct: true}).ReflectFromType(reflect.TypeFor[In]())
	s.Version, s.ID = "", ""
	schema, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("tool %s: %v", spec.Name, err)) // a programming error, caught by the registry test
	}
	d, err := compile(spec, schema)
	if err != nil {
		panic(err.Error())
	}
	d.run = decoded(run)
	for _, o := range opts {
		o(d)
	}
	return d
}

// decoded makes a step of a typed tool take its validated JSON input.
func decoded[In, Out any](step func(ctx context.Context, env Env, in In) (Out, error)) func(context.Context, Env, json.RawMessage) (Out, error) {
	return func(ctx context.Context, env Env, input json.RawMessage) (Out, error) {
		var in In
		dec := json.NewDecoder(bytes.NewReader(input))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&in); err != nil {
			var zero Out
			return zero, decodeError(err)
		}
		return step(ctx, env, in)
	}
}

// compile makes the definition of spec with its input schema, which must
// compile on its own: the compiler has no loader for any URL, so a schema
// never fetches a $ref. A write's risk defaults to low, a read's to none.
func compile(spec Spec, schema json.RawMessage) (*Definition, error) {
	if spec.Risk == "" {
		spec.Risk = RiskNone
		if spec.IsWrite {
			spec.Risk = RiskLow
		}
	}
	v, err := compileSchema(schema)
	if err != nil {
		return nil, fmt.Errorf("tool %s: schema: %w", spec.Name, err)
	}
	return &Definition{Spec: spec, Schema: schema, validator: v}, nil
}

func compileSchema(schema json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("tool.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("tool.json")
}

// noLoader refuses every URL a schema refers to.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("a tool's schema may not refer to %s", url)
}

// validate parses and checks a call's arguments against the schema. Empty
// arguments mean an empty object (models send "" for tools without input).
func (d *Definition) validate(arguments string) (json.RawMessage, *Error) {
	if strings.TrimSpace(arguments) == "" {
		arguments = "{}"
	}
	// A NUL or bytes that are not UTF-8 in a string could not be stored (and
	// the JSON decoder would hide the latter): the model gets the path.
	if err := workspace.CheckJSONText([]byte(arguments)); err != nil {
		return nil, AsError(err)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(arguments))
	if err != nil {
		return nil, &Error{Code: CodeInvalidPayload, Message: "the arguments are not valid JSON: " + err.Error(), Path: ""}
	}
	if err := d.validator.Validate(doc); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return nil, &Error{Code: CodeInvalidPayload, Message: err.Error()}
		}
		issues := leafIssues(ve, nil)
		sort.SliceStable(issues, func(i, j int) bool { return issues[i].Path < issues[j].Path })
		e := &Error{Code: CodeInvalidPayload, Issues: issues}
		if len(issues) > 0 {
			e.Path, e.Message = issues[0].Path, issues[0].Message
		}
		return nil, e
	}
	return json.RawMessage(arguments), nil
}

// leafIssues flattens a validation error tree into one issue per problem,
// naming missing and extra properties by their own path.
func leafIssues(ve *jsonschema.ValidationError, out []Issue) []Issue {
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			out = leafIssues(c, out)
		}
		return out
	}
	at := pointer(ve.InstanceLocation)
	switch k := ve.ErrorKind.(type) {
	case *kind.Required:
		for _, m := range k.Missing {
			out = append(out, Issue{Path: at + "/" + escapePointer(m), Message: "is required"})
		}
	case *kind.AdditionalProperties:
		for _, p := range k.Properties {
			out = append(out, Issue{Path: at + "/" + escapePointer(p), Message: "is not allowed"})
		}
	case *kind.Type:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = withArticle(w)
		}
		out = append(out, Issue{Path: at, Message: "must be " + strings.Join(want, " or ") + ", not " + withArticle(k.Got)})
	default:
		out = append(out, Issue{Path: at, Message: ve.ErrorKind.LocalizedString(english)})
	}
	return out
}

var english = message.NewPrinter(language.English)

// withArticle names a JSON type as a sentence does: "a string", "an object".
func withArticle(jsonType string) string {
	if jsonType == "null" {
		return "null"
	}
	return workspace.WithArticle(jsonType)
}

// decodeError explains input that passed the schema but does not fit the Go
// type (1.0 or 1e30 for an integer): the field's path and what it must be,
// never the decoder's internals.
func decodeError(err error) *Error {
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) && ute.Field != "" {
		path := "/" + strings.ReplaceAll(ute.Field, ".", "/")
		msg := "must be " + withArticle(ute.Type.Kind().String())
		if k := ute.Type.Kind(); reflect.Int <= k && k <= reflect.Uint64 { // the integer kinds
			msg = "must be a whole number like 10, written without a decimal point or exponent"
		}
		return &Error{Code: CodeInvalidPayload, Message: msg, Path: path, Issues: []Issue{{Path: path, Message: msg}}}
	}
	return &Error{Code: CodeInvalidPayload, Message: "the arguments do not fit this tool's input"}
}

func pointer(loc []string) string {
	var b strings.Builder
	for _, p := range loc {
		b.WriteString("/")
		b.WriteString(escapePointer(p))
	}
	return b.String()
}

func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
