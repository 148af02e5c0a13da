package api

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"

	"hub/openapi"
	"hub/workflows"
	"hub/workspace"
)

// route is one endpoint: its handler and what the OpenAPI document says of it. One table
// makes both, so no route is served undescribed, and the document names the types the
// handler really decodes and encodes.
type route struct {
	method string
	// path is gin's ("/api/spaces/:spaceId/tasks"); its :params are the operation's.
	path string
	// id is the operationId: stable, camelCase, unique.
	id      string
	summary string
	auth    authMode
	query   []param
	// body is the JSON request body's type (its zero value); nil: none.
	body any
	// form is a multipart/form-data body instead.
	form    *openapi.Schema
	answers []answer
	// errors are its error statuses besides those every route of its kind has (commonErrors).
	errors []int
	// reply serves a route whose one success answer is a JSON value (or 204); handler any other.
	reply   replyFunc
	handler gin.HandlerFunc
}

// authMode is how a route authenticates.
type authMode int

const (
	authBearer authMode = iota // a full token, or the session cookie
	authStream                 // also ?streamToken= (streamPerson)
	authNone
	authSelf // checked by the handler itself
)

// param is a query (or header) parameter.
type param struct {
	name     string
	in       string // "query" (the default) or "header"
	schema   *openapi.Schema
	required bool
	doc      string
}

// answer is one success status with its body: of body's type, none (204), or ctype's schema.
type answer struct {
	status int
	body   any
	ctype  string
	schema *openapi.Schema
	doc    string
}

func ok(body any) answer       { return answer{status: http.StatusOK, body: body} }
func created(body any) answer  { return answer{status: http.StatusCreated, body: body} }
func accepted(body any) answer { return answer{status: http.StatusAccepted, body: body} }

var noContent = answer{status: http.StatusNoContent, doc: "Done; no body."}

func str(doc string) param { return param{schema: &openapi.Schema{Type: "string"}, doc: doc} }

func named(name string, p param) param { p.name = name; return p }

var (
	pageParams = []param{
		named("limit", param{schema: &openapi.Schema{Type: "integer", Minimum: new(int64)}, doc: "At most this many (0 or absent: the default page size)."}),
		named("offset", param{schema: &openapi.Schema{Type: "integer", Minimum: new(int64)}, doc: "Skip this many (the previous page's nextOffset)."}),
	}
	lastEventParams = []param{
		{name: "Last-Event-ID", in: "header", schema: &openapi.Schema{Type: "string", Examples: []any{"12"}}, doc: "Resume after this frame number (a decimal number from 0)."},
		named("lastEventId", str("Last-Event-ID for clients that cannot set the header.")),
	}
)

const (
	eventStream = "text/event-stream"
	anyContent  = "*/*"
)

