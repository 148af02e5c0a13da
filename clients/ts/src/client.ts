// A small typed client of Hub, compiled (tsc --noEmit, strict) against the types openapi-typescript
// generates from docs/openapi.json: scripts/client-check.sh. Every path, parameter, body and answer
// here is checked against the document, so a renamed route or field breaks the build. A frontend
// starts from the same two commands (docs/api.md, "The OpenAPI document").
import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./schema";

export type Schemas = components["schemas"];
export type Receipt = Schemas["Receipt"];
export type Message = Schemas["Message"];
export type TurnEvent = Schemas["TurnEvent"];
export type ActivityEvent = Schemas["ActivityEvent"];

/** Hub's error body, which every 4xx and 5xx carries. */
export class HubError extends Error {
  constructor(
    readonly status: number,
    readonly body: Schemas["Error"],
  ) {
    super(`${status} ${body.error.code}: ${body.error.message}${body.error.path ? ` at ${body.error.path}` : ""}`);
  }
}

export function hubClient(baseUrl: string, token: string): Client<paths> {
  return createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } });
}

function fail(response: Response, body: Schemas["Error"] | undefined): never {
  if (body) throw new HubError(response.status, body);
  throw new Error(`Hub answered ${response.status}`);
}

/** The page the person is on, as a turn's context: typed by the document, no cast. */
export type PageContext = NonNullable<Schemas["StartTurnRequest"]["context"]>;

/** Starts a conversation in the space and sends its first message (with the page it was sent from): the turn runs. */
export async function ask(
  hub: Client<paths>,
  spaceId: string,
  text: string,
  context: PageContext = { page: "tasks", selectedIds: [], surface: { view: "board", open: { kind: "task", id: "task_1" } } },
): Promise<Schemas["TurnStarted"] & { conversationId: string }> {
  const conv = await hub.POST("/api/assistant/conversations", { body: { spaceId, title: "From the typed client" } });
  if (!conv.data) fail(conv.response, conv.error);
  const conversationId: string = conv.data.id;
  const turn = await hub.POST("/api/assistant/conversations/{id}/turns", {
    params: { path: { id: conversationId } },
    body: { text, mentions: [], context },
  });
  if (!turn.data) fail(turn.response, turn.error);
  // A conversation can be renamed (one without a title takes its first message's).
  const renamed = await hub.PATCH("/api/assistant/conversations/{id}", {
    params: { path: { id: conversationId } },
    body: { title: "Typed client" },
  });
  if (!renamed.data) fail(renamed.response, renamed.error);
  return { ...turn.data, conversationId };
}

const running = new Set<Schemas["Turn"]["status"]>(["queued", "working", "waiting", "paused", "stopping"]);

/** Waits until the turn has ended (polling its status; a browser reads turn.streamUrl instead). */
export async function ended(hub: Client<paths>, turnId: string): Promise<Schemas["Turn"]> {
  for (;;) {
    const turn = await hub.GET("/api/assistant/turns/{turnId}", { params: { path: { turnId } } });
    if (!turn.data) fail(turn.response, turn.error);
    if (!running.has(turn.data.status)) return turn.data;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Applies every write the reply proposed and answers the receipts. */
export async function applyAll(hub: Client<paths>, conversationId: string, replyMessageId: string): Promise<Receipt[]> {
  const messages = await hub.GET("/api/assistant/conversations/{id}/messages", { params: { path: { id: conversationId } } });
  if (!messages.data) fail(messages.response, messages.error);
  const reply: Message | undefined = messages.data.messages.find((m) => m.id === replyMessageId);
  if (!reply) throw new Error(`no reply ${replyMessageId}`);
  const callIds = reply.proposals.filter((p) => p.heldFor === "apply").map((p) => p.callId);
  const applied = await hub.POST("/api/assistant/apply", { body: { conversationId, messageId: reply.id, callIds } });
  if (!applied.data) fail(applied.response, applied.error);
  return applied.data.receipts;
}

/** The receipts as they are saved on the reply's tool calls, after a reload. */
export async function receipts(hub: Client<paths>, conversationId: string, replyMessageId: string): Promise<Receipt[]> {
  const messages = await hub.GET("/api/assistant/conversations/{id}/messages", { params: { path: { id: conversationId } } });
  if (!messages.data) fail(messages.response, messages.error);
  const reply = messages.data.messages.find((m) => m.id === replyMessageId);
  return (reply?.toolCalls ?? []).flatMap((c) => (c.receipt ? [c.receipt] : []));
}

/** Undoes what a receipt did. */
export async function undo(hub: Client<paths>, receipt: Receipt): Promise<Schemas["UndoResult"] | undefined> {
  if (!receipt.undoGroupId) return undefined;
  const res = await hub.POST("/api/assistant/undo", { body: { undoGroupId: receipt.undoGroupId } });
  if (!res.data) fail(res.response, res.error);
  return res.data;
}

/** One stream event, parsed: the frame's data typed by its event type. */
export function turnEvent(id: string, event: string, data: string): TurnEvent {
  return { id: Number(id), event, data: JSON.parse(data) } as TurnEvent;
}

/** What a chat view does with each frame: the union narrows on event. */
export function describe(e: TurnEvent): string {
  switch (e.event) {
    case "refs":
      return `knows ${e.data.refs.map((r) => r.label).join(", ")}`;
    case "status":
      return `${e.data.status}${e.data.text ? `: ${e.data.text}` : ""}${e.data.discard ? " (drop the text since the last status)" : ""}`;
    case "text":
      return e.data.delta;
    case "tool":
      return `${e.data.tool} ${e.data.phase}${e.data.error ? `: ${e.data.error.message}` : ""}`;
    case "proposal":
      return e.data.calls.map((c) => `${c.tool}: ${c.preview}`).join("\n");
    case "turn_error":
    case "error":
      return `${e.data.code}: ${e.data.message}`;
    case "done":
      return `${e.data.status} after ${e.data.usage.inputTokens + e.data.usage.outputTokens} tokens`;
  }
}

/** The top bar from the activity stream: a snapshot replaces it, a change updates one entry. */
export function topBar(bar: Map<string, Schemas["Activity"]>, e: ActivityEvent): void {
  if ("activities" in e.data) {
    bar.clear();
    for (const a of e.data.activities) bar.set(a.id, a);
    return;
  }
  const a = e.data.activity;
  if (a.ended) bar.delete(a.id);
  else bar.set(a.id, a);
}

/** Reads a turn's stream in a browser (EventSource: the streamUrl carries its own token). */
export function follow(baseUrl: string, started: Schemas["TurnStarted"], onEvent: (e: TurnEvent) => void): EventSource {
  const source = new EventSource(new URL(started.streamUrl, baseUrl));
  const types: TurnEvent["event"][] = ["refs", "status", "text", "tool", "proposal", "turn_error", "done"];
  for (const type of types) {
    source.addEventListener(type, (m: MessageEvent<string>) => {
      const e = turnEvent(m.lastEventId, type, m.data);
      onEvent(e);
      if (e.event === "done") source.close();
    });
  }
  return source;
}

/** The whole path a frontend takes: ask, wait, apply, read the receipts back. */
export async function askAndApply(baseUrl: string, token: string, spaceId: string, text: string): Promise<Receipt[]> {
  const hub = hubClient(baseUrl, token);
  const started = await ask(hub, spaceId, text);
  const turn = await ended(hub, started.turnId);
  if (turn.status !== "done") throw new Error(`the turn ended ${turn.status}`);
  await applyAll(hub, started.conversationId, started.replyMessageId);
  return receipts(hub, started.conversationId, started.replyMessageId);
}
