// The chat: messages as views, a reply's frames folded into its view, and
// the view drawn as DOM. state.ts holds the state; messages.ts and turns.ts
// read the views and stream them.

import type { ErrorBody, Message, ProposedCall, Receipt, Ref, ToolFrame } from "./api.js";
import { h } from "./dom.js";

/** Row is one tool call of a reply, as its frames or its saved call say. */
export interface Row { callId: string; tool: string; phase: string; summary?: string; error?: ErrorBody; refs: Ref[]; undoGroupId?: string }

/** ProposalView is a held write: from the proposal frame, or saved (with what became of it). */
export type ProposalView = ProposedCall & { heldFor?: string; status?: string };

/** ApplyOptions are what an Apply asks besides the message: which calls, and what to send again. */
export interface ApplyOptions { callIds?: string[]; retryInterrupted?: boolean; resendUnknown?: boolean }

/** View is a message as the chat draws it; a streaming reply's fills up frame by frame. */
export interface View {
  id: string; turnId: string; role: "user" | "assistant"; text: string; status: string;
  mentions: Ref[]; refs: Ref[]; rows: Row[]; proposals: ProposalView[]; receipts: Receipt[];
  error?: ErrorBody;
  /** paused: the streaming reply's turn is paused (from its Pause, or the top bar's). */
  paused?: boolean;
  /** step is the step in progress while the reply streams ("Thinking…"), since when. */
  step?: { text: string; since: number };
}

export function fromMessage(m: Message): View {
  return {
    id: m.id, turnId: m.turnId, role: m.role, text: m.text, status: m.status,
    mentions: m.mentions ?? [], refs: m.refs ?? [],
    rows: (m.toolCalls ?? []).map((c) => ({ callId: c.id, tool: c.tool, phase: c.status, summary: c.summary, error: c.error, refs: c.refs ?? [], undoGroupId: c.undoGroupId })),
    proposals: m.proposals ?? [],
    receipts: (m.toolCalls ?? []).flatMap((c) => (c.receipt ? [c.receipt] : [])),
    error: m.error,
  };
}

export function upsertRow(v: View, f: ToolFrame): void {
  const row: Row = { callId: f.callId, tool: f.tool, phase: f.phase, summary: f.summary, error: f.error, refs: f.refs ?? [], undoGroupId: f.undoGroupId };
  const i = v.rows.findIndex((r) => r.callId === f.callId);
  if (i < 0) v.rows.push(row);
  else v.rows[i] = { ...v.rows[i], ...row, summary: f.summary ?? v.rows[i].summary, refs: f.refs ?? v.rows[i].refs };
}

/** Actions are what the buttons of a view do; main.ts implements them. */
export interface Actions {
  apply(v: View, o?: ApplyOptions): void;
  undo(groupId: string): void;
  retry(v: View): void;
  /** canRetry: an error reply is retried from the chat while nothing came after it. */
  canRetry(v: View): boolean;
  isUndone(groupId: string): boolean;
  /** folded says whether the person opened (true) or closed (false) a fold; undefined: neither. */
  folded(viewId: string): boolean | undefined;
  fold(viewId: string, open: boolean): void;
  busy(key: string): boolean;
}

const phaseWord: Record<string, string> = { started: "Running", done: "Done", failed: "Failed", held: "Held for Apply" };

/** foldLine is the one line finished calls fold behind: "8 steps · 1 change · 1 failed". */
export function foldLine(v: View): { line: string; failed: number } {
  const steps = v.rows.length;
  const changes = v.rows.filter((r) => r.phase === "done" && r.undoGroupId).length + v.receipts.filter((r) => r.status === "succeeded").length;
  const failed = v.rows.filter((r) => r.phase === "failed").length + v.receipts.filter((r) => r.status === "failed").length;
  const parts = [`${steps} ${steps === 1 ? "step" : "steps"}`];
  if (changes) parts.push(`${changes} ${changes === 1 ? "change" : "changes"}`);
  if (failed) parts.push(`${failed} failed`);
  return { line: parts.join(" · "), failed };
}

export function stepText(v: View, now: number): string {
  if (!v.step) return "";
  const secs = Math.floor((now - v.step.since) / 1000);
  return secs >= 3 ? `${v.step.text} ${secs}s` : v.step.text;
}

