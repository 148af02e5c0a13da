package api

import (
	"cmp"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"

	"hub/chat"
	"hub/openapi"
	"hub/retrieval"
	"hub/stream"
	"hub/workspace"
)

// OpenAPIVersion is the version of the api the document names; it changes
// when a route or a type does in a way a client must know (docs/api.md).
const OpenAPIVersion = "1"

// openapi serves the OpenAPI 3.1 document.
func (s *Server) openapi(c *gin.Context) {
	doc, err := OpenAPIDocument()
	if err != nil {
		respondError(c, err)
		return
	}
	c.Data(http.StatusOK, "application/json", doc)
}

// OpenAPIDocument is the api's OpenAPI 3.1 document, as /api/openapi.json
// serves it and `hub openapi` prints it: made once, from the route table
// and the request and response types.
func OpenAPIDocument() ([]byte, error) {
	document.once.Do(func() {
		d, err := buildDocument((&Server{}).routes())
		if err == nil {
			document.bytes, err = d.Marshal()
		}
		document.err = err
	})
	return document.bytes, document.err
}

var document struct {
	once  sync.Once
	bytes []byte
	err   error
}

// errorResponses are the error statuses a route can answer, by name in
// components.responses.
var errorResponses = map[int]struct{ name, doc string }{
	http.StatusBadRequest:            {"BadRequest", "invalid_payload: bad input; path points at the field (a JSON pointer into the body, or /name of a query parameter)."},
	http.StatusUnauthorized:          {"Unauthenticated", "unauthenticated: no valid token."},
	http.StatusForbidden:             {"Forbidden", "forbidden: the person can open the space but may not do this there; or a request signed in by the session cookie that changes something came without the X-Hub-CSRF header."},
	http.StatusNotFound:              {"NotFound", "not_found: no such record, or one in a space the person cannot open."},
	http.StatusConflict:              {"Conflict", "conflict: a stale revision or version, a running turn, or a state that does not allow this."},
	http.StatusRequestEntityTooLarge: {"TooLarge", "too_large: the body (or the files of a message) is over its limit."},
	http.StatusUnsupportedMediaType:  {"UnsupportedType", "unsupported_type: Hub does not take files of this type."},
	http.StatusTooManyRequests:       {"TooManyFailures", "too_many_failures: too many failed sign-ins from this client address or with this token in a minute (docs/api.md, \"Failed sign-ins\"); Retry-After says in how many seconds to try again. A good credential is never refused so."},
	http.StatusInternalServerError:   {"Internal", "internal: Hub failed; the cause is logged, not shown."},
	http.StatusServiceUnavailable:    {"Unavailable", "unavailable: a service Hub needs (Temporal, a model, a file store, the identity provider that issued the bearer token) cannot be reached or is not set up."},
}

// commonErrors are the statuses every route of its kind can answer: 400
// for bad bytes in the query; 401, 429 (the failed sign-in limit), 500 and
// 503 (the identity provider unreachable) when it authenticates; 404 with
// path ids; 413 with a body.
func commonErrors(rt route) []int {
	out := []int{http.StatusBadRequest}
	if rt.auth != authNone {
		out = append(out, http.StatusUnauthorized, http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusServiceUnavailable)
	}
	if strings.Contains(rt.path, "/:") {
		out = append(out, http.StatusNotFound)
	}
	if rt.body != nil || rt.form != nil {
		out = append(out, http.StatusRequestEntityTooLarge)
	}
	if rt.auth == authBearer && !safeMethod(rt.method) {
		out = append(out, http.StatusForbidden) // signed in by the session cookie without the CSRF header
	}
	return out
}