// routes is the api's whole table, in the order it is registered.
func (s *Server) routes() []route {
	return []route{
		{method: "GET", path: "/healthz", id: "getHealth", summary: "The process is up", auth: authNone,
			answers: []answer{ok(healthDTO{})}, reply: s.healthz},
		{method: "GET", path: "/readyz", id: "getReadiness", summary: "The database and Temporal are reachable", auth: authNone,
			answers: []answer{ok(readinessDTO{}), {status: http.StatusServiceUnavailable, body: readinessDTO{}, doc: "A check failed; checks say which and why."}},
			handler: s.readyz},
		{method: "GET", path: "/metrics", id: "getMetrics", summary: "Prometheus metrics", auth: authNone,
			answers: []answer{{status: http.StatusOK, ctype: "text/plain", schema: &openapi.Schema{Type: "string"}, doc: "The Prometheus text format."}},
			handler: s.prometheus},
		{method: "GET", path: "/api/openapi.json", id: "getOpenAPI", summary: "This document", auth: authNone,
			answers: []answer{{status: http.StatusOK, ctype: "application/json", schema: &openapi.Schema{Type: "object"}, doc: "The OpenAPI 3.1 document of this api."}},
			handler: s.openapi},
		{method: "POST", path: "/api/session", id: "createSession", summary: "Sign a browser in: exchange a full token for a session cookie (needs the X-Hub-CSRF header)",
			auth: authNone, body: createSessionRequest{}, answers: []answer{{status: http.StatusCreated, body: sessionDTO{},
				doc: "Signed in: Set-Cookie hub_session (HttpOnly, SameSite=Strict, Path=/; Secure over TLS)."}},
			errors: []int{401, 403, 429, 500}, reply: s.createSession},
		{method: "GET", path: "/api/session/providers", id: "getSignInProviders", summary: "How a browser can sign in here: whether through the identity provider (no token needed)",
			auth: authNone, answers: []answer{ok(signInProvidersDTO{})}, reply: s.signInProviders},
		{method: "GET", path: "/api/session/oidc/login", id: "startOIDCSignIn", summary: "Start a browser's sign-in through the identity provider: redirects to its authorization endpoint (authorization code with PKCE)",
			auth: authNone, answers: []answer{{status: http.StatusFound, doc: "To the provider's authorization endpoint, with the cookie hub_oidc (HttpOnly, SameSite=Lax, 10 minutes) that the callback checks; to /#signin-error=provider-unreachable when the provider cannot be reached."}},
			errors: []int{404}, handler: handling(s.oidcLogin)},
		{method: "GET", path: "/api/session/oidc/callback", id: "finishOIDCSignIn", summary: "The identity provider's redirect back: exchanges the code, sets the session cookie and redirects to the console",
			auth: authNone, query: []param{named("code", str("The provider's authorization code.")), named("state", str("The state the sign-in started with.")),
				named("error", str("The provider's error, instead of a code."))},
			answers: []answer{{status: http.StatusFound, doc: "To / with the cookie hub_session set; or, when the sign-in failed, to /#signin-error=<reason> (state, expired, denied, provider-error, provider-unreachable, no-code, exchange, id-token, sign-in) with no session."}},
			errors:  []int{404}, handler: handling(s.oidcCallback)},
		{method: "GET", path: "/api/session", id: "getSession", summary: "Who the request is signed in as (by the session cookie or the bearer token)",
			answers: []answer{ok(sessionDTO{})}, reply: s.getSession},
		{method: "DELETE", path: "/api/session", id: "deleteSession", summary: "Sign the browser out: end its session and clear the cookie (by the cookie, with the X-Hub-CSRF header)",
			answers: []answer{noContent}, reply: s.deleteSession},
		{method: "GET", path: "/api/assistant/turns/:turnId/stream", id: "streamTurn", summary: "The turn's frames as Server-Sent Events", auth: authStream,
			query: lastEventParams,
			answers: []answer{{status: http.StatusOK, ctype: eventStream, schema: openapi.Ref("TurnEvent"), doc: "One event per frame (id, event, data), until the done frame; `: keep-alive` comments every 15 s."},
				{status: http.StatusNoContent, doc: "The client has every frame the turn will send: close the EventSource."}},
			handler: handling(s.streamTurn)},

		{method: "GET", path: "/api/spaces", id: "listSpaces", summary: "List the spaces the person belongs to",
			answers: []answer{ok(spaceListDTO{})}, reply: s.listSpaces},
		{method: "GET", path: "/api/spaces/:spaceId/tasks", id: "listTasks", summary: "List tasks",
			query: append([]param{named("status", str("Only tasks with this status.")), named("projectId", str("Only tasks of this project.")),
				named("assigneeId", str("Only tasks assigned to this person.")), named("q", str("Only tasks whose title contains this."))}, pageParams...),
			answers: []answer{ok(taskPageDTO{})}, reply: s.listTasks},
		{method: "POST", path: "/api/spaces/:spaceId/tasks", id: "createTask", summary: "Create a task", body: createTaskRequest{},
			answers: []answer{created(taskDTO{})}, errors: []int{403}, reply: withBody(s.createTask)},
		{method: "GET", path: "/api/spaces/:spaceId/tasks/:id", id: "getTask", summary: "Get a task",
			answers: []answer{ok(taskDTO{})}, reply: getIn(s.Workspace.GetTask, toTaskDTO)},
		{method: "PATCH", path: "/api/spaces/:spaceId/tasks/:id", id: "updateTask", summary: "Update a task", body: updateTaskRequest{},
			answers: []answer{ok(taskDTO{})}, errors: []int{403, 409}, reply: withBody(s.updateTask)},
		{method: "DELETE", path: "/api/spaces/:spaceId/tasks/:id", id: "deleteTask", summary: "Delete a task",
			answers: []answer{noContent}, errors: []int{403}, reply: removeIn("id", s.Workspace.DeleteTask)},
		{method: "GET", path: "/api/spaces/:spaceId/projects", id: "listProjects", summary: "List projects",
			query:   append([]param{named("status", str("Only projects with this status.")), named("q", str("Only projects whose name contains this."))}, pageParams...),
			answers: []answer{ok(projectPageDTO{})}, reply: s.listProjects},
		{method: "POST", path: "/api/spaces/:spaceId/projects", id: "createProject", summary: "Create a project", body: createProjectRequest{},
			answers: []answer{created(projectDTO{})}, errors: []int{403}, reply: withBody(s.createProject)},
		{method: "GET", path: "/api/spaces/:spaceId/projects/:id", id: "getProject", summary: "Get a project",
			answers: []answer{ok(projectDTO{})}, reply: getIn(s.Workspace.GetProject, toProjectDTO)},
		{method: "PATCH", path: "/api/spaces/:spaceId/projects/:id", id: "updateProject", summary: "Update a project", body: updateProjectRequest{},
			answers: []answer{ok(projectDTO{})}, errors: []int{403, 409}, reply: withBody(s.updateProject)},
		{method: "DELETE", path: "/api/spaces/:spaceId/projects/:id", id: "deleteProject", summary: "Delete a project",
			answers: []answer{noContent}, errors: []int{403}, reply: removeIn("id", s.Workspace.DeleteProject)},
		{method: "GET", path: "/api/spaces/:spaceId/people", id: "listPeople", summary: "List the people of a space",
			answers: []answer{ok(personListDTO{})}, reply: s.listPeople},
		{method: "POST", path: "/api/spaces/:spaceId/people", id: "addPerson", summary: "Add a person to the space (owners only): a new one by name, or by personId someone from another of your spaces",
			body: addPersonRequest{}, answers: []answer{created(personDTO{})}, errors: []int{403, 409}, reply: withBody(s.addPerson)},
		{method: "GET", path: "/api/spaces/:spaceId/people/:id", id: "getPerson", summary: "Get a person of the space",
			answers: []answer{ok(personDTO{})}, reply: getIn(s.Workspace.GetSpacePerson, toPersonDTO)},
		{method: "PATCH", path: "/api/spaces/:spaceId/people/:id", id: "updatePerson", summary: "Change a person's name, first name or role at their revision",
			body: updatePersonRequest{}, answers: []answer{ok(personDTO{})}, errors: []int{403, 409}, reply: withBody(s.updatePerson)},
		// What follows a removal (their work there ends) is wiring's: it subscribes to removals.
		{method: "DELETE", path: "/api/spaces/:spaceId/people/:id", id: "removePerson", summary: "Remove a person from the space (owners), or leave it (yourself)",
			answers: []answer{noContent}, errors: []int{403, 409}, reply: removeIn("id", s.Workspace.RemovePerson)},
		{method: "PATCH", path: "/api/spaces/:spaceId/members/:personId", id: "setMemberRole", summary: "Change a member's role (owners only)",
			body: memberRoleRequest{}, answers: []answer{ok(personDTO{})}, errors: []int{403, 409}, reply: withBody(s.setMemberRole)},
		{method: "DELETE", path: "/api/spaces/:spaceId/members/:personId", id: "removeMember", summary: "Remove a member from the space (owners), or leave it (yourself)",
			answers: []answer{noContent}, errors: []int{403, 409}, reply: removeIn("personId", s.Workspace.RemovePerson)},
		{method: "GET", path: "/api/spaces/:spaceId/connections", id: "listConnections", summary: "List the space's connected apps",
			answers: []answer{ok(connectionListDTO{})}, reply: s.listConnections},
		{method: "POST", path: "/api/spaces/:spaceId/connections", id: "createConnection", summary: "Connect an app (a webhook or an MCP server) to the space",
			body: createConnectionRequest{}, answers: []answer{created(connectionDTO{})}, errors: []int{403, 409}, reply: withBody(s.createConnection)},
		{method: "POST", path: "/api/spaces/:spaceId/connections/:id/refresh", id: "refreshConnection", summary: "List a connected MCP server's tools again",
			answers: []answer{ok(connectionDTO{})}, errors: []int{403, 409, 503}, reply: s.refreshConnection},
		{method: "DELETE", path: "/api/spaces/:spaceId/connections/:id", id: "deleteConnection", summary: "Remove a connected app",
			answers: []answer{noContent}, errors: []int{403}, reply: s.deleteConnection},
		{method: "GET", path: "/api/spaces/:spaceId/audit", id: "listAudit", summary: "The space's audit log, newest first: connected apps, settings and people changed (owners)",
			query: []param{
				named("limit", param{schema: &openapi.Schema{Type: "integer", Minimum: new(int64(1)), Maximum: new(int64(200))}, doc: "At most this many, 1 to 200 (absent: 50)."}),
				named("before", str("The previous page's nextBefore: events older than that one.")),
			},
			answers: []answer{ok(auditPageDTO{})}, errors: []int{403}, reply: s.listAudit},
		{method: "POST", path: "/api/spaces/:spaceId/files", id: "uploadFile", summary: "Attach a file to the space (multipart, part file)",
			form: &openapi.Schema{Type: "object", Required: []string{"file"}, Properties: map[string]*openapi.Schema{
				"file": {Type: "string", ContentMediaType: "application/octet-stream", Description: "The file, with its name as the part's filename."}}},
			answers: []answer{created(fileDTO{})}, errors: []int{403, 413, 415, 503}, reply: s.uploadFile},
		{method: "PUT", path: "/api/spaces/:spaceId/files/:id", id: "replaceFile",
			summary: "Give a file new contents (multipart, part file); it keeps its id and is indexed again",
			form: &openapi.Schema{Type: "object", Required: []string{"file"}, Properties: map[string]*openapi.Schema{
				"file": {Type: "string", ContentMediaType: "application/octet-stream", Description: "The new contents, with the file's (new) name as the part's filename."}}},
			answers: []answer{ok(fileDTO{})}, errors: []int{403, 413, 415, 503}, reply: s.replaceFile},
		{method: "GET", path: "/api/spaces/:spaceId/files", id: "listFiles", summary: "List the space's files, newest first",
			answers: []answer{ok(fileListDTO{})}, errors: []int{503}, reply: s.listFiles},
		{method: "GET", path: "/api/spaces/:spaceId/files/:id", id: "getFile", summary: "Get a file's name, type and size",
			answers: []answer{ok(fileDTO{})}, errors: []int{503}, reply: s.getFile},
		{method: "GET", path: "/api/spaces/:spaceId/files/:id/content", id: "getFileContent", summary: "Read a file's bytes",
			answers: []answer{{status: http.StatusOK, ctype: anyContent, schema: &openapi.Schema{Type: "string", ContentMediaType: "application/octet-stream"},
				doc: "The file's bytes, with its content type, as an attachment."}},
			errors: []int{503}, handler: s.fileContent},
		{method: "POST", path: "/api/spaces/:spaceId/files/:id/index", id: "indexFile",
			summary: "Index a file again (one that failed, or whose indexing was stopped)",
			answers: []answer{accepted(fileDTO{})}, errors: []int{403, 503}, reply: s.indexFile},
		{method: "GET", path: "/api/spaces/:spaceId/files/:id/passages/:key", id: "getFilePassage",
			summary: "Read the passage of a file a reply cites (hub://file/<id>#<key>)",
			answers: []answer{ok(passageDTO{})}, reply: s.getPassage},
		{method: "DELETE", path: "/api/spaces/:spaceId/files/:id", id: "deleteFile", summary: "Delete a file",
			answers: []answer{noContent}, errors: []int{403, 503}, reply: s.deleteFile},
		{method: "GET", path: "/api/models", id: "listModels", summary: "The models a person may choose for a turn or as their default",
			answers: []answer{ok(modelListDTO{})}, reply: s.listModels},
		{method: "GET", path: "/api/spaces/:spaceId/settings", id: "getSpaceSettings", summary: "The space's settings: its monthly budget for model calls and this month's spend",
			answers: []answer{ok(spaceSettingsDTO{})}, reply: s.getSpaceSettings},
		{method: "PATCH", path: "/api/spaces/:spaceId/settings", id: "updateSpaceSettings", summary: "Change the space's settings (owners only): its monthly budget",
			body: updateSpaceSettingsRequest{}, answers: []answer{ok(spaceSettingsDTO{})}, errors: []int{403}, reply: s.updateSpaceSettings},
		{method: "GET", path: "/api/usage", id: "getUsage", summary: "Model usage and cost summed over a time range, by person, space, model or day",
			query: []param{named("from", str("An RFC 3339 time or a date (UTC); default: the start of this month.")),
				named("to", str("An RFC 3339 time or a date (its end); default: now.")),
				named("groupBy", param{schema: &openapi.Schema{Type: "string", Enum: []any{"person", "space", "model", "day", "purpose"}}, doc: "Sum by this, besides the total (purpose: chat, an agent's purpose, or a completion's: summarize, test_model, test_skill)."}),
				named("spaceId", str("Only this space (one the person belongs to)."))},
			answers: []answer{ok(usageReportDTO{})}, errors: []int{404}, reply: s.usage},
		{method: "GET", path: "/api/me/settings", id: "getSettings", summary: "The person's assistant settings",
			answers: []answer{ok(settingsDTO{})}, reply: s.getSettings},
		{method: "PATCH", path: "/api/me/settings", id: "updateSettings", summary: "Change the person's assistant settings",
			body: updateSettingsRequest{}, answers: []answer{ok(settingsDTO{})}, reply: withBody(s.updateSettings)},
		{method: "GET", path: "/api/me/profile", id: "getProfile", summary: "The person's profile: name, first name and persona",
			answers: []answer{ok(profileDTO{})}, reply: s.getProfile},
		{method: "PATCH", path: "/api/me/profile", id: "updateProfile", summary: "Change the person's first name or persona (one sentence about their work)",
			body: updateProfileRequest{}, answers: []answer{ok(profileDTO{})}, reply: withBody(s.updateProfile)},
		{method: "GET", path: "/api/me/tokens", id: "listTokens", summary: "The person's own tokens: their names, prefixes and times, never the tokens",
			answers: []answer{ok(tokenListDTO{})}, reply: s.listMyTokens},
		{method: "DELETE", path: "/api/me/tokens/:tokenId", id: "revokeToken", summary: "Revoke one of the person's own tokens, with the sessions and stream tokens made from it",
			answers: []answer{noContent}, errors: []int{404}, reply: s.revokeMyToken},
		{method: "GET", path: "/api/me/skills", id: "listSkills", summary: "The person's own skills",
			answers: []answer{ok(skillListDTO{})}, reply: s.listSkills},
		{method: "POST", path: "/api/me/skills", id: "createSkill", summary: "Save a personal skill (enabled by default)",
			body: createSkillRequest{}, answers: []answer{created(skillDTO{})}, errors: []int{409}, reply: withBody(s.createSkill)},
		{method: "GET", path: "/api/me/skills/:id", id: "getSkill", summary: "One of the person's skills",
			answers: []answer{ok(skillDTO{})}, reply: getOwn("id", s.Workspace.GetSkill, toSkillDTO)},
		{method: "PATCH", path: "/api/me/skills/:id", id: "updateSkill", summary: "Change a personal skill at its version",
			body: updateSkillRequest{}, answers: []answer{ok(skillDTO{})}, errors: []int{409}, reply: withBody(s.updateSkill)},
		{method: "DELETE", path: "/api/me/skills/:id", id: "deleteSkill", summary: "Delete a personal skill",
			query:   []param{named("version", param{schema: &openapi.Schema{Type: "integer", Minimum: new(int64(1))}, doc: "When given, must be the skill's current version (else 409)."})},
			answers: []answer{noContent}, errors: []int{409}, reply: s.deleteSkill},
		{method: "GET", path: "/api/agents", id: "listAgents", summary: "The person's agents",
			answers: []answer{ok(agentListDTO{})}, reply: s.listAgents},
		{method: "POST", path: "/api/agents", id: "createAgent", summary: "Make an agent that works for the person in some of their spaces (enabled by default)",
			body: createAgentRequest{}, answers: []answer{created(agentDTO{})}, errors: []int{404, 409}, reply: withBody(s.createAgent)},
		{method: "GET", path: "/api/agents/:agentId", id: "getAgent", summary: "One of the person's agents",
			answers: []answer{ok(agentDTO{})}, reply: getOwn("agentId", s.Workspace.GetAgent, toAgentDTO)},
		{method: "PATCH", path: "/api/agents/:agentId", id: "updateAgent", summary: "Change an agent at its version",
			body: updateAgentRequest{}, answers: []answer{ok(agentDTO{})}, errors: []int{404, 409}, reply: withBody(s.updateAgent)},
		{method: "DELETE", path: "/api/agents/:agentId", id: "deleteAgent", summary: "Delete an agent",
			query:   []param{named("version", param{schema: &openapi.Schema{Type: "integer", Minimum: new(int64(1))}, doc: "When given, must be the agent's current version (else 409)."})},
			answers: []answer{noContent}, errors: []int{409, 503}, reply: s.deleteAgent},
		{method: "POST", path: "/api/agents/:agentId/turns", id: "startAgentTurn", summary: "Send the agent work: starts a turn in one of its conversations (a new one by default)",
			body: startAgentTurnRequest{}, answers: []answer{accepted(turnStartedDTO{})}, errors: []int{404, 409, 503}, reply: withBody(s.startAgentTurn)},
		{method: "GET", path: "/api/agents/:agentId/schedules", id: "listSchedules", summary: "The agent's schedules, with their next run times and latest firings",
			answers: []answer{ok(scheduleListDTO{})}, errors: []int{404, 503}, reply: s.listSchedules},
		{method: "POST", path: "/api/agents/:agentId/schedules", id: "createSchedule", summary: "Schedule work for the agent: each firing starts a turn of it in the schedule's conversation (a Temporal Schedule)",
			body: createScheduleRequest{}, answers: []answer{created(scheduleDTO{})}, errors: []int{404, 409, 503}, reply: withBody(s.createSchedule)},
		{method: "GET", path: "/api/agents/:agentId/schedules/:scheduleId", id: "getSchedule", summary: "One of the agent's schedules",
			answers: []answer{ok(scheduleDTO{})}, errors: []int{404, 503}, reply: s.getSchedule},
		{method: "PATCH", path: "/api/agents/:agentId/schedules/:scheduleId", id: "updateSchedule", summary: "Pause or resume a schedule, with a note",
			body: updateScheduleRequest{}, answers: []answer{ok(scheduleDTO{})}, errors: []int{404, 409, 503}, reply: withBody(s.updateSchedule)},
		{method: "POST", path: "/api/agents/:agentId/schedules/:scheduleId/trigger", id: "triggerSchedule", summary: "Fire a schedule now (paused or not), as its overlap policy allows",
			answers: []answer{accepted(scheduleDTO{})}, errors: []int{404, 409, 503}, reply: s.triggerSchedule},
		{method: "DELETE", path: "/api/agents/:agentId/schedules/:scheduleId", id: "deleteSchedule", summary: "Delete a schedule (a firing already running finishes its turn)",
			answers: []answer{noContent}, errors: []int{404, 503}, reply: s.deleteSchedule},
		{method: "POST", path: "/api/assistant/conversations", id: "createConversation", summary: "Start a conversation",
			body: createConversationRequest{}, answers: []answer{created(conversationDTO{})}, errors: []int{404}, reply: withBody(s.createConversation)},
		{method: "GET", path: "/api/assistant/conversations", id: "listConversations", summary: "List conversations in a space",
			query:   []param{{name: "spaceId", schema: &openapi.Schema{Type: "string"}, required: true, doc: "The space whose conversations to list."}},
			answers: []answer{ok(conversationListDTO{})}, errors: []int{404}, reply: s.listConversations},
		{method: "GET", path: "/api/assistant/conversations/:id", id: "getConversation", summary: "Get a conversation",
			answers: []answer{ok(conversationDTO{})}, reply: getOwn("id", s.Chat.GetConversation, toConversationDTO)},
		{method: "PATCH", path: "/api/assistant/conversations/:id", id: "renameConversation", summary: "Rename a conversation",
			body: renameConversationRequest{}, answers: []answer{ok(conversationDTO{})}, reply: withBody(s.renameConversation)},
		{method: "DELETE", path: "/api/assistant/conversations/:id", id: "deleteConversation", summary: "Delete a conversation and end its running turn",
			answers: []answer{noContent}, reply: s.deleteConversation},
		{method: "GET", path: "/api/assistant/conversations/:id/messages", id: "listMessages", summary: "A conversation's messages",
			answers: []answer{ok(messageListDTO{})}, reply: s.listMessages},
		{method: "POST", path: "/api/assistant/conversations/:id/turns", id: "startTurn", summary: "Send a message: starts a turn",
			body: startTurnRequest{}, answers: []answer{accepted(turnStartedDTO{})}, errors: []int{409, 503}, reply: withBody(s.startTurn)},
		{method: "GET", path: "/api/assistant/turns/:turnId", id: "getTurn", summary: "A turn's status",
			answers: []answer{ok(turnDTO{})}, reply: getOwn("turnId", s.Chat.GetTurnFor, toTurnDTO)},
		{method: "GET", path: "/api/assistant/turns/:turnId/inspect", id: "inspectTurn",
			summary: "What a turn's model saw and did (the run inspector): the conversation's owner, or an operator token for any turn",
			auth:    authSelf, answers: []answer{ok(inspectionDTO{})}, reply: s.inspectTurn},
		{method: "POST", path: "/api/assistant/turns/:turnId/stream-token", id: "createTurnStreamToken",
			summary: "A short-lived token that reads only this turn's stream, for a URL (EventSource): another tab follows a running reply with it",
			answers: []answer{created(turnStreamTokenDTO{})}, reply: s.turnStreamToken},
		{method: "POST", path: "/api/assistant/turns/:turnId/retry", id: "retryTurn", summary: "Run a failed turn's message again",
			answers: []answer{accepted(turnStartedDTO{})}, errors: []int{409, 503}, reply: s.retryTurn},
		{method: "POST", path: "/api/assistant/turns/:turnId/stop", id: "stopTurn", summary: "Stop a turn (keeps text, usage and receipts)",
			answers: []answer{accepted(controlDTO{})}, errors: []int{409, 503}, reply: s.controlTurn(workflows.StopSignal)},
		{method: "POST", path: "/api/assistant/turns/:turnId/pause", id: "pauseTurn", summary: "Pause a turn",
			answers: []answer{accepted(controlDTO{})}, errors: []int{409, 503}, reply: s.controlTurn(workflows.PauseSignal)},
		{method: "POST", path: "/api/assistant/turns/:turnId/resume", id: "resumeTurn", summary: "Resume a paused turn",
			answers: []answer{accepted(controlDTO{})}, errors: []int{409, 503}, reply: s.controlTurn(workflows.ResumeSignal)},
		{method: "GET", path: "/api/agent/state", id: "getAgentState", summary: "The person's running work, for the top bar",
			answers: []answer{ok(topBarDTO{})}, reply: s.agentState},
		{method: "GET", path: "/api/agent/stream", id: "streamActivity", summary: "The person's activity frames as Server-Sent Events: a snapshot of the top bar, then every change",
			auth: authStream, query: lastEventParams,
			answers: []answer{{status: http.StatusOK, ctype: eventStream, schema: openapi.Ref("ActivityEvent"),
				doc: "Events of type activity: first the top bar as a snapshot (unless resumed), then one per change; never ends."}},
			handler: handling(s.agentStream)},
		{method: "POST", path: "/api/agent/stream-token", id: "createActivityStreamToken", summary: "A short-lived token that reads only the person's activity stream, for a URL (EventSource)",
			answers: []answer{created(activityTokenDTO{})}, reply: s.activityStreamToken},
		{method: "POST", path: "/api/agent/stop", id: "stopAll", summary: "Stop all of the person's running work",
			answers: []answer{accepted(controlAllDTO{})}, reply: s.controlAll(workflows.StopSignal)},
		{method: "POST", path: "/api/agent/pause", id: "pauseAll", summary: "Pause all of the person's running work",
			answers: []answer{accepted(controlAllDTO{})}, reply: s.controlAll(workflows.PauseSignal)},
		{method: "POST", path: "/api/agent/resume", id: "resumeAll", summary: "Resume all of the person's paused work",
			answers: []answer{accepted(controlAllDTO{})}, reply: s.controlAll(workflows.ResumeSignal)},
		{method: "POST", path: "/api/completions", id: "createCompletion",
			summary: "Start a completion: one model call for a fixed task that needs no tools (summarize_file, test_model, test_skill)",
			body:    createCompletionRequest{}, answers: []answer{accepted(completionStartedDTO{})}, errors: []int{404, 503}, reply: withBody(s.createCompletion)},
		{method: "GET", path: "/api/completions/:completionId", id: "getCompletion", summary: "One of the person's completions, with its result once done",
			answers: []answer{ok(completionDTO{})}, reply: getOwn("completionId", s.Chat.GetCompletionFor, toCompletionDTO)},
		{method: "POST", path: "/api/completions/:completionId/stop", id: "stopCompletion", summary: "Stop a completion (its model call ends at once)",
			answers: []answer{accepted(controlDTO{})}, errors: []int{409, 503}, reply: s.controlCompletion(workflows.StopSignal)},
		{method: "POST", path: "/api/completions/:completionId/pause", id: "pauseCompletion", summary: "Pause a completion (its model call ends; Resume runs it again)",
			answers: []answer{accepted(controlDTO{})}, errors: []int{409, 503}, reply: s.controlCompletion(workflows.PauseSignal)},
		{method: "POST", path: "/api/completions/:completionId/resume", id: "resumeCompletion", summary: "Resume a paused completion",
			answers: []answer{accepted(controlDTO{})}, errors: []int{409, 503}, reply: s.controlCompletion(workflows.ResumeSignal)},
		{method: "POST", path: "/api/assistant/undo", id: "undo", summary: "Undo an Undo group: put its records back as they were",
			body: undoRequest{}, answers: []answer{ok(undoResultDTO{})}, errors: []int{403, 404, 409}, reply: s.undoRedo(s.Workspace.Undo)},
		{method: "POST", path: "/api/assistant/redo", id: "redo", summary: "Redo an undone Undo group",
			body: undoRequest{}, answers: []answer{ok(undoResultDTO{})}, errors: []int{403, 404, 409}, reply: s.undoRedo(s.Workspace.Redo)},
		{method: "GET", path: "/api/assistant/needs-me", id: "listNeedsMe", summary: "Writes held for the person's Needs me list",
			answers: []answer{ok(needsMeListDTO{})}, reply: s.needsMe},
		{method: "GET", path: "/api/prompts", id: "listPrompts", summary: "Every prompt Hub sends the model, built with sample values, with its size and budget",
			answers: []answer{ok(promptListDTO{})}, reply: s.listPrompts},
		{method: "POST", path: "/api/assistant/apply", id: "applyProposal", summary: "Apply a reply's held writes; answers the receipts",
			body: applyRequest{}, answers: []answer{ok(applyResultDTO{})}, errors: []int{404, 409, 503}, reply: withBody(s.apply)},
	}
}