export function renderView(v: View, live: boolean, a: Actions): HTMLElement {
  if (v.role === "user") {
    return h("article", { class: "msg user", id: `msg-${v.id}`, "aria-label": "You" },
      v.mentions.length ? h("div", { class: "chips", role: "group", "aria-label": "Mentions" }, v.mentions.map(sentChip)) : null,
      h("p", { class: "text" }, v.text));
  }
  // aria-busy while it streams: a screen reader reads the reply once it is done, not again at every frame.
  const el = h("article", { class: "msg assistant", id: `msg-${v.id}`, "aria-label": "Hub", "data-status": v.status, "data-turn": v.turnId, "aria-busy": live ? "true" : null });
  if (v.rows.length) {
    const list = h("ul", { class: "rows" }, v.rows.map((r) => renderRow(r, a)));
    if (live) el.append(list);
    else {
      const { line, failed } = foldLine(v);
      const d = h("details", { class: "fold", open: a.folded(v.id) ?? failed > 0 }, h("summary", {}, line), list);
      d.addEventListener("toggle", () => a.fold(v.id, d.open));
      el.append(d);
    }
  }
  if (live && v.step) el.append(h("p", { class: "step", id: `step-${v.id}` }, stepText(v, Date.now())));
  if (v.text) el.append(h("div", { class: "text" }, linkRefs(v.text, v.refs)));
  const refs = v.refs.filter((r) => r.kind !== "skill");
  if (refs.length && !live) el.append(h("p", { class: "refs" }, "Records: ", refs.map((r) => [refLink(r), " "])));
  if (v.proposals.length) el.append(renderProposals(v, a));
  if (v.receipts.length) el.append(renderReceipts(v, a));
  if (v.error) {
    el.append(h("div", { class: "turn-error", role: "alert" }, h("p", {}, v.error.message),
      v.status === "error" && v.turnId && a.canRetry(v) ? h("button", { type: "button", class: "retry-turn", disabled: a.busy("retry:" + v.turnId), onclick: () => a.retry(v) }, "Retry") : null));
  }
  if (v.status === "stopped") el.append(h("p", { class: "note" }, "Stopped."));
  return el;
}

function renderRow(r: Row, a: Actions): HTMLElement {
  return h("li", { class: `row phase-${r.phase}`, "data-call": r.callId },
    h("span", { class: "phase" }, phaseWord[r.phase] ?? r.phase), " ",
    h("span", { class: "tool", title: r.tool }, toolLabel(r.tool)), " ",
    h("span", { class: "summary" }, r.error ? `${r.summary ? r.summary + " — " : ""}${r.error.message}` : (r.summary ?? "")),
    r.refs.length ? h("span", { class: "row-refs" }, " ", r.refs.map((x) => [refLink(x), " "])) : null,
    r.phase === "done" && r.undoGroupId ? undoButton(r.undoGroupId, a) : null);
}

function undoButton(gid: string, a: Actions): HTMLElement {
  const undone = a.isUndone(gid);
  return h("button", { type: "button", class: undone ? "redo" : "undo", disabled: a.busy("undo:" + gid), onclick: () => a.undo(gid) }, undone ? "Redo" : "Undo");
}

/** receiptState is what became of an applied call now: its receipt's status, "undone" once its Undo ran. */
function receiptState(r: { status: string; undoGroupId?: string }, a: Actions): string {
  return r.status === "succeeded" && r.undoGroupId && a.isUndone(r.undoGroupId) ? "undone" : r.status;
}

function renderProposals(v: View, a: Actions): HTMLElement {
  const receipts = new Map(v.receipts.map((r) => [r.callId, r]));
  const applied = new Set(v.receipts.filter((r) => r.status === "succeeded").map((r) => r.callId));
  const open = (p: ProposalView) => !applied.has(p.callId) && (!p.status || p.status === "held" || p.status === "waiting" || p.status === "pending");
  const waiting = v.proposals.filter(open);
  const busy = a.busy("apply:" + v.id);
  // The card says what is true now: what still waits for Apply, and what became of the rest.
  const hint = waiting.length === v.proposals.length ? "Nothing changes until you apply."
    : waiting.length ? `${v.proposals.length - waiting.length} of ${v.proposals.length} done; the rest change nothing until you apply.`
    : applied.size && [...applied].every((id) => receiptState(receipts.get(id)!, a) === "undone") ? "Applied, then undone: nothing of it stays."
    : applied.size ? "Applied: the receipts below say what changed." : "Nothing waits for Apply here any more.";
  const badge = (p: ProposalView) => {
    const r = receipts.get(p.callId);
    if (r && applied.has(p.callId)) return receiptState(r, a) === "undone" ? h("span", { class: "badge" }, "Applied, then undone") : h("span", { class: "badge ok" }, "Applied");
    return h("span", { class: "badge" }, r ? r.status : (p.status ?? ""));
  };
  return h("section", { class: "proposal", "data-waiting": String(waiting.length) },
    h("h2", {}, waiting.length ? "Proposed changes" : "Proposed changes (done)"),
    h("p", { class: "hint proposal-state" }, hint),
    h("ul", {}, v.proposals.map((p) => h("li", { "data-call": p.callId },
      h("span", { class: "preview" }, p.preview), " ",
      open(p) ? h("button", { type: "button", class: "apply-one", disabled: busy, onclick: () => a.apply(v, { callIds: [p.callId] }) }, "Apply") : badge(p)))),
    waiting.length > 1 ? h("button", { type: "button", class: "apply-all", disabled: busy, onclick: () => a.apply(v) }, "Apply all") : null);
}