// tagDocs are the document's tags (tagOf).
var tagDocs = map[string]string{
	"health":      "Process health and metrics, without a token.",
	"meta":        "This document.",
	"session":     "A browser's sign-in: a token exchanged for an HttpOnly session cookie, and sign-out.",
	"spaces":      "The spaces the person belongs to.",
	"tasks":       "A space's tasks.",
	"projects":    "A space's projects.",
	"people":      "The people of a space and their memberships.",
	"connections": "A space's connected apps: webhooks and MCP servers.",
	"files":       "Files attached to a space.",
	"settings":    "A space's settings, the person's settings, profile and skills.",
	"models":      "The models a person may choose.",
	"usage":       "Model usage and cost.",
	"assistant":   "Conversations, turns and their streams.",
	"apply":       "Apply, Undo, Redo and the Needs me list.",
	"agent":       "The top bar: the person's running work, its stream and controls.",
	"agents":      "The person's agents: a persona, a model and a tool set that work for them in some of their spaces.",
	"prompts":     "The prompts Hub sends the model.",
	"completions": "Completions: one model call for a fixed task that needs no tools (a file's summary, a model's check, a skill's trial).",
	"audit":       "A space's audit log: who changed its connected apps, settings and people.",
}

func tagOf(path string) string {
	seg := strings.Split(strings.TrimPrefix(path, "/"), "/")
	switch {
	case seg[0] != "api":
		return "health"
	case seg[1] == "openapi.json":
		return "meta"
	case seg[1] == "spaces" && len(seg) > 3:
		if seg[3] == "members" {
			return "people"
		}
		return seg[3]
	case seg[1] == "me":
		return "settings"
	case seg[1] == "assistant" && slices.Contains([]string{"apply", "undo", "redo", "needs-me"}, seg[2]):
		return "apply"
	}
	return seg[1]
}

// pathParamDocs describe the path parameters by name; a bare :id by the
// collection before it (idDoc).
var pathParamDocs = map[string]string{
	"spaceId":      "A space the person belongs to.",
	"turnId":       "A turn of the person's.",
	"tokenId":      "One of the person's tokens (GET /api/me/tokens): anyone else's, as an unknown one, is 404.",
	"agentId":      "One of the person's agents (GET /api/agents): anyone else's, as an unknown one, is 404.",
	"scheduleId":   "One of the agent's schedules (GET /api/agents/{agentId}/schedules).",
	"completionId": "One of the person's completions (POST /api/completions): anyone else's, as an unknown one, is 404.",
	"personId":     "A person of the space.",
	"key":          "A passage of the file: the part after # in its link (hub://file/<id>#<key>).",
}

var idDoc = map[string]string{
	"tasks": "The task's id.", "projects": "The project's id.", "people": "The person's id.",
	"connections": "The connection's id.", "files": "The file's id.", "skills": "The skill's id.",
	"conversations": "The conversation's id.",
}

// componentNames are the component names that are not the type's own
// (openapi.NameOf).
var componentNames = map[reflect.Type]string{
	reflect.TypeFor[errorBody]():   "Error",
	reflect.TypeFor[errorDetail](): "ErrorDetail",
	reflect.TypeFor[errorDTO]():    "Failure",
}

func componentName(t reflect.Type) string { return cmp.Or(componentNames[t], openapi.NameOf(t)) }

