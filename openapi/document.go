package openapi

import (
	"bytes"
	"encoding/json"
)

// Document is an OpenAPI 3.1 document, the objects Hub uses. Maps are
// written with sorted keys, so the same routes and types give the same bytes.
type Document struct {
	OpenAPI    string              `json:"openapi"`
	Info       Info                `json:"info"`
	Servers    []Server            `json:"servers,omitempty"`
	Security   []Requirement       `json:"security"`
	Tags       []Tag               `json:"tags,omitempty"`
	Paths      map[string]PathItem `json:"paths"`
	Components Components          `json:"components"`
}

// Info is the document's info object.
type Info struct {
	Title       string   `json:"title"`
	Version     string   `json:"version"`
	Summary     string   `json:"summary,omitempty"`
	Description string   `json:"description,omitempty"`
	License     *License `json:"license,omitempty"`
}

// License is the api's license.
type License struct {
	Name       string `json:"name"`
	Identifier string `json:"identifier,omitempty"`
}

// Server is where the api is served.
type Server struct {
	URL         string `json:"url"`
	Description string `json:"description,omitempty"`
}

// Tag groups operations.
type Tag struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// Requirement names the security schemes one way of authenticating uses
// (all of them together).
type Requirement map[string][]string

// PathItem is the operations of one path, by lower-case method.
type PathItem map[string]*Operation

// Operation is one method of one path.
type Operation struct {
	OperationID string               `json:"operationId"`
	Summary     string               `json:"summary"`
	Tags        []string             `json:"tags,omitempty"`
	Parameters  []Parameter          `json:"parameters,omitempty"`
	RequestBody *RequestBody         `json:"requestBody,omitempty"`
	Responses   map[string]*Response `json:"responses"`
	// Security replaces the document's: nil keeps it, an empty list
	// means no authentication.
	Security *[]Requirement `json:"security,omitempty"`
}

// Parameter is a path, query or header parameter.
type Parameter struct {
	Name        string  `json:"name"`
	In          string  `json:"in"`
	Description string  `json:"description,omitempty"`
	Required    bool    `json:"required,omitempty"`
	Schema      *Schema `json:"schema"`
}

// RequestBody is an operation's body.
type RequestBody struct {
	Required bool                 `json:"required"`
	Content  map[string]MediaType `json:"content"`
}

// Response is one status's answer.
type Response struct {
	Ref         string               `json:"$ref,omitempty"`
	Description string               `json:"description,omitempty"`
	Headers     map[string]Header    `json:"headers,omitempty"`
	Content     map[string]MediaType `json:"content,omitempty"`
}

// Header is a response header.
type Header struct {
	Description string  `json:"description,omitempty"`
	Schema      *Schema `json:"schema"`
}

// MediaType is a body's schema for one content type.
type MediaType struct {
	Schema *Schema `json:"schema"`
}

// SecurityScheme is one way of authenticating.
type SecurityScheme struct {
	Type   string `json:"type"`
	Scheme string `json:"scheme,omitempty"`
	// BearerFormat hints at what a bearer is (JWT).
	BearerFormat string `json:"bearerFormat,omitempty"`
	In           string `json:"in,omitempty"`
	Name         string `json:"name,omitempty"`
	Description  string `json:"description,omitempty"`
}

// Components are the document's shared objects.
type Components struct {
	Schemas         map[string]*Schema        `json:"schemas,omitempty"`
	Responses       map[string]*Response      `json:"responses,omitempty"`
	SecuritySchemes map[string]SecurityScheme `json:"securitySchemes,omitempty"`
}

// Marshal writes the document as indented JSON, without HTML escapes (a
// summary's "<" stays "<"), ending in a newline.
func (d *Document) Marshal() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(d); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
