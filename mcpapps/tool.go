package mcpapps

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"hub/tools"
	"hub/workspace"
)

// maxStructuredBytes bounds the structured content a result keeps; larger
// is left out.
const maxStructuredBytes = 16 << 10

// define turns a listed tool into a Hub tool. readOnlyHint makes it a read
// that runs at once; anything else is an outside write, always held for
// Apply and run outside any transaction.
func (c *Catalog) define(conn workspace.Connection, lt listedTool) (*tools.Definition, error) {
	what, label := cmp.Or(lt.Description, lt.Title), cmp.Or(lt.Title, lt.Name)
	spec := tools.Spec{Name: ToolName(conn.ID, lt.Name), Area: tools.AreaApps}
	if lt.ReadOnly {
		spec.Description = fmt.Sprintf("%s (read-only, from the connected app %s). %s", label, conn.Name, what)
	} else {
		spec.IsWrite, spec.Risk, spec.OutsideTransaction, spec.AlwaysHold = true, tools.RiskMedium, true, true
		spec.Description = fmt.Sprintf("%s (a change in the connected app %s; it waits for the person's Apply and cannot be undone). %s", label, conn.Name, what)
	}
	spec.Description = strings.TrimSpace(spec.Description)
	connID, tool := conn.ID, lt.Name
	run := func(ctx context.Context, env tools.Env, input json.RawMessage) (tools.Result, error) {
		return c.call(ctx, env, connID, tool, label, !lt.ReadOnly, input)
	}
	preview := func(ctx context.Context, env tools.Env, input json.RawMessage) (string, error) {
		t, err := c.usable(ctx, env.SpaceID, connID)
		if err != nil {
			return "", err
		}
		p := tools.ReadablePreview(tool, input, env.Known)
		if _, fields, ok := strings.Cut(p, ": "); ok {
			return fmt.Sprintf("%s in %s: %s", label, t.Name, fields), nil
		}
		return fmt.Sprintf("%s in %s", label, t.Name), nil
	}
	return tools.DefineRaw(spec, lt.Schema, run, preview)
}

// usable finds the connection a call goes to, again when it runs: it may
// have been removed or switched off since the turn offered its tools.
func (c *Catalog) usable(ctx context.Context, spaceID, connID string) (workspace.AppTarget, error) {
	t, err := c.ws.AppTarget(ctx, spaceID, connID)
	if err != nil {
		return t, err
	}
	if t.Kind != workspace.ConnectionMCP || !t.Enabled {
		return t, tools.Errorf(tools.CodeRefused, "%s is switched off in this space's connected apps", t.Name)
	}
	return t, nil
}

// call runs one tool call on the server. For a write, a session without an
// answer means it may have acted: the outcome is unknown.
func (c *Catalog) call(ctx context.Context, env tools.Env, connID, tool, label string, write bool, input json.RawMessage) (tools.Result, error) {
	t, err := c.usable(ctx, env.SpaceID, connID)
	if err != nil {
		return tools.Result{}, err
	}
	secret, err := c.secret(t)
	if err != nil {
		return tools.Result{}, tools.Errorf(tools.CodeFailed, "%s: %s; nothing was sent", t.Name, err)
	}
	limit := c.o.Timeout
	if write {
		limit = c.o.CallTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cs, err := c.session(cctx, t.URL, secret, nil)
	if err != nil {
		why := reason(cctx, err, limit)
		c.recordFailure(ctx, t, why)
		return tools.Result{}, tools.Errorf(tools.CodeFailed, "Hub could not reach %s (%s), so nothing was sent", t.Name, why)
	}
	defer closeSession(cs)
	// Hub's stable call id goes along: MCP has no idempotency key.
	res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: tool, Arguments: input, Meta: mcp.Meta{"hub/callId": env.CallID}})
	if err != nil {
		var wire *jsonrpc.Error
		if errors.As(err, &wire) {
			return tools.Result{}, tools.Errorf(tools.CodeFailed, "%s refused the call: %s", t.Name, tools.HeadAndTail(wire.Message, 500))
		}
		if write {
			return tools.Result{}, tools.OutcomeUnknownf("%s did not answer (%s) after the call was sent, so it may or may not have been done", t.Name, reason(cctx, err, limit))
		}
		return tools.Result{}, tools.Errorf(tools.CodeFailed, "%s did not answer (%s)", t.Name, reason(cctx, err, limit))
	}
	text := contentText(res.Content)
	if res.IsError {
		return tools.Result{}, tools.Errorf(tools.CodeFailed, "%s answered with an error: %s", t.Name, cmp.Or(text, "no reason given"))
	}
	data := resultData{App: t.Name, Tool: tool, Text: text}
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil && len(b) <= maxStructuredBytes {
			data.Structured = b
		} else {
			data.Note = "the structured content was too large to show"
		}
	}
	summary := fmt.Sprintf("%s answered from %s.", label, t.Name)
	if write {
		summary = fmt.Sprintf("%s done in %s.", label, t.Name)
	}
	return tools.Result{Summary: summary, Data: data, Refs: []workspace.Ref{workspace.ConnectionRef(t.Connection)}}, nil
}

// resultData is what the model reads of a tool's answer.
type resultData struct {
	App        string          `json:"app"`
	Tool       string          `json:"tool"`
	Text       string          `json:"text,omitempty"`
	Structured json.RawMessage `json:"structured,omitempty"`
	Note       string          `json:"note,omitempty"`
}

// contentText joins an answer's text content, cut to the tool-result
// bound; other content (images, resources) is named, not carried.
func contentText(cs []mcp.Content) string {
	var parts []string
	for _, c := range cs {
		switch x := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, x.Text)
		case *mcp.ImageContent:
			parts = append(parts, "[an image]")
		case *mcp.AudioContent:
			parts = append(parts, "[audio]")
		default:
			parts = append(parts, "[other content]")
		}
	}
	return tools.HeadAndTail(workspace.CleanText(strings.Join(parts, "\n")), tools.MaxResultChars)
}

// recordFailure keeps why Hub could not reach a server, until a listing
// works again. Best effort.
func (c *Catalog) recordFailure(ctx context.Context, t workspace.AppTarget, why string) {
	if why == t.Failure {
		return
	}
	if err := c.ws.SaveAppTools(ctx, t.SpaceID, t.ID, "", c.o.Now(), why); err != nil {
		slog.WarnContext(ctx, "recording an MCP server's failure failed", "connection", t.ID, "error", err)
	}
}
