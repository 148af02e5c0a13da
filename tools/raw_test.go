package tools

import (
	"context"
	"encoding/json"
	"testing"
)

// A server's schema as MCP servers write them (a $schema of draft-07 or
// 2020-12, local $refs) compiles; a $ref to anything outside it is refused
// and never fetched.
func TestDefineRawSchemas(t *testing.T) {
	run := func(context.Context, Env, json.RawMessage) (Result, error) { return Result{}, nil }
	for _, s := range []string{
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"q":{"type":"string"}},"additionalProperties":false}`,
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`,
		`{"type":"object","$defs":{"x":{"type":"string"}},"properties":{"q":{"$ref":"#/$defs/x"}}}`,
	} {
		if _, err := DefineRaw(Spec{Name: "x"}, json.RawMessage(s), run, nil); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	for _, s := range []string{
		`{"type":"object","properties":{"q":{"$ref":"https://example.com/q.json"}}}`,
		`{"type":"object","properties":{"q":{"type":7}}}`,
		`not json`,
	} {
		if _, err := DefineRaw(Spec{Name: "x"}, json.RawMessage(s), run, nil); err == nil {
			t.Errorf("%s must be refused", s)
		}
	}
	d, err := DefineRaw(Spec{Name: "x"}, json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`), run, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, verr := d.validate(`{}`); verr == nil || verr.Path != "/q" {
		t.Fatalf("validation: %+v", verr)
	}
	reg := NewRegistry().With(d)
	if _, ok := reg.Get("x"); !ok {
		t.Fatal("With adds the tool")
	}
	if _, ok := NewRegistry().Get("x"); ok {
		t.Fatal("With leaves the receiver alone")
	}
}