// fieldEnums are the values fields take, from the constants that define
// them: a client gets them as unions.
var fieldEnums = func() map[reflect.Type]map[string][]string {
	statuses := []string{string(chat.StatusQueued), string(chat.StatusWorking), string(chat.StatusWaiting), string(chat.StatusPaused),
		string(chat.StatusStopping), string(chat.StatusStopped), string(chat.StatusDone), string(chat.StatusError)}
	running := statuses[:5]
	completionStatuses := []string{string(chat.StatusQueued), string(chat.StatusWorking), string(chat.StatusPaused),
		string(chat.StatusStopping), string(chat.StatusStopped), string(chat.StatusDone), string(chat.StatusError)}
	ended := []string{string(chat.StatusDone), string(chat.StatusStopped), string(chat.StatusError)}
	roles := []string{string(workspace.RoleOwner), string(workspace.RoleEditor), string(workspace.RoleViewer), string(workspace.RoleGuest)}
	policies := []string{workspace.PolicyImmediate, workspace.PolicyPreview, workspace.PolicyNeedsMe}
	undoStates := []string{workspace.UndoDone, workspace.UndoUndone, workspace.UndoRedone}
	receipts := []string{chat.ReceiptSucceeded, chat.ReceiptFailed, chat.ReceiptUnattempted, chat.ReceiptUnknown, chat.ReceiptSending}
	return map[reflect.Type]map[string][]string{
		reflect.TypeFor[turnDTO]():                 {"status": statuses},
		reflect.TypeFor[activityDTO]():             {"status": statuses, "kind": {chat.WorkTurn, chat.WorkAgent, chat.WorkApply, chat.WorkIndexing, chat.WorkCompletion}},
		reflect.TypeFor[completionDTO]():           {"status": completionStatuses, "kind": chat.CompletionKinds},
		reflect.TypeFor[createCompletionRequest](): {"kind": chat.CompletionKinds},
		reflect.TypeFor[controlDTO]():              {"status": running},
		reflect.TypeFor[controlAllDTO]():           {"status": {string(chat.StatusWorking), string(chat.StatusPaused), string(chat.StatusStopping)}},
		reflect.TypeFor[doneFrameDTO]():            {"status": ended},
		reflect.TypeFor[statusFrameDTO]():          {"status": {stream.StatusWorking, stream.StatusRetrying, stream.StatusPaused, stream.StatusStopping, stream.StatusReset}},
		reflect.TypeFor[toolFrameDTO]():            {"phase": {stream.PhaseStarted, stream.PhaseDone, stream.PhaseFailed, stream.PhaseHeld}},
		reflect.TypeFor[messageDTO]():              {"role": {chat.RoleUser, chat.RoleAssistant}},
		reflect.TypeFor[receiptDTO]():              {"status": receipts, "undoState": undoStates},
		reflect.TypeFor[toolCallDTO]():             {"undoState": undoStates},
		reflect.TypeFor[stepDTO]():                 {"undoState": undoStates},
		reflect.TypeFor[proposalDTO]():             {"heldFor": {chat.HeldForApply, chat.HeldForNeedsMe}},
		reflect.TypeFor[spaceDTO]():                {"role": roles},
		reflect.TypeFor[personDTO]():               {"role": roles},
		reflect.TypeFor[addPersonRequest]():        {"role": roles},
		reflect.TypeFor[updatePersonRequest]():     {"role": roles},
		reflect.TypeFor[memberRoleRequest]():       {"role": roles},
		reflect.TypeFor[settingsDTO]():             {"writePolicy": policies},
		reflect.TypeFor[updateSettingsRequest]():   {"writePolicy": policies},
		reflect.TypeFor[healthDTO]():               {"status": {healthOK}},
		reflect.TypeFor[fileDTO]():                 {"indexStatus": {retrieval.StatusQueued, retrieval.StatusIndexing, retrieval.StatusIndexed, retrieval.StatusFailed}},
		reflect.TypeFor[readinessDTO]():            {"status": {healthOK, healthUnavailable}},
	}
}()

func fieldEnum(t reflect.Type, field string) []string { return fieldEnums[t][field] }

// fieldSchemas are the fields a handler reads by hand, with what it takes.
var fieldSchemas = map[reflect.Type]map[string]*openapi.Schema{
	reflect.TypeFor[updateSpaceSettingsRequest](): {"monthlyBudget": {Type: []string{"integer", "null"}, Format: "int64",
		Minimum: new(int64(0)), Maximum: new(MaxMonthlyBudget), Description: "Micro-dollars a month (5000000 is $5.00); null: no budget."}},
	reflect.TypeFor[startTurnRequest](): {"context": pageContextSchema()},
}

