// A turn from this tab: send starts one, follow streams its reply (and
// reads it again after a refused stream), Stop, Pause, Resume and Retry.

import { api } from "./api.js";
import type { DoneFrame, ProposalFrame, RefsFrame, StatusFrame, TextFrame, ToolFrame } from "./api.js";
import { upsertRow } from "./chat.js";
import type { View } from "./chat.js";
import { $ } from "./dom.js";
import { closeLive, session, state } from "./state.js";
import type { Live } from "./state.js";
import { loadConversations, showConvInURL } from "./conversations.js";
import { guard, loadMessages, renderChat, renderLive } from "./messages.js";
import { renderChips } from "./composer.js";
import { loadNeeds } from "./needs.js";

/** follow streams a reply into its view from the turn's stream URL (its frames from the first). */
export function follow(view: View, streamUrl: string, convId: string, sentAt = performance.now()): void {
  closeLive();
  // Frames from the first rebuild the whole reply.
  Object.assign(view, { text: "", rows: [], proposals: [], error: undefined, status: "running", step: { text: "Working…", since: Date.now() } });
  const es = new EventSource(streamUrl);
  const live: Live = { view, es, convId, mark: 0, sentAt, gotText: false };
  state.live = live;
  const on = <T>(type: string, f: (d: T) => void) => es.addEventListener(type, (e) => {
    if (state.live !== live) return;
    state.refusals = 0;
    f(JSON.parse((e as MessageEvent).data) as T);
    renderLive();
  });
  on<RefsFrame>("refs", (d) => { view.refs = d.refs; });
  on<StatusFrame>("status", (d) => {
    // The person's pause or stop: the step's text goes on (no new mark).
    if (d.status === "paused" || d.status === "stopping") {
      view.paused = d.status === "paused";
      view.step = { text: d.text || statusWord(d.status), since: Date.now() };
      return;
    }
    // A resumed call's first frame: the turn runs again.
    if (d.discard || d.resumed) view.paused = false;
    if (d.reset) Object.assign(view, { text: "", rows: [], proposals: [], error: undefined });
    else if (d.discard) view.text = view.text.slice(0, live.mark);
    live.mark = view.text.length;
    view.step = { text: d.text || statusWord(d.status), since: Date.now() };
  });
  on<TextFrame>("text", (d) => {
    if (!live.gotText) {
      live.gotText = true;
      performance.measure("hub:first-text", { start: live.sentAt, end: performance.now() });
    }
    view.text += d.delta;
    // The step's seconds count the wait for output: they start again with each delta.
    view.step = { text: "Writing…", since: Date.now() };
  });
  on<ToolFrame>("tool", (d) => upsertRow(view, d));
  on<ProposalFrame>("proposal", (d) => { view.proposals = d.calls; });
  on<{ code: string; message: string }>("turn_error", (d) => { view.error = d; });
  on<DoneFrame>("done", (d) => {
    es.close();
    view.status = d.status;
    view.step = undefined;
    view.paused = false;
    if (d.refs) view.refs = d.refs;
    state.live = null;
    state.poolStale = true; // the reply may have made or changed records the @-menu offers
    sessionStorage.removeItem("hub.stream." + view.turnId);
    if (view.proposals.length) void loadNeeds();
    if (d.deleted) void loadConversations();
    else if (state.convId === convId) void loadMessages();
  });
  es.addEventListener("error", () => {
    // EventSource reconnects by itself with Last-Event-ID; a refused
    // reconnect (the token expired, the turn is gone) closes it.
    // The stored URL is dropped (its token is no good), and the reply is
    // read again after a wait: still running, it gets a stream token of
    // its own (once), and each refusal in a row doubles the wait.
    if (es.readyState === EventSource.CLOSED && state.live === live) {
      state.live = null;
      // Dropped only when the wait is over: a tab being reloaded closes
      // its EventSource too, and must keep the URL.
      retryLater(convId, () => sessionStorage.removeItem("hub.stream." + view.turnId));
    }
  });
  renderChat(true);
}

