package api

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/jackc/pgx/v5/pgconn"

	"hub/workspace"
)

// MaxBodyBytes bounds a request body; more is 413.
const MaxBodyBytes = 1 << 20

// decode reads a JSON body strictly: one object, no unknown fields, no trailing data.
func decode(c *gin.Context, v any) error {
	body, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, MaxBodyBytes))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return newError(http.StatusRequestEntityTooLarge, codeTooLarge, "", fmt.Sprintf("the request body is larger than %d bytes", MaxBodyBytes))
		}
		return badRequest("", "the request body could not be read")
	}
	// Empty or null would decode as the zero value: a PATCH of nothing counted as a change.
	if trimmed := bytes.TrimSpace(body); len(trimmed) == 0 || string(trimmed) == "null" {
		return badRequest("", "a JSON object is required as the request body")
	}
	// Go's decoder silently makes non-UTF-8 bytes U+FFFD, and a NUL would reach the database.
	if err := workspace.CheckJSONText(body); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if typ, ok := errors.AsType[*json.UnmarshalTypeError](err); ok && typ.Field == "" {
			// An Optional field's UnmarshalJSON reports a wrong type without the field's name.
			typ.Field = mistypedField(body, v)
		}
		return decodeError(err)
	}
	if dec.More() {
		return badRequest("", "the request body must hold exactly one JSON object")
	}
	return nil
}

// mistypedField names the top-level field of body that does not decode into v's ("": none).
func mistypedField(body []byte, v any) string {
	var raw map[string]json.RawMessage
	rt := reflect.TypeOf(v)
	if json.Unmarshal(body, &raw) != nil || rt.Kind() != reflect.Pointer || rt.Elem().Kind() != reflect.Struct {
		return ""
	}
	rt = rt.Elem()
	for i := range rt.NumField() {
		f := rt.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if b, ok := raw[name]; ok && name != "" && name != "-" {
			if err := json.Unmarshal(b, reflect.New(f.Type).Interface()); err != nil {
				return name
			}
		}
	}
	return ""
}

func decodeError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return badRequest("", fmt.Sprintf("the request body is not valid JSON (at byte %d)", syn.Offset))
	case errors.As(err, &typ):
		if typ.Field == "" {
			return badRequest("", "the request body must be a JSON object")
		}
		kind := cmp.Or(jsonKinds[typ.Type.Kind()], "a number")
		return badRequest("/"+strings.ReplaceAll(typ.Field, ".", "/"), fmt.Sprintf("must be %s, not %s", kind, typ.Value))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return badRequest("/"+name, fmt.Sprintf("unknown field %q", name))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return badRequest("", "the request body is cut short")
	}
	return badRequest("", "the request body is not valid: "+err.Error())
}

// jsonKinds name Go kinds as JSON values; any other kind is a number.
var jsonKinds = map[reflect.Kind]string{reflect.String: "a string", reflect.Bool: "true or false",
	reflect.Slice: "an array", reflect.Array: "an array", reflect.Struct: "an object", reflect.Map: "an object"}

// Optional is a JSON field absent, null or a value: a PATCH tells "leave it" from "clear it".
type Optional[T any] struct {
	Set   bool
	Null  bool
	Value T
}

// UnmarshalJSON records that the field was present.
func (o *Optional[T]) UnmarshalJSON(b []byte) error {
	o.Set = true
	if string(b) == "null" {
		o.Null = true
		return nil
	}
	return json.Unmarshal(b, &o.Value)
}

// OptionalOf is the value's type, for the OpenAPI document (openapi.Optionaler).
func (Optional[T]) OptionalOf() reflect.Type { return reflect.TypeFor[T]() }

// patchValue is absent → nil, null → the zero value (clear), a value → it.
func patchValue[T any](o Optional[T]) *T {
	if !o.Set {
		return nil
	}
	return &o.Value
}

// nonNull is patchValue for a field that cannot be cleared: null is a 400 at path, in *err
// unless an earlier field's is there.
func nonNull[T any](err *error, o Optional[T], path string) *T {
	if !o.Null {
		return patchValue(o)
	}
	if *err == nil {
		*err = badRequest(path, "cannot be null")
	}
	return nil
}

// refuseBadBytes refuses a NUL or bytes that are not UTF-8 in path ids (404:
// no record has such an id) and the query (400), the same on both engines:
// Postgres would answer 500 and SQLite store them (docs/decisions.md, "Bad
// bytes at the edge"; JSON bodies are checked in decode).
func refuseBadBytes(c *gin.Context) {
	if c.FullPath() == "" { // unmatched: NoRoute answers
		c.Next()
		return
	}
	for _, p := range c.Params {
		if workspace.BadText(p.Value) {
			respondError(c, newError(http.StatusNotFound, codeNotFound, "", "no "+paramNoun(p.Key)+" has this id"))
			return
		}
	}
	query, err := url.ParseQuery(c.Request.URL.RawQuery)
	if err != nil {
		respondError(c, badRequest("", "the query string cannot be read: write it as name=value pairs joined by &, percent-encoded"))
		return
	}
	for name, values := range query {
		if workspace.BadText(name) {
			respondError(c, badRequest("/"+escapePointer(workspace.CleanText(name)), "a query parameter name must be valid UTF-8 without a NUL character"))
			return
		}
		for _, v := range values {
			if err := workspace.CheckText("/"+escapePointer(name), v); err != nil {
				respondError(c, err)
				return
			}
		}
	}
	c.Next()
}

// paramNoun names what a path parameter identifies, for the 404 message.
func paramNoun(param string) string {
	if noun, ok := strings.CutSuffix(param, "Id"); ok && noun != "" {
		return noun
	}
	return "record"
}

func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// badTextError is Postgres refusing text (22021: a NUL or not UTF-8; 22P05: a character the
// encoding cannot hold): the caller's input that got past the edge, so a 400, not a 500.
func badTextError(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && (pg.Code == "22021" || pg.Code == "22P05")
}
