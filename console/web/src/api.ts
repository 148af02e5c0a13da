// Hub's api for the console, typed by the OpenAPI document: schema.d.ts is
// what openapi-typescript generates from docs/openapi.json (scripts/console.sh
// writes it and checks it is fresh), and call() below takes a path and method
// of that document, its path and query parameters, its body, and answers its
// success body. A renamed route, parameter or field breaks `make console`.
// No runtime client: the calls are plain fetch (a few hundred bytes). Bodies
// are object literals (no spreads), so a field the document no longer has
// is an error too.

import type { components, paths } from "./schema.js";

type S = components["schemas"];
export type Ref = S["Ref"];
export type ErrorBody = S["Failure"] & { path?: string };
export type Space = S["Space"];
export type Conversation = S["Conversation"];
export type Step = S["Step"];
export type Receipt = S["Receipt"];
export type ToolCall = S["ToolCall"];
export type Proposal = S["Proposal"];
export type ProposedCall = S["ProposedCall"];
export type Message = S["Message"];
export type StartedTurn = S["TurnStarted"];
export type Turn = S["Turn"];
export type Activity = S["Activity"];
export type AgentSnapshot = S["TopBar"];
export type ActivityFrame = S["ActivityFrame"];
export type Settings = S["Settings"];
export type Model = S["Model"];
export type Models = S["ModelList"];
export type NeedsMeItem = S["NeedsMe"];
export type ApplyResult = S["ApplyResult"];
export type UndoResult = S["UndoResult"];
export type Task = S["Task"];
export type Project = S["Project"];
export type Person = S["Person"];
export type HubFile = S["File"];
export type UndoState = NonNullable<ToolCall["undoState"]>;
export type Agent = S["Agent"];
export type NewAgent = S["CreateAgentRequest"];
export type Schedule = S["Schedule"];
export type ScheduleRun = S["ScheduleRun"];
export type NewSchedule = S["CreateScheduleRequest"];

// Frames of a turn's stream (docs/api.md, "The stream").
export type RefsFrame = S["RefsFrame"];
export type StatusFrame = S["StatusFrame"];
export type TextFrame = S["TextFrame"];
export type ToolFrame = S["ToolFrame"];
export type ProposalFrame = S["ProposalFrame"];
export type DoneFrame = S["DoneFrame"];

/** ApiError is a non-2xx answer with the api's error body. */
export class ApiError extends Error {
  constructor(readonly status: number, readonly body: ErrorBody) {
    super(body.message || `HTTP ${status}`);
  }
}

// The console holds no token: it exchanges one for the browser's session
// (POST /api/session sets an HttpOnly cookie its script cannot read), and
// every call then goes with that cookie and the CSRF header the api asks
// of a cookie-signed request that changes something (docs/api.md,
// "Sessions"). The streams' EventSource sends the cookie too.
const csrf = { "X-Hub-CSRF": "1" };

// --- the document's types, by path and method -------------------------------------------------

type Method = "get" | "post" | "patch" | "delete";
/** Methods are the methods the document has for path P. */
type Methods<P extends keyof paths> = { [M in Method]: [paths[P][M]] extends [undefined] ? never : M }[Method];
type Op<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type JSONOf<R> = R extends { content: { "application/json": infer J } } ? J : undefined;
type Answer<O> = O extends { responses: infer R } ? JSONOf<R[Extract<keyof R, 200 | 201 | 202 | 204>]> : never;
type BodyOf<O> = O extends { requestBody: { content: { "application/json": infer B } } } ? B
  : O extends { requestBody?: { content: { "application/json": infer B } } } ? B
  : O extends { requestBody: { content: { "multipart/form-data": unknown } } } ? FormData : never;
type PathOf<O> = O extends { parameters: { path: infer PP } } ? PP : never;
type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? Q : never;
type Opts<O> = { path?: PathOf<O>; query?: QueryOf<O>; body?: BodyOf<O> };

async function call<P extends keyof paths, M extends Methods<P>>(method: M, path: P, opts: Opts<Op<P, M>> = {}): Promise<Answer<Op<P, M>>> {
  let url: string = path.replace(/\{(\w+)\}/g, (_, k: string) => encodeURIComponent(String((opts.path as Record<string, unknown>)[k])));
  if (opts.query) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(opts.query as Record<string, unknown>)) if (v !== undefined) q.set(k, String(v));
    url += "?" + q;
  }
  const headers: Record<string, string> = { ...csrf };
  const body = opts.body as unknown;
  const form = body instanceof FormData;
  if (body !== undefined && !form) headers["Content-Type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(url, { method: method.toUpperCase(), headers, credentials: "same-origin", body: body === undefined ? undefined : form ? body : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, { code: "unavailable", message: "Hub cannot be reached" });
  }
  if (res.status === 204) return undefined as Answer<Op<P, M>>;
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new ApiError(res.status, (data as Partial<S["Error"]>).error ?? { code: "http_" + res.status, message: res.statusText });
  return data as Answer<Op<P, M>>;
}

export type TurnOptions = { model?: string; effort?: string };