/** retryLater reads the conversation's messages again after a wait: 1 s, doubling with each refusal in a row, at most 30 s. */
export function retryLater(convId: string, first?: () => void): void {
  clearTimeout(state.retryTimer);
  const wait = Math.min(30_000, 1000 * 2 ** state.refusals);
  state.refusals++;
  state.retryTimer = setTimeout(() => {
    first?.();
    if (state.convId === convId && !state.live) void loadMessages();
  }, wait);
}

/** statusWord is the step text for a turn's status (a status frame without text of its own, or a control's answer). */
export function statusWord(s: string): string {
  return ({ working: "Thinking…", queued: "Queued…", paused: "Paused", stopping: "Stopping…", waiting: "Waiting…", retrying: "Trying again…" } as Record<string, string>)[s] ?? s;
}

/** send sends a message (making the conversation first when none is open) and follows its reply. */
export async function send(text: string): Promise<void> {
  const mentions = state.pending.map((r) => ({ kind: r.kind, id: r.id }));
  const s = session, spaceId = state.spaceId, shown = state.convId;
  // moved: the person opened another conversation (or space) while this was sent. Its reply is then
  // left to the conversation's own reload when they come back (its stream URL kept); the views, the
  // input and the live reply of the one shown now are not this message's.
  const moved = (convId: string | null) => s !== session || state.spaceId !== spaceId || state.convId !== convId;
  await guard("send", async () => {
    let convId = state.convId;
    if (!convId) {
      const c = await api.createConversation(spaceId, text.slice(0, 60));
      if (moved(shown)) { if (s === session) void loadConversations(); return; }
      convId = c.id;
      state.convId = convId;
      showConvInURL(convId);
      await loadConversations();
      if (moved(convId)) return;
    }
    const sentAt = performance.now();
    const st = await api.startTurn(convId, text, mentions, state.files.map((f) => f.id), { model: state.turnModel, effort: state.turnEffort });
    if (s !== session) return;
    sessionStorage.setItem("hub.stream." + st.turnId, st.streamUrl);
    if (moved(convId)) return;
    const input = $("input") as HTMLTextAreaElement;
    input.value = "";
    const userView: View = { id: st.messageId, turnId: st.turnId, role: "user", text, status: "done", mentions: [...state.pending, ...state.files], refs: [], rows: [], proposals: [], receipts: [] };
    state.pending = [];
    state.files = [];
    renderChips();
    const reply: View = { id: st.replyMessageId, turnId: st.turnId, role: "assistant", text: "", status: "running", mentions: [], refs: [], rows: [], proposals: [], receipts: [] };
    state.views.push(userView, reply);
    follow(reply, st.streamUrl, convId, sentAt);
  });
}

/** stopTurn stops the streaming reply's turn. */
export async function stopTurn(): Promise<void> {
  const live = state.live;
  if (!live) return;
  await guard("stop", async () => {
    const r = await api.stop(live.view.turnId);
    if (state.live !== live) return;
    live.view.step = { text: statusWord(r.status), since: Date.now() };
    renderLive();
  });
}

/** controlTurn pauses or resumes one reply's turn (the top bar does it for all of them). */
export async function controlTurn(v: View, what: "pause" | "resume"): Promise<void> {
  await guard("control:" + v.turnId, async () => {
    const r = await (what === "pause" ? api.pause(v.turnId) : api.resume(v.turnId));
    if (state.live?.view !== v) return;
    v.paused = r.status === "paused";
    v.step = { text: statusWord(r.status), since: Date.now() };
    renderLive();
  });
}

/** retryTurn runs an error turn again and follows it in the same view. */
export async function retryTurn(v: View): Promise<void> {
  const convId = state.convId, s = session;
  if (!convId) return;
  await guard("retry:" + v.turnId, async () => {
    const r = await api.retry(v.turnId);
    if (s !== session) return;
    sessionStorage.setItem("hub.stream." + r.turnId, r.streamUrl);
    // Another conversation opened meanwhile: this one's reload follows the retried turn when the person comes back.
    if (state.convId !== convId || !state.views.includes(v)) return;
    v.turnId = r.turnId;
    follow(v, r.streamUrl, convId);
  });
}
