// Package openapi builds an OpenAPI 3.1 document from Go types: a small
// reflector that turns the request and response types a handler really
// decodes and encodes into JSON Schemas (2020-12), and the document's few
// objects. It knows nothing of Hub's routes (api/routes.go describes them).
//
// The reflector follows encoding/json, so the schema says what the encoder
// writes and the decoder takes. The decoder accepts a missing field, so a
// request field is required only when tagged openapi:"required"; an
// Optionaler field (api.Optional: absent, null or a value) may be null
// unless tagged openapi:"nonnull". A field's description is its doc tag.
package openapi

import (
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
)

// Schema is the part of a JSON Schema (OpenAPI 3.1) the reflector writes.
type Schema struct {
	Ref                  string             `json:"$ref,omitempty"`
	Type                 any                `json:"type,omitempty"` // a type name, or a list of them
	Format               string             `json:"format,omitempty"`
	ContentEncoding      string             `json:"contentEncoding,omitempty"`
	ContentMediaType     string             `json:"contentMediaType,omitempty"`
	Description          string             `json:"description,omitempty"`
	Enum                 []any              `json:"enum,omitempty"`
	Const                any                `json:"const,omitempty"`
	Properties           map[string]*Schema `json:"properties,omitempty"`
	Required             []string           `json:"required,omitempty"`
	AdditionalProperties any                `json:"additionalProperties,omitempty"` // false or a schema
	Items                *Schema            `json:"items,omitempty"`
	OneOf                []*Schema          `json:"oneOf,omitempty"`
	Minimum              *int64             `json:"minimum,omitempty"`
	Maximum              *int64             `json:"maximum,omitempty"`
	Examples             []any              `json:"examples,omitempty"`
}

// Nullable is s, or null.
func Nullable(s *Schema) *Schema {
	if s.Ref == "" && s.Type == nil && s.OneOf == nil && s.Enum == nil && s.Const == nil {
		return s // any value, null included
	}
	switch t := s.Type.(type) {
	case string:
		c := *s
		c.Type = []string{t, "null"}
		if len(c.Enum) > 0 {
			c.Enum = append(append([]any{}, c.Enum...), nil)
		}
		return &c
	case []string:
		if slices.Contains(t, "null") {
			return s
		}
		c := *s
		c.Type = append(append([]string{}, t...), "null")
		return &c
	}
	// A reference or a schema without a type: one of it and null.
	return &Schema{OneOf: []*Schema{s, {Type: "null"}}}
}

// Ref is a reference to a component schema.
func Ref(name string) *Schema { return &Schema{Ref: "#/components/schemas/" + name} }

// Optionaler is a request field type that may be absent, null or a value
// (api.Optional): OptionalOf is the value's type.
type Optionaler interface {
	OptionalOf() reflect.Type
}

// Mode tells whether a type is read from a request or written in a
// response: which of its fields are required differs.
type Mode int

// The two modes.
const (
	ForResponse Mode = iota
	ForRequest
)

// Reflector turns Go types into schemas, collecting named structs as
// components.
type Reflector struct {
	// Name names a struct type's component (NameOf by default).
	Name func(reflect.Type) string
	// Enum lists the values a field of a struct takes (nil: any of its
	// type).
	Enum func(owner reflect.Type, field string) []string
	// Field, when it returns a schema, is a field's schema instead of its
	// type's: for a field the handler reads by hand.
	Field func(owner reflect.Type, field string) *Schema
	// Schemas are the components made so far, by name.
	Schemas map[string]*Schema
	// owner is the type each component name was made for: two types with
	// one name are an error, not one silently replacing the other.
	owner map[string]owner
}

type owner struct {
	t    reflect.Type
	mode Mode
}

// NewReflector makes an empty reflector.
func NewReflector() *Reflector {
	return &Reflector{Name: NameOf, Enum: func(reflect.Type, string) []string { return nil },
		Field: func(reflect.Type, string) *Schema { return nil }, Schemas: map[string]*Schema{}, owner: map[string]owner{}}
}