// pageContextSchema is a turn's page context (docs/api.md): every field Hub
// reads, typed, at the top level and in surface; any other field is kept
// as sent, so the object is open.
func pageContextSchema() *openapi.Schema {
	fields := func() map[string]*openapi.Schema {
		ids := func(doc string) *openapi.Schema {
			return &openapi.Schema{Type: "array", Items: &openapi.Schema{Type: "string"}, Description: doc + " Ids resolved in the conversation's space; the first 100 are kept."}
		}
		return map[string]*openapi.Schema{
			"page":         {Type: "string", Description: "The page or screen the person is on (\"tasks\", \"board\")."},
			"path":         {Type: "string", Description: "The page's path in the frontend (\"/tasks/task_1\")."},
			"view":         {Type: "string", Description: "How the page shows its records (\"list\", \"board\")."},
			"selectedText": {Type: "string", Description: "Text the person selected; its first 2,000 characters are kept."},
			"selectedIds":  ids("The records the person selected."),
			"visibleIds":   ids("The records on screen."),
			"selected":     ids("The records the person selected (as selectedIds)."),
			"visible":      ids("The records on screen (as visibleIds)."),
			"open": {Description: "The record open on screen: its id, or {kind?, id}.", OneOf: []*openapi.Schema{
				{Type: "string"},
				{Type: "object", Required: []string{"id"}, AdditionalProperties: &openapi.Schema{}, Properties: map[string]*openapi.Schema{
					"kind": {Type: "string", Description: "task, project or member (Hub finds the kind itself when absent)."},
					"id":   {Type: "string"}}}}},
			"openId": {Type: "string", Description: "The record open on screen (as open)."},
			"kind":   {Type: "string", Description: "What the surface is (\"board\", \"tasks\"): a page hub_read_surface reads when the path does not say."},
			"app":    {Type: "string", Description: "The app the page belongs to when it is not Hub's: hub_read_surface never reads another app's page."},
			"filters": {Type: "object", AdditionalProperties: &openapi.Schema{Type: "string"},
				Description: "The filters the view applies, by name (status, projectId or project, assigneeId or assignee (\"me\": the person), q or query); hub_read_surface applies them and says which it could not."},
		}
	}
	top := fields()
	top["surface"] = &openapi.Schema{Type: "object", Properties: fields(), AdditionalProperties: &openapi.Schema{},
		Description: "The part of the page the person works in, with the same fields as the top level."}
	return &openapi.Schema{Type: []string{"object", "null"}, Properties: top, AdditionalProperties: &openapi.Schema{},
		Description: "What the person is looking at (page, selection, ids), or null; over-long selections and lists are cut, and the whole is at most 64 KiB. Other fields are kept as sent."}
}

func fieldSchema(t reflect.Type, field string) *openapi.Schema { return fieldSchemas[t][field] }

