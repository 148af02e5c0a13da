package tools

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
)

// DefineRaw makes a tool whose input schema comes from elsewhere (an MCP
// server's tool): sent to the model as given, it validates every call. A
// schema that does not compile or refers outside itself is an error.
// preview, when set, says in words what a held call will change.
func DefineRaw(spec Spec, schema json.RawMessage, run func(ctx context.Context, env Env, input json.RawMessage) (Result, error),
	preview func(ctx context.Context, env Env, input json.RawMessage) (string, error)) (*Definition, error) {
	d, err := compile(spec, schema)
	if err != nil {
		return nil, err
	}
	d.run, d.preview = run, preview
	return d, nil
}

// With returns a copy of the registry with defs added after its tools; a
// name already in it keeps the receiver's tool.
func (r *Registry) With(defs ...*Definition) *Registry {
	if len(defs) == 0 {
		return r
	}
	out := &Registry{byName: maps.Clone(r.byName), order: slices.Clone(r.order)}
	for _, d := range defs {
		if !out.Has(d.Name) {
			out.Add(d)
		}
	}
	return out
}