// NameOf is the default component name: the type's name without a DTO
// suffix, starting with a capital ("taskDTO" → "Task").
func NameOf(t reflect.Type) string {
	n := strings.TrimSuffix(t.Name(), "DTO")
	if n == "" {
		return ""
	}
	r := []rune(n)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

var (
	timeType       = reflect.TypeFor[time.Time]()
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	optionalerType = reflect.TypeFor[Optionaler]()
	marshalerType  = reflect.TypeFor[json.Marshaler]()
)

// Of is the schema of v's type.
func (r *Reflector) Of(v any, mode Mode) *Schema { return r.schema(reflect.TypeOf(v), mode) }

func (r *Reflector) schema(t reflect.Type, mode Mode) *Schema {
	switch {
	case t == timeType:
		return &Schema{Type: "string", Format: "date-time"}
	case t == rawMessageType:
		return &Schema{}
	case t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface && t.Implements(marshalerType):
		panic(fmt.Sprintf("openapi: %v marshals itself; describe it by hand", t))
	}
	switch t.Kind() {
	case reflect.Pointer:
		return Nullable(r.schema(t.Elem(), mode))
	case reflect.Interface:
		return &Schema{}
	case reflect.String:
		return &Schema{Type: "string"}
	case reflect.Bool:
		return &Schema{Type: "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32:
		return &Schema{Type: "integer"}
	case reflect.Int64:
		return &Schema{Type: "integer", Format: "int64"}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &Schema{Type: "integer", Minimum: new(int64)}
	case reflect.Float32, reflect.Float64:
		return &Schema{Type: "number"}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return &Schema{Type: "string", ContentEncoding: "base64"}
		}
		return &Schema{Type: "array", Items: r.schema(t.Elem(), mode)}
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			panic(fmt.Sprintf("openapi: map key of %v is not a string", t))
		}
		return &Schema{Type: "object", AdditionalProperties: r.schema(t.Elem(), mode)}
	case reflect.Struct:
		return r.structRef(t, mode)
	}
	panic(fmt.Sprintf("openapi: no schema for %v", t))
}

// structRef makes a named struct a component (once) and answers a
// reference to it; an anonymous struct is inline.
func (r *Reflector) structRef(t reflect.Type, mode Mode) *Schema {
	name := ""
	if t.Name() != "" {
		name = r.Name(t)
	}
	if name == "" {
		return r.object(t, mode)
	}
	if prev, ok := r.owner[name]; ok {
		if prev.t != t {
			panic(fmt.Sprintf("openapi: %v and %v are both named %s", prev.t, t, name))
		}
		if prev.mode != mode {
			// Which fields are required differs: give the request its own type.
			panic(fmt.Sprintf("openapi: %v is both a request and a response type", t))
		}
		return Ref(name)
	}
	r.owner[name] = owner{t, mode}
	r.Schemas[name] = nil // placed before the fields, for a type that refers to itself
	r.Schemas[name] = r.object(t, mode)
	return Ref(name)
}

// object is a struct's schema: its fields as encoding/json sees them.
func (r *Reflector) object(t reflect.Type, mode Mode) *Schema {
	s := &Schema{Type: "object", Properties: map[string]*Schema{}}
	if mode == ForRequest {
		// The api's decoder refuses unknown fields.
		s.AdditionalProperties = false
	}
	r.fields(t, mode, s)
	sort.Strings(s.Required)
	return s
}

func (r *Reflector) fields(t reflect.Type, mode Mode, s *Schema) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				r.fields(ft, mode, s)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		name = cmp.Or(name, f.Name)
		omitempty := strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")
		hints := parseHints(f.Tag.Get("openapi"))

		fs := r.Field(t, name)
		optional := f.Type.Implements(optionalerType)
		switch {
		case fs != nil:
		case optional:
			inner := reflect.Zero(f.Type).Interface().(Optionaler).OptionalOf()
			fs = r.schema(inner, mode)
			if !hints.nonnull {
				fs = Nullable(fs)
			}
		case f.Type.Kind() == reflect.Pointer && (hints.nonnull || mode == ForResponse && omitempty):
			// encoding/json leaves a nil pointer with omitempty out: in a
			// response it is missing, never null.
			fs = r.schema(f.Type.Elem(), mode)
		default:
			fs = r.schema(f.Type, mode)
		}
		enum := r.Enum(t, name)
		if len(enum) > 0 || f.Tag.Get("doc") != "" {
			fs = decorate(fs, enum, f.Tag.Get("doc"))
		}
		s.Properties[name] = fs
		required := !omitempty
		if mode == ForRequest {
			required = hints.required
		}
		if required && !optional {
			s.Required = append(s.Required, name)
		}
	}
}

// decorate adds an enum and a description to a field's schema; a
// reference gets them beside it (allowed next to $ref in 2020-12).
func decorate(s *Schema, enum []string, doc string) *Schema {
	c := *s
	if c.OneOf != nil { // a nullable reference: describe the whole
		c.Description = doc
		return &c
	}
	if len(enum) > 0 {
		target := &c
		if c.Type == "array" && c.Items != nil {
			items := *c.Items
			target = &items
			c.Items = target
		}
		for _, e := range enum {
			target.Enum = append(target.Enum, e)
		}
		if tl, ok := target.Type.([]string); ok && len(tl) == 2 && tl[1] == "null" {
			target.Enum = append(target.Enum, nil)
		}
	}
	if doc != "" {
		c.Description = doc
	}
	return &c
}

type hints struct {
	required, nonnull bool
}

func parseHints(tag string) (h hints) {
	for _, part := range strings.Split(tag, ",") {
		switch part {
		case "required":
			h.required = true
		case "nonnull":
			h.nonnull = true
		case "":
		default:
			panic(fmt.Sprintf("openapi: unknown hint %q in tag %q", part, tag))
		}
	}
	return h
}