// buildDocument makes the document of the routes.
func buildDocument(routes []route) (doc *openapi.Document, err error) {
	defer func() {
		// The reflector panics on a type it cannot describe.
		if p := recover(); p != nil {
			err = fmt.Errorf("openapi: %v", p)
		}
	}()
	r := openapi.NewReflector()
	r.Name, r.Enum, r.Field = componentName, fieldEnum, fieldSchema
	doc = &openapi.Document{
		OpenAPI: "3.1.0",
		Info: openapi.Info{Title: "Hub", Version: OpenAPIVersion,
			Summary: "Hub's HTTP api: spaces and their records, the assistant's conversations, turns and streams, Apply and Undo.",
			Description: "Generated from the api's own route table and request and response types (api/routes.go); " +
				"docs/api.md is the contract in words. Every error is the Error body. " +
				"The two stream routes are Server-Sent Events: their events are described as TurnEvent and ActivityEvent.",
			License: &openapi.License{Name: "Proprietary", Identifier: "LicenseRef-Proprietary"}},
		Servers:  []openapi.Server{{URL: "/", Description: "The Hub server that serves this document."}},
		Security: []openapi.Requirement{{"bearer": {}}, {"oidc": {}}, {"cookie": {}}},
		Paths:    map[string]openapi.PathItem{},
		Components: openapi.Components{
			Responses: map[string]*openapi.Response{},
			SecuritySchemes: map[string]openapi.SecurityScheme{
				"bearer": {Type: "http", Scheme: "bearer", Description: "A person's token (hub token create; hub dev writes one to .hub/dev-token)."},
				"oidc": {Type: "http", Scheme: "bearer", BearerFormat: "JWT",
					Description: "An access or ID token (a JWT) of the OpenID Connect provider the deployment names (HUB_OIDC_ISSUER), checked against its discovery document and keys: issuer, audience, expiry, signature. Its subject's first sign-in creates the person, in no space. Only when the deployment configures a provider; a provider that cannot be reached answers 503."},
				"cookie": {Type: "apiKey", In: "cookie", Name: sessionCookie,
					Description: "A browser's session (POST /api/session): taken wherever the bearer token is, streams included. A request it signs in that changes something (not GET, HEAD, OPTIONS) must carry the header X-Hub-CSRF: 1, or it is refused with 403."},
				"streamToken": {Type: "apiKey", In: "query", Name: "streamToken",
					Description: "A stream's own short-lived token, for a browser's EventSource: a turn's from its streamUrl, the activity stream's from POST /api/agent/stream-token. A full token is never accepted here."},
			},
		},
	}
	errRef := r.Of(errorBody{}, openapi.ForResponse)
	ids := map[string]bool{}
	tags := map[string]bool{}
	for _, rt := range routes {
		if ids[rt.id] || !camelCase.MatchString(rt.id) {
			return nil, fmt.Errorf("route %s %s: operationId %q is empty, repeated or not camelCase", rt.method, rt.path, rt.id)
		}
		ids[rt.id] = true
		if rt.reply != nil && len(rt.answers) != 1 {
			return nil, fmt.Errorf("route %s %s: a reply has one success answer, not %d", rt.method, rt.path, len(rt.answers))
		}
		op, err := operation(r, rt, errRef, doc.Components.Responses)
		if err != nil {
			return nil, fmt.Errorf("route %s %s: %w", rt.method, rt.path, err)
		}
		tags[op.Tags[0]] = true
		p := openapiPath(rt.path)
		if doc.Paths[p] == nil {
			doc.Paths[p] = openapi.PathItem{}
		}
		m := strings.ToLower(rt.method)
		if doc.Paths[p][m] != nil {
			return nil, fmt.Errorf("route %s %s is in the table twice", rt.method, rt.path)
		}
		doc.Paths[p][m] = op
	}
	for _, name := range slices.Sorted(maps.Keys(tags)) {
		if tagDocs[name] == "" {
			return nil, fmt.Errorf("tag %q has no description in tagDocs", name)
		}
		doc.Tags = append(doc.Tags, openapi.Tag{Name: name, Description: tagDocs[name]})
	}
	addEvents(r)
	doc.Components.Schemas = r.Schemas
	return doc, nil
}

