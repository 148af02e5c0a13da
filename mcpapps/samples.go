package mcpapps

import (
	"encoding/json"
	"fmt"
	"strings"

	"hub/tools"
	"hub/workspace"
)

// SampleTools are an MCP server's read tool and write tool as Hub offers
// them, at the limits a listing keeps, so the prompt catalog (GET
// /api/prompts) holds the largest MCP tool to its budget like Hub's own.
func SampleTools() []*tools.Definition {
	conn := workspace.Connection{ID: "conn_sample0000", Name: "Tracker", Kind: workspace.ConnectionMCP}
	desc := sampleDescription()
	schema := sampleSchema()
	var out []*tools.Definition
	for _, lt := range []listedTool{
		{Name: "search_tickets", Title: "Search tickets", Description: desc, Schema: schema, ReadOnly: true},
		{Name: "create_ticket", Title: "Create a ticket", Description: desc, Schema: schema},
	} {
		d, err := (&Catalog{}).define(conn, lt)
		if err != nil {
			panic("mcpapps: a sample tool does not compile: " + err.Error()) // a bug in this file
		}
		out = append(out, d)
	}
	return out
}

// sampleDescription is English prose of MaxDescription characters, cut
// the way keep cuts a longer one.
func sampleDescription() string {
	const sentence = "Finds tickets in the tracker by their words, status, assignee and labels, newest first, with their links. "
	return shorten(strings.Repeat(sentence, MaxDescription/len(sentence)+1), MaxDescription)
}

// sampleSchema is an object schema of typical fields, as many as fit in
// MaxSchemaBytes.
func sampleSchema() json.RawMessage {
	props := map[string]any{}
	var last json.RawMessage
	for i := 0; ; i++ {
		props[fmt.Sprintf("field_%02d", i)] = map[string]any{
			"type":        "string",
			"description": fmt.Sprintf("Only tickets whose field %d matches this value, e.g. a label or a person's name.", i),
			"maxLength":   200,
		}
		b, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "additionalProperties": false})
		if len(b) > MaxSchemaBytes {
			return last
		}
		last = b
	}
}
