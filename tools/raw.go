package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// DefineRaw makes a tool whose input schema comes from elsewhere (an MCP
// server's tool): the schema is sent to the model as given and validates
// every call, as Define's does; run gets the validated arguments. A schema
// that does not compile, or refers to anything outside itself, is an error
// (the tool is not offered). Compiling never fetches a $ref: the compiler
// has no loader for any URL.
//
// preview, when set, says in words what a held call will change.
func DefineRaw(spec Spec, schema json.RawMessage, run func(ctx context.Context, env Env, input json.RawMessage) (Result, error),
	preview func(ctx context.Context, env Env, input json.RawMessage) (string, error)) (*Definition, error) {
	if spec.Risk == "" {
		spec.Risk = RiskNone
		if spec.IsWrite {
			spec.Risk = RiskLow
		}
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("tool %s: schema: %w", spec.Name, err)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("tool.json", doc); err != nil {
		return nil, fmt.Errorf("tool %s: schema: %w", spec.Name, err)
	}
	v, err := c.Compile("tool.json")
	if err != nil {
		return nil, fmt.Errorf("tool %s: schema: %w", spec.Name, err)
	}
	return &Definition{Spec: spec, Schema: schema, validator: v, run: run, preview: preview}, nil
}

// noLoader refuses every URL a schema refers to.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("a tool's schema may not refer to %s", url)
}

// With returns a registry with the receiver's tools and middleware and
// defs added after them (a space's MCP tools for one activity). The
// receiver is not changed; a name already in it keeps the receiver's tool.
func (r *Registry) With(defs ...*Definition) *Registry {
	if len(defs) == 0 {
		return r
	}
	out := &Registry{byName: maps.Clone(r.byName), order: slices.Clone(r.order), middleware: r.middleware}
	for _, d := range defs {
		if _, dup := out.byName[d.Name]; dup {
			continue
		}
		out.byName[d.Name] = d
		out.order = append(out.order, d.Name)
	}
	return out
}