func operation(r *openapi.Reflector, rt route, errRef *openapi.Schema, shared map[string]*openapi.Response) (*openapi.Operation, error) {
	op := &openapi.Operation{OperationID: rt.id, Summary: rt.summary, Tags: []string{tagOf(rt.path)},
		Responses: map[string]*openapi.Response{}}
	switch rt.auth {
	case authNone:
		op.Security = &[]openapi.Requirement{}
	case authStream:
		op.Security = &[]openapi.Requirement{{"bearer": {}}, {"oidc": {}}, {"streamToken": {}}, {"cookie": {}}}
	}
	segs := strings.Split(rt.path, "/")
	for i, seg := range segs {
		if !strings.HasPrefix(seg, ":") {
			continue
		}
		name := seg[1:]
		doc := pathParamDocs[name]
		if name == "id" {
			doc = idDoc[segs[i-1]]
		}
		if doc == "" {
			return nil, fmt.Errorf("path parameter %s has no description", name)
		}
		op.Parameters = append(op.Parameters, openapi.Parameter{Name: name, In: "path", Required: true, Description: doc,
			Schema: &openapi.Schema{Type: "string"}})
	}
	for _, q := range rt.query {
		op.Parameters = append(op.Parameters, openapi.Parameter{Name: q.name, In: cmp.Or(q.in, "query"), Required: q.required, Description: q.doc, Schema: q.schema})
	}
	switch {
	case rt.body != nil:
		op.RequestBody = &openapi.RequestBody{Required: true, Content: map[string]openapi.MediaType{
			"application/json": {Schema: r.Of(rt.body, openapi.ForRequest)}}}
	case rt.form != nil:
		op.RequestBody = &openapi.RequestBody{Required: true, Content: map[string]openapi.MediaType{
			"multipart/form-data": {Schema: rt.form}}}
	}
	if len(rt.answers) == 0 {
		return nil, fmt.Errorf("no success answer")
	}
	for _, a := range rt.answers {
		resp := &openapi.Response{Description: a.doc}
		switch {
		case a.body != nil:
			resp.Content = map[string]openapi.MediaType{"application/json": {Schema: r.Of(a.body, openapi.ForResponse)}}
			resp.Description = cmp.Or(resp.Description, http.StatusText(a.status))
		case a.ctype != "":
			resp.Content = map[string]openapi.MediaType{a.ctype: {Schema: a.schema}}
		}
		if resp.Description == "" {
			return nil, fmt.Errorf("answer %d has no description", a.status)
		}
		op.Responses[strconv.Itoa(a.status)] = resp
	}
	for _, status := range append(commonErrors(rt), rt.errors...) {
		er, ok := errorResponses[status]
		if !ok {
			return nil, fmt.Errorf("no error response for %d", status)
		}
		if shared[er.name] == nil {
			shared[er.name] = &openapi.Response{Description: er.doc,
				Content: map[string]openapi.MediaType{"application/json": {Schema: errRef}}}
			if status == http.StatusTooManyRequests {
				shared[er.name].Headers = map[string]openapi.Header{"Retry-After": {
					Description: "Seconds until the failures counted here are forgotten (at least 1).", Schema: &openapi.Schema{Type: "integer"}}}
			}
		}
		key := strconv.Itoa(status)
		if op.Responses[key] == nil {
			op.Responses[key] = &openapi.Response{Ref: "#/components/responses/" + er.name}
		}
	}
	return op, nil
}

// addEvents describes the stream routes' events (TurnEvent, ActivityEvent).
func addEvents(r *openapi.Reflector) {
	event := func(name string, data *openapi.Schema, doc string) *openapi.Schema {
		return &openapi.Schema{Type: "object", Description: doc, Required: []string{"data", "event", "id"},
			Properties: map[string]*openapi.Schema{
				"id":    {Type: "integer", Format: "int64", Description: "The frame's number (id:), for Last-Event-ID."},
				"event": {Type: "string", Const: name},
				"data":  data,
			}}
	}
	var turn []*openapi.Schema
	for _, f := range turnFrames {
		turn = append(turn, event(f.event, r.Of(f.data, openapi.ForResponse), f.doc))
	}
	r.Schemas["TurnEvent"] = &openapi.Schema{OneOf: turn,
		Description: "One Server-Sent Event of a turn's stream: `id: N`, `event: <type>`, `data: <JSON>`. The data's schema is its type's."}
	r.Schemas["ActivityEvent"] = event("activity", &openapi.Schema{OneOf: []*openapi.Schema{
		r.Of(topBarDTO{}, openapi.ForResponse), r.Of(activityFrameDTO{}, openapi.ForResponse)}},
		"One Server-Sent Event of the activity stream: the top bar with snapshot true, or one activity's change.")
}

// openapiPath turns gin's :param into OpenAPI's {param}.
func openapiPath(p string) string { return pathParam.ReplaceAllString(p, "/{$1}") }

var (
	pathParam = regexp.MustCompile(`/:([^/]*)`)
	camelCase = regexp.MustCompile(`^[a-z][a-zA-Z0-9]*$`)
)