// replyFunc is the handler of a route whose answer is one JSON value, or an error.
type replyFunc func(*gin.Context) (any, error)

// replying serves h: its value as JSON with status (204: no body), its error by respondError.
func replying(status int, h replyFunc) gin.HandlerFunc {
	return func(c *gin.Context) {
		v, err := h(c)
		switch {
		case err != nil:
			respondError(c, err)
		case status == http.StatusNoContent:
			c.Status(status)
		default:
			c.JSON(status, v)
		}
	}
}

// handling serves a handler that writes its own answer, answering its
// error through respondError (an event stream, once started, returns none).
func handling(h func(*gin.Context) error) gin.HandlerFunc {
	return func(c *gin.Context) {
		if err := h(c); err != nil {
			respondError(c, err)
		}
	}
}

// withBody is a reply that decodes the request's JSON body into a B for h.
func withBody[B any](h func(*gin.Context, B) (any, error)) replyFunc {
	return func(c *gin.Context) (any, error) {
		var req B
		if err := decode(c, &req); err != nil {
			return nil, err
		}
		return h(c, req)
	}
}

// spaceOp is a service call on one record of a space, by the space's id and the record's.
type spaceOp[T any] func(ctx context.Context, actor workspace.Actor, spaceID, id string) (T, error)

// getIn answers the record get finds by the route's :spaceId and :id.
func getIn[T, D any](get spaceOp[T], to func(T) D) replyFunc {
	return func(c *gin.Context) (any, error) {
		v, err := get(c.Request.Context(), actor(c), c.Param("spaceId"), c.Param("id"))
		return to(v), err
	}
}

// getOwn answers the person's own record get finds by the route's param.
func getOwn[T, D any](param string, get func(ctx context.Context, personID, id string) (T, error), to func(T) D) replyFunc {
	return func(c *gin.Context) (any, error) {
		v, err := get(c.Request.Context(), person(c).ID, c.Param(param))
		return to(v), err
	}
}

// removeIn removes the record named by the route's :spaceId and param.
func removeIn[T any](param string, remove spaceOp[T]) replyFunc {
	return func(c *gin.Context) (any, error) {
		_, err := remove(c.Request.Context(), actor(c), c.Param("spaceId"), c.Param(param))
		return nil, err
	}
}

// toDTOs converts each of in with to; none is [], never null.
func toDTOs[T, D any](in []T, to func(T) D) []D {
	out := make([]D, len(in))
	for i, v := range in {
		out[i] = to(v)
	}
	return out
}
