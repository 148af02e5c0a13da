// Typed fetch wrappers over Hub's api, written by hand against docs/api.md.
// When the generated OpenAPI document and its TypeScript types land, these
// types are to be replaced by the generated ones (see console/README.md).

export interface Ref { kind: string; id: string; label: string; detail?: string; spaceId?: string }
export interface ErrorBody { code: string; message: string; path?: string }
export interface Space { id: string; name: string; role: string }
export interface Conversation { id: string; spaceId: string; title: string; createdAt?: string; updatedAt?: string }
export interface Step { id: string; tool: string; status: string; summary?: string; error?: ErrorBody; undoGroupId?: string }
export interface Receipt {
  callId: string; tool: string; status: "succeeded" | "failed" | "unattempted" | "unknown" | string;
  summary?: string; error?: ErrorBody; undoGroupId?: string; steps?: Step[]; refs?: Ref[]; spaceId?: string;
}
export interface ToolCall {
  id: string; tool: string; summary: string; status: string; error?: ErrorBody; refs: Ref[];
  undoGroupId?: string; receipt?: Receipt;
}
export interface Proposal { callId: string; tool: string; preview: string; heldFor?: string; status?: string; spaceId?: string }
export interface Message {
  id: string; turnId: string; role: "user" | "assistant"; text: string;
  status: "done" | "error" | "stopped" | "running" | string;
  mentions: Ref[]; refs: Ref[]; toolCalls: ToolCall[]; proposals: Proposal[];
  error?: ErrorBody; createdAt?: string;
}
export interface StartedTurn { turnId: string; messageId: string; replyMessageId: string; streamUrl: string }
export interface Turn { turnId: string; status: string; step: number; conversationId: string; replyMessageId: string; error?: ErrorBody }
export interface Activity {
  id: string; kind: "turn" | "apply" | string; conversationId: string; status: string;
  startedAt: string; title: string; step?: number; ended?: boolean;
}
export interface AgentSnapshot { snapshot: true; activities: Activity[]; paused: boolean }
export interface Settings { writePolicy: "immediate" | "preview" | "needs-me"; model?: string; effort?: string }
export interface Model { id: string; name: string; efforts: string[]; default: boolean }
export interface Models { default: string; models: Model[] }
export interface NeedsMeItem { callId: string; tool: string; preview: string; conversationId: string; messageId: string; spaceId: string; createdAt: string }
export interface ApplyResult { applyId: string; receipts: Receipt[] }
export interface UndoResult { undoGroupId: string; state: "undone" | "redone"; records: Ref[] }
export interface Task { id: string; title: string }
export interface Project { id: string; name: string }
export interface Person { id: string; name: string }
export interface HubFile { id: string; spaceId: string; name: string; contentType: string; size: number; url: string }

// Frames of a turn's stream (docs/api.md, "The stream").
export interface StatusFrame { status: string; step: number; text?: string; discard?: boolean; reset?: boolean }
export interface TextFrame { delta: string }
export interface ToolFrame { callId: string; tool: string; phase: "started" | "done" | "failed" | "held"; summary?: string; error?: ErrorBody; refs?: Ref[]; undoGroupId?: string }
export interface ProposalFrame { messageId: string; calls: { callId: string; tool: string; preview: string }[] }
export interface DoneFrame { status: "done" | "stopped" | "error"; messageId: string; deleted?: boolean; refs?: Ref[] }

/** ApiError is a non-2xx answer with the api's error body. */
export class ApiError extends Error {
  constructor(readonly status: number, readonly body: ErrorBody) {
    super(body.message || `HTTP ${status}`);
  }
}

const tokenKey = "hub.token";

export function token(): string | null { return sessionStorage.getItem(tokenKey); }
export function setToken(t: string | null): void {
  if (t) sessionStorage.setItem(tokenKey, t); else sessionStorage.removeItem(tokenKey);
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Authorization: `Bearer ${token() ?? ""}` };
  const form = body instanceof FormData;
  if (body !== undefined && !form) headers["Content-Type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : form ? body : JSON.stringify(body) });
  } catch (e) {
    throw new ApiError(0, { code: "unavailable", message: "Hub cannot be reached" });
  }
  if (res.status === 204) return undefined as T;
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new ApiError(res.status, data.error ?? { code: "http_" + res.status, message: res.statusText });
  return data as T;
}

export const api = {
  spaces: () => call<{ spaces: Space[] }>("GET", "/api/spaces"),
  conversations: (spaceId: string) => call<{ conversations: Conversation[] }>("GET", `/api/assistant/conversations?spaceId=${encodeURIComponent(spaceId)}`),
  createConversation: (spaceId: string, title?: string) => call<Conversation>("POST", "/api/assistant/conversations", { spaceId, title }),
  deleteConversation: (id: string) => call<void>("DELETE", `/api/assistant/conversations/${enc(id)}`),
  messages: (id: string) => call<{ messages: Message[] }>("GET", `/api/assistant/conversations/${enc(id)}/messages`),
  startTurn: (id: string, text: string, mentions: { kind: string; id: string }[], files: string[], model?: string, effort?: string) =>
    call<StartedTurn>("POST", `/api/assistant/conversations/${enc(id)}/turns`, { text, mentions, ...(files.length ? { files } : {}), ...(model ? { model } : {}), ...(effort ? { effort } : {}) }),
  uploadFile: (spaceId: string, file: File) => {
    const form = new FormData();
    form.append("file", file, file.name);
    return call<HubFile>("POST", `/api/spaces/${enc(spaceId)}/files`, form);
  },
  turn: (turnId: string) => call<Turn>("GET", `/api/assistant/turns/${enc(turnId)}`),
  control: (turnId: string, what: "stop" | "pause" | "resume") => call<{ status: string }>("POST", `/api/assistant/turns/${enc(turnId)}/${what}`),
  retry: (turnId: string) => call<{ turnId: string; streamUrl: string }>("POST", `/api/assistant/turns/${enc(turnId)}/retry`),
  apply: (conversationId: string, messageId: string, callIds?: string[], retryInterrupted?: boolean) =>
    call<ApplyResult>("POST", "/api/assistant/apply", { conversationId, messageId, ...(callIds ? { callIds } : {}), ...(retryInterrupted ? { retryInterrupted } : {}) }),
  undo: (undoGroupId: string) => call<UndoResult>("POST", "/api/assistant/undo", { undoGroupId }),
  redo: (undoGroupId: string) => call<UndoResult>("POST", "/api/assistant/redo", { undoGroupId }),
  needsMe: () => call<{ items: NeedsMeItem[] }>("GET", "/api/assistant/needs-me"),
  agentStreamToken: () => call<{ streamToken: string; streamUrl: string; expiresAt: string }>("POST", "/api/agent/stream-token"),
  agent: (what: "pause" | "resume" | "stop") => call<{ status: string; turns: number }>("POST", `/api/agent/${what}`),
  settings: () => call<Settings>("GET", "/api/me/settings"),
  patchSettings: (s: Partial<Settings>) => call<Settings>("PATCH", "/api/me/settings", s),
  models: () => call<Models>("GET", "/api/models"),
  tasks: (spaceId: string) => call<{ tasks: Task[] }>("GET", `/api/spaces/${enc(spaceId)}/tasks?limit=200`),
  projects: (spaceId: string) => call<{ projects: Project[] }>("GET", `/api/spaces/${enc(spaceId)}/projects?limit=200`),
  people: (spaceId: string) => call<{ people: Person[] }>("GET", `/api/spaces/${enc(spaceId)}/people`),
};

function enc(s: string): string { return encodeURIComponent(s); }