export const api = {
  signIn: (token: string) => call("post", "/api/session", { body: { token } }),
  signOut: () => call("delete", "/api/session"),
  whoAmI: () => call("get", "/api/session"),
  signInProviders: () => call("get", "/api/session/providers"),
  spaces: () => call("get", "/api/spaces"),
  conversations: (spaceId: string) => call("get", "/api/assistant/conversations", { query: { spaceId } }),
  createConversation: (spaceId: string, title?: string) => call("post", "/api/assistant/conversations", { body: { spaceId, title } }),
  conversation: (id: string) => call("get", "/api/assistant/conversations/{id}", { path: { id } }),
  deleteConversation: (id: string) => call("delete", "/api/assistant/conversations/{id}", { path: { id } }),
  messages: (id: string) => call("get", "/api/assistant/conversations/{id}/messages", { path: { id } }),
  startTurn: (id: string, text: string, mentions: { kind: string; id: string }[], files: string[], o: TurnOptions = {}) =>
    call("post", "/api/assistant/conversations/{id}/turns", { path: { id }, body: {
      text, mentions, files: files.length ? files : undefined, model: o.model || undefined, effort: o.effort || undefined } }),
  uploadFile: (spaceId: string, file: File) => {
    const form = new FormData();
    form.append("file", file, file.name);
    return call("post", "/api/spaces/{spaceId}/files", { path: { spaceId }, body: form });
  },
  files: (spaceId: string) => call("get", "/api/spaces/{spaceId}/files", { path: { spaceId } }),
  turn: (turnId: string) => call("get", "/api/assistant/turns/{turnId}", { path: { turnId } }),
  stop: (turnId: string) => call("post", "/api/assistant/turns/{turnId}/stop", { path: { turnId } }),
  pause: (turnId: string) => call("post", "/api/assistant/turns/{turnId}/pause", { path: { turnId } }),
  resume: (turnId: string) => call("post", "/api/assistant/turns/{turnId}/resume", { path: { turnId } }),
  turnStreamToken: (turnId: string) => call("post", "/api/assistant/turns/{turnId}/stream-token", { path: { turnId } }),
  retry: (turnId: string) => call("post", "/api/assistant/turns/{turnId}/retry", { path: { turnId } }),
  apply: (conversationId: string, messageId: string, o: { callIds?: string[]; retryInterrupted?: boolean; resendUnknown?: boolean } = {}) =>
    call("post", "/api/assistant/apply", { body: { conversationId, messageId, callIds: o.callIds, retryInterrupted: o.retryInterrupted, resendUnknown: o.resendUnknown } }),
  undo: (undoGroupId: string) => call("post", "/api/assistant/undo", { body: { undoGroupId } }),
  redo: (undoGroupId: string) => call("post", "/api/assistant/redo", { body: { undoGroupId } }),
  needsMe: () => call("get", "/api/assistant/needs-me"),
  agentStreamToken: () => call("post", "/api/agent/stream-token"),
  pauseAll: () => call("post", "/api/agent/pause"),
  resumeAll: () => call("post", "/api/agent/resume"),
  stopAll: () => call("post", "/api/agent/stop"),
  settings: () => call("get", "/api/me/settings"),
  patchSettings: (s: S["UpdateSettingsRequest"]) => call("patch", "/api/me/settings", { body: s }),
  models: () => call("get", "/api/models"),
  tasks: (spaceId: string) => call("get", "/api/spaces/{spaceId}/tasks", { path: { spaceId }, query: { limit: 200 } }),
  projects: (spaceId: string) => call("get", "/api/spaces/{spaceId}/projects", { path: { spaceId }, query: { limit: 200 } }),
  people: (spaceId: string) => call("get", "/api/spaces/{spaceId}/people", { path: { spaceId } }),
  // One record, for the record panel (a ref link in the chat).
  task: (spaceId: string, id: string) => call("get", "/api/spaces/{spaceId}/tasks/{id}", { path: { spaceId, id } }),
  project: (spaceId: string, id: string) => call("get", "/api/spaces/{spaceId}/projects/{id}", { path: { spaceId, id } }),
  person: (spaceId: string, id: string) => call("get", "/api/spaces/{spaceId}/people/{id}", { path: { spaceId, id } }),
  file: (spaceId: string, id: string) => call("get", "/api/spaces/{spaceId}/files/{id}", { path: { spaceId, id } }),
  passage: (spaceId: string, id: string, key: string) =>
    call("get", "/api/spaces/{spaceId}/files/{id}/passages/{key}", { path: { spaceId, id, key } }),
  skill: (id: string) => call("get", "/api/me/skills/{id}", { path: { id } }),
  connections: (spaceId: string) => call("get", "/api/spaces/{spaceId}/connections", { path: { spaceId } }),
  // The person's agents and their schedules (the Agents screen).
  agents: () => call("get", "/api/agents"),
  createAgent: (a: NewAgent) => call("post", "/api/agents", { body: { name: a.name, persona: a.persona, spaces: a.spaces, enabled: a.enabled } }),
  switchAgent: (agentId: string, version: number, enabled: boolean) => call("patch", "/api/agents/{agentId}", { path: { agentId }, body: { version, enabled } }),
  deleteAgent: (agentId: string, version: number) => call("delete", "/api/agents/{agentId}", { path: { agentId }, query: { version } }),
  runAgent: (agentId: string, text: string) => call("post", "/api/agents/{agentId}/turns", { path: { agentId }, body: { text } }),
  schedules: (agentId: string) => call("get", "/api/agents/{agentId}/schedules", { path: { agentId } }),
  createSchedule: (agentId: string, s: NewSchedule) => call("post", "/api/agents/{agentId}/schedules", { path: { agentId },
    body: { text: s.text, spec: { cron: s.spec.cron, at: s.spec.at }, timeZone: s.timeZone, writes: s.writes } }),
  pauseSchedule: (agentId: string, scheduleId: string, paused: boolean, note?: string) =>
    call("patch", "/api/agents/{agentId}/schedules/{scheduleId}", { path: { agentId, scheduleId }, body: { paused, note } }),
  triggerSchedule: (agentId: string, scheduleId: string) => call("post", "/api/agents/{agentId}/schedules/{scheduleId}/trigger", { path: { agentId, scheduleId } }),
  deleteSchedule: (agentId: string, scheduleId: string) => call("delete", "/api/agents/{agentId}/schedules/{scheduleId}", { path: { agentId, scheduleId } }),
};
