package openapi

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type innerDTO struct {
	Label string `json:"label"`
}

type Embedded struct {
	Shared string `json:"shared"`
}

type sampleDTO struct {
	Embedded
	ID       string            `json:"id"`
	Note     string            `json:"note,omitempty"`
	Due      *string           `json:"due"`
	Err      *innerDTO         `json:"err,omitempty"`
	Inner    *innerDTO         `json:"inner"`
	At       time.Time         `json:"at"`
	Raw      json.RawMessage   `json:"raw"`
	Count    int64             `json:"count"`
	Tags     []string          `json:"tags"`
	Checks   map[string]string `json:"checks"`
	Bytes    []byte            `json:"bytes"`
	Skipped  string            `json:"-"`
	private  string
	Untagged bool
	Kind     string `json:"kind" doc:"what it is"`
}

type maybe[T any] struct{}

func (maybe[T]) OptionalOf() reflect.Type { return reflect.TypeFor[T]() }

type sampleRequest struct {
	Title    string        `json:"title" openapi:"required"`
	Body     string        `json:"body"`
	Revision maybe[int]    `json:"revision" openapi:"nonnull"`
	Due      maybe[string] `json:"due"`
	Role     *string       `json:"role" openapi:"required,nonnull"`
}

func TestTheReflectorFollowsEncodingJSON(t *testing.T) {
	r := NewReflector()
	r.Enum = func(owner reflect.Type, field string) []string {
		if owner == reflect.TypeFor[sampleDTO]() && field == "kind" {
			return []string{"a", "b"}
		}
		return nil
	}
	require.Equal(t, Ref("Sample"), r.Of(sampleDTO{}, ForResponse))
	s := r.Schemas["Sample"]
	require.Equal(t, []string{"Untagged", "at", "bytes", "checks", "count", "due", "id", "inner", "kind", "raw", "shared", "tags"}, s.Required,
		"every field without omitempty is always written")
	require.NotContains(t, s.Properties, "private", sampleDTO{private: "unexported"}.private)
	require.NotContains(t, s.Properties, "-")
	require.NotContains(t, s.Properties, "Skipped")
	require.Equal(t, &Schema{Type: "string"}, s.Properties["shared"], "an embedded struct's fields are the struct's")
	require.Equal(t, &Schema{Type: []string{"string", "null"}}, s.Properties["due"], "a pointer may be null")
	require.Equal(t, Ref("Inner"), s.Properties["err"], "an omitempty pointer is left out, never null")
	require.Equal(t, &Schema{OneOf: []*Schema{Ref("Inner"), {Type: "null"}}}, s.Properties["inner"])
	require.Equal(t, &Schema{Type: "string", Format: "date-time"}, s.Properties["at"])
	require.Equal(t, &Schema{}, s.Properties["raw"], "raw JSON is any value")
	require.Equal(t, &Schema{Type: "integer", Format: "int64"}, s.Properties["count"])
	require.Equal(t, &Schema{Type: "array", Items: &Schema{Type: "string"}}, s.Properties["tags"])
	require.Equal(t, &Schema{Type: "object", AdditionalProperties: &Schema{Type: "string"}}, s.Properties["checks"])
	require.Equal(t, &Schema{Type: "string", ContentEncoding: "base64"}, s.Properties["bytes"])
	require.Equal(t, &Schema{Type: "string", Enum: []any{"a", "b"}, Description: "what it is"}, s.Properties["kind"])
	require.Nil(t, s.AdditionalProperties, "an answer may gain fields")
	require.Equal(t, &Schema{Type: "object", Properties: map[string]*Schema{"label": {Type: "string"}}, Required: []string{"label"}}, r.Schemas["Inner"])
}

func TestARequestRequiresOnlyWhatItsHandlerRequires(t *testing.T) {
	r := NewReflector()
	r.Of(sampleRequest{}, ForRequest)
	s := r.Schemas["SampleRequest"]
	require.Equal(t, []string{"role", "title"}, s.Required)
	require.Equal(t, false, s.AdditionalProperties, "the decoder refuses unknown fields")
	require.Equal(t, &Schema{Type: "integer"}, s.Properties["revision"], "absent or a value, never null")
	require.Equal(t, &Schema{Type: []string{"string", "null"}}, s.Properties["due"], "absent, null or a value")
	require.Equal(t, &Schema{Type: "string"}, s.Properties["role"])
}

type twin struct{ A string }

func TestOneNameOneType(t *testing.T) {
	r := NewReflector()
	r.Name = func(reflect.Type) string { return "Same" }
	r.Of(twin{}, ForResponse)
	require.Panics(t, func() { r.Of(innerDTO{}, ForResponse) }, "two types with one name")
	require.Panics(t, func() { r.Of(twin{}, ForRequest) }, "a request type that is also a response type")
}

func TestNullable(t *testing.T) {
	require.Equal(t, &Schema{}, Nullable(&Schema{}), "any value is already null too")
	require.Equal(t, &Schema{Type: []string{"string", "null"}, Enum: []any{"a", nil}}, Nullable(&Schema{Type: "string", Enum: []any{"a"}}))
	n := Nullable(&Schema{Type: []string{"object", "null"}})
	require.Equal(t, []string{"object", "null"}, n.Type)
}

func TestTheDocumentIsTheSameBytesEveryTime(t *testing.T) {
	d := &Document{OpenAPI: "3.1.0", Info: Info{Title: "T <&>", Version: "1"}, Paths: map[string]PathItem{
		"/b": {"get": {OperationID: "b", Summary: "b", Responses: map[string]*Response{"204": {Description: "x"}}}},
		"/a": {"post": {OperationID: "a", Summary: "a", Responses: map[string]*Response{"200": {Description: "y"}}}}}}
	first, err := d.Marshal()
	require.NoError(t, err)
	for range 20 {
		again, err := d.Marshal()
		require.NoError(t, err)
		require.Equal(t, string(first), string(again))
	}
	require.Contains(t, string(first), `"T <&>"`, "no HTML escapes")
	require.Less(t, bytes.Index(first, []byte(`"/a"`)), bytes.Index(first, []byte(`"/b"`)), "paths in order")
}
