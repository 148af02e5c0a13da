package tools

import (
	"encoding/json"
	"strings"
)

// SpaceArg is the optional argument with which a call in a turn that may
// act in several spaces names its space (docs/decisions.md, "Turns across
// spaces"). A turn of one space offers no such argument.
const SpaceArg = "space"

// spaceArgSchema describes the argument to the model.
var spaceArgSchema = json.RawMessage(`{"type":"string","minLength":1,"maxLength":200,` +
	`"description":"The space to act in: a name or id from the spaces listed in the context. Leave it out to act in this chat's space."}`)

// WithSpaceArg returns a tool's input schema with the optional space
// argument added; a schema that is not an object schema is returned as is.
func WithSpaceArg(schema json.RawMessage) json.RawMessage {
	var doc map[string]json.RawMessage
	if json.Unmarshal(schema, &doc) != nil {
		return schema
	}
	props := map[string]json.RawMessage{}
	if raw, ok := doc["properties"]; ok && json.Unmarshal(raw, &props) != nil {
		return schema
	}
	props[SpaceArg] = spaceArgSchema
	b, err := json.Marshal(props)
	if err != nil {
		return schema
	}
	doc["properties"] = b
	if _, ok := doc["type"]; !ok {
		doc["type"] = json.RawMessage(`"object"`)
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return schema
	}
	return out
}

// TakeSpaceArg splits a call's arguments into the space they name ("" for
// none) and the rest, for the tool's own schema. Arguments that are not a
// JSON object are returned unchanged for validation to explain.
func TakeSpaceArg(arguments string) (space, rest string, terr *Error) {
	var doc map[string]json.RawMessage
	if json.Unmarshal([]byte(arguments), &doc) != nil {
		return "", arguments, nil
	}
	raw, ok := doc[SpaceArg]
	if !ok {
		return "", arguments, nil
	}
	// null or "" is the argument left out, as for every optional input.
	if json.Unmarshal(raw, &space) != nil {
		return "", "", &Error{Code: CodeInvalidPayload, Message: "space must be a space's name or id", Path: "/" + SpaceArg,
			Issues: []Issue{{Path: "/" + SpaceArg, Message: "must be a string"}}}
	}
	space = strings.TrimSpace(space)
	delete(doc, SpaceArg)
	b, err := json.Marshal(doc)
	if err != nil {
		return "", "", &Error{Code: CodeInvalidPayload, Message: err.Error()}
	}
	return space, string(b), nil
}
