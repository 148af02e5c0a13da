// The open conversation's messages: read from the api, drawn with chat.ts
// (the streaming reply alone as it changes), and guard, which runs a
// person's action one at a time with its control drawn busy.

import { api, ApiError } from "./api.js";
import type { Message } from "./api.js";
import { fromMessage, renderView, stepText } from "./chat.js";
import type { Actions } from "./chat.js";
import { $, focusKey, h, replace, restoreFocus } from "./dom.js";
import { session, state } from "./state.js";
import { errorText, notice } from "./notice.js";
import { signIn } from "./signin.js";
import { follow, retryLater, retryTurn } from "./turns.js";
import { applyView, noteUndoStates, undo } from "./proposals.js";
import { renderComposerState } from "./composer.js";

/**
 * guard runs the person's action f one at a time per key: its control is drawn busy meanwhile,
 * a failure is a notice (a 401 signs the tab out), and none when the person signed out meanwhile.
 */
export async function guard<T>(key: string, f: () => Promise<T>): Promise<T | undefined> {
  if (state.busy.has(key)) return undefined;
  const s = session;
  // The element the person acted on is drawn again (disabled while busy): focus goes back to its replacement.
  const box = document.getElementById("messages");
  const focused = box ? focusKey(box) : null;
  state.busy.add(key);
  renderChat();
  try {
    return await f();
  } catch (e) {
    if (s !== session) return undefined;
    if (e instanceof ApiError && e.status === 401) { signIn("Your session has ended: sign in again."); return undefined; }
    notice(errorText(e));
    return undefined;
  } finally {
    if (s === session) {
      state.busy.delete(key);
      renderChat();
      // While busy the focus may have gone to the article (the button was disabled): back to the button's replacement now.
      const at = document.activeElement;
      const parked = !at || at === document.body || at.tagName === "ARTICLE" || at.id === "chat-title";
      if (box && focused && parked && document.getElementById("messages") === box) restoreFocus(box, focused, undefined, true);
    }
  }
}

/** loadMessages reads the open conversation's messages, draws them, and follows a reply still running. */
export async function loadMessages(): Promise<void> {
  const id = state.convId;
  if (!id) return;
  const s = session;
  let messages: Message[];
  try {
    messages = (await api.messages(id)).messages;
  } catch (e) {
    if (s !== session) return;
    notice(errorText(e));
    return;
  }
  if (s !== session || state.convId !== id) return;
  noteUndoStates(messages);
  // The reply this tab streams stays the view it streams into.
  const live = state.live;
  const views = messages.map((m) => (live && live.view.id === m.id ? live.view : fromMessage(m)));
  const opened = state.views.length === 0 || state.views[0].id !== views[0]?.id;
  state.views = views;
  renderChat(opened);
  // A reply still running is followed from its first frame: after a
  // reload with the stream URL this tab was given; started in another tab
  // (or the URL lost), with a stream token of its own for the turn.
  const running = views.find((v) => v.role === "assistant" && v.status === "running");
  // A stream URL kept for a reply that ended (not with done in this tab) is no use any more.
  for (const v of views) if (v.turnId !== running?.turnId) sessionStorage.removeItem("hub.stream." + v.turnId);
  if (!running || state.live) return;
  let url = sessionStorage.getItem("hub.stream." + running.turnId);
  if (!url) {
    try {
      url = (await api.turnStreamToken(running.turnId)).streamUrl;
    } catch (e) {
      // It ended meanwhile (or is gone): the next activity redraws it. Hub
      // cannot be reached: try again later.
      if (s === session && (!(e instanceof ApiError) || e.status === 0 || e.status >= 500)) retryLater(id);
      return;
    }
    if (s !== session || state.convId !== id || state.live) return;
    sessionStorage.setItem("hub.stream." + running.turnId, url);
  }
  follow(running, url, id);
}

const actions: Actions = {
  apply: (v, o) => void applyView(v, o),
  undo: (gid) => void undo(gid),
  retry: (v) => void retryTurn(v),
  canRetry: (v) => state.views[state.views.length - 1] === v,
  isUndone: (gid) => state.undone.has(gid),
  folded: (id) => state.folds.get(id),
  fold: (id, open) => { state.folds.set(id, open); },
  busy: (key) => state.busy.has(key),
};

/** renderChat redraws the messages, keeping the scroll position unless the person was at the bottom (or toBottom). */
export function renderChat(toBottom = false): void {
  const box = document.getElementById("messages");
  if (!box) return;
  const keep = box.scrollTop;
  const atBottom = toBottom || box.scrollHeight - box.scrollTop - box.clientHeight < 40;
  const conv = state.convs.find((c) => c.id === state.convId);
  $("chat-title").textContent = conv ? conv.title || "Untitled" : "New conversation";
  const focused = focusKey(box);
  replace(box, state.views.length ? state.views.map((v) => renderView(v, state.live?.view === v, actions))
    : h("p", { class: "empty" }, "Ask Hub something — “add a task called Water the plants”, or “list my tasks”. Type @ to mention a record."));
  if (focused) restoreFocus(box, focused, $("chat-title"));
  box.scrollTop = atBottom ? box.scrollHeight : keep;
  renderComposerState();
}

/** renderLive redraws the streaming reply alone. */
export function renderLive(): void {
  const live = state.live;
  if (!live) return;
  const box = $("messages");
  // Follow the stream while the person is at the bottom; leave them
  // where they are when they scrolled up to read.
  const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
  const old = document.getElementById(`msg-${live.view.id}`);
  const el = renderView(live.view, true, actions);
  if (old) {
    const focused = focusKey(box);
    old.replaceWith(el);
    if (focused) restoreFocus(box, focused, $("chat-title"));
  } else renderChat();
  renderComposerState();
  if (atBottom) box.scrollTop = box.scrollHeight;
}

setInterval(() => {
  const v = state.live?.view;
  if (!v?.step) return;
  const el = document.getElementById(`step-${v.id}`);
  if (el) el.textContent = stepText(v, Date.now());
}, 1000);