function renderReceipts(v: View, a: Actions): HTMLElement {
  const unfinished = v.receipts.some((r) => r.status === "failed" || r.status === "unattempted" || (r.steps ?? []).some((s) => s.status !== "succeeded"));
  return h("section", { class: "receipts" },
    h("h2", {}, "Receipts"),
    h("ul", {}, v.receipts.map((r) => h("li", { class: `receipt status-${receiptState(r, a)}`, "data-call": r.callId },
      h("span", { class: "badge" }, receiptState(r, a)), " ",
      h("span", { class: "summary" }, r.error ? r.error.message : (r.summary ?? toolLabel(r.tool))),
      r.undoGroupId && r.status === "succeeded" ? [" ", undoButton(r.undoGroupId, a)] : null,
      // The outcome of an outside write is unknown (it may have reached the
      // app): sent again only when the person says so.
      r.status === "unknown" ? [" ", h("button", { type: "button", class: "resend-unknown", disabled: a.busy("apply:" + v.id),
        title: "The app may have done it already: check it first", onclick: () => a.apply(v, { callIds: [r.callId], resendUnknown: true }) }, "Send again")] : null,
      r.steps?.length ? h("ol", { class: "steps" }, r.steps.map((s, i) => h("li", { class: `status-${receiptState(s, a)}`, "data-step": String(i) },
        `${receiptState(s, a)}: ${s.error ? s.error.message : (s.summary ?? toolLabel(s.tool))} `,
        s.undoGroupId && s.status === "succeeded" ? undoButton(s.undoGroupId, a) : null))) : null))),
    unfinished ? h("button", { type: "button", class: "retry-steps", disabled: a.busy("apply:" + v.id), onclick: () => a.apply(v, { retryInterrupted: true }) }, "Retry remaining steps") : null);
}

/** chip is a mention or file the composer holds (not sent yet). */
export function chip(r: Ref): HTMLElement {
  return h("span", { class: `chip kind-${r.kind}`, title: r.kind }, `@${r.label}`);
}

/** sentChip is a sent message's mention or file: a link that opens the record panel (a file's has its download). */
export function sentChip(r: Ref): HTMLElement {
  const a = refLink(r);
  a.classList.add("chip");
  a.textContent = `@${r.label}`;
  return a;
}

const toolWords: Record<string, string> = {
  hub_run_workflow: "Run a workflow", hub_view_file: "View a file", hub_read_web_page: "Read a web page", hub_web_search: "Search the web",
  hub_find_tools: "Find tools", hub_read_skill: "Read a skill", hub_how_to: "Look up how to", hub_update_settings: "Update settings",
};

/**
 * toolLabel is a tool's name as people read it: "hub_list_tasks" is "List
 * tasks"; a connected app's "mcp_<id>_get_weather" is "Get weather" (the
 * api's tool definitions have no titles; the name stays in the row's title).
 */
export function toolLabel(name: string): string {
  if (toolWords[name]) return toolWords[name];
  const words = name.replace(/^hub_/, "").replace(/^mcp_[A-Za-z0-9]+_/, "").replace(/[_-]+/g, " ").trim();
  return words ? words[0].toUpperCase() + words.slice(1) : name;
}

/**
 * refLink is a record as a link by its title; a click opens the record panel (record.ts, through main.ts).
 * passage is the key of a file's passage a reply cites (hub://file/<id>#<key>): the panel shows it.
 */
export function refLink(r: Ref, passage?: string): HTMLElement {
  return h("a", { class: `ref kind-${r.kind}`, href: `#ref/${r.kind}/${encodeURIComponent(r.id)}`, "data-space": r.spaceId, "data-detail": r.detail,
    "data-passage": passage, title: passage ? `${r.kind}: the passage cited` : r.detail ? `${r.kind}: ${r.detail}` : r.kind }, r.label);
}

const hubLink = /\[([^\]]+)\]\(hub:\/\/([a-z]+)\/([^)\s]+)\)|hub:\/\/([a-z]+)\/([A-Za-z0-9_-]+)/g;

/** linkRefs shows the records a reply names by hub:// link as links by their title. */
function linkRefs(text: string, refs: Ref[]): (string | HTMLElement)[] {
  const out: (string | HTMLElement)[] = [];
  let last = 0;
  for (const m of text.matchAll(hubLink)) {
    const kind = m[2] ?? m[4];
    const [id, passage] = (m[3] ?? m[5]).split("#", 2);
    const known = refs.find((r) => r.kind === kind && r.id === id);
    out.push(text.slice(last, m.index));
    out.push(refLink(known ?? { kind, id, label: m[1] ?? id }, passage));
    last = (m.index ?? 0) + m[0].length;
  }
  out.push(text.slice(last));
  return out;
}
