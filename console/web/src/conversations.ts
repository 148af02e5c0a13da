// The conversations: the space's list, the open one and its address
// (#/c/<conversationId>), new, delete, and switching spaces.

import { api, ApiError } from "./api.js";
import type { Conversation } from "./api.js";
import { $, focusKey, h, replace, restoreFocus } from "./dom.js";
import { closeLive, session, state } from "./state.js";
import { errorText, notice } from "./notice.js";
import { guard, loadMessages, renderChat } from "./messages.js";
import { renderChips } from "./composer.js";
import { showChat } from "./agents.js";

/** convInURL is the conversation the address names (#/c/<id>), or null. */
export function convInURL(): string | null {
  const m = location.hash.match(/^#\/c\/([^/?#]+)$/);
  return m ? decodeURIComponent(m[1]) : null;
}

/** showConvInURL puts the open conversation in the address (a new history entry when the person opened it). */
export function showConvInURL(id: string | null, push = true): void {
  const want = id ? `#/c/${encodeURIComponent(id)}` : "";
  if (location.hash === want || (!id && !location.hash)) return;
  const url = location.pathname + location.search + want;
  if (push) history.pushState(null, "", url); else history.replaceState(null, "", url);
}

/** openFromURL opens the conversation the address names, in its own space (GET /api/assistant/conversations/:id says which). */
export async function openFromURL(id: string): Promise<void> {
  const s = session;
  const conv = await api.conversation(id).catch((e) => {
    if (!(e instanceof ApiError && e.status === 404)) throw e;
    return null;
  });
  if (s !== session) return;
  if (!conv) {
    notice("That conversation is not there: it was deleted, or it is not yours.");
    showConvInURL(state.convId, false);
    return;
  }
  if (conv.spaceId !== state.spaceId) {
    await switchSpace(conv.spaceId);
    if (s !== session) return;
  } else if (!state.convs.some((c) => c.id === id)) {
    // Made since the list was read (in another tab, say).
    await loadConversations();
    if (s !== session) return;
  }
  await openConversation(id, false);
}

/** switchSpace opens a space: its conversations, none of them open, and the composer without the last space's mentions and files. */
export async function switchSpace(id: string): Promise<void> {
  showChat();
  state.spaceId = id;
  sessionStorage.setItem("hub.space", id);
  const select = document.getElementById("space") as HTMLSelectElement | null;
  if (select) select.value = id;
  state.pool = null;
  state.spaceFiles = null;
  // What the composer holds belongs to the space left: mentions, files, the space's file list.
  state.pending = [];
  state.files = [];
  renderChips();
  const files = document.getElementById("space-files") as HTMLDetailsElement | null;
  if (files) { files.open = false; replace($("space-file-list")); }
  closeLive();
  clearTimeout(state.retryTimer);
  state.refusals = 0;
  state.convId = null;
  state.views = [];
  showConvInURL(null, false);
  await loadConversations();
  renderChat();
}

/** loadConversations reads the space's conversations and draws the list. */
export async function loadConversations(): Promise<void> {
  if (!state.spaceId) return;
  const s = session, spaceId = state.spaceId;
  try {
    const convs = (await api.conversations(spaceId)).conversations;
    if (s !== session || spaceId !== state.spaceId) return;
    state.convs = convs;
  } catch (e) {
    if (s !== session) return;
    notice(errorText(e));
  }
  renderConversations();
}

function renderConversations(): void {
  const list = document.getElementById("conv-list");
  if (!list) return;
  const focused = focusKey(list);
  replace(list, state.convs.map((c) => h("li", { class: c.id === state.convId ? "current" : "", "data-conv": c.id },
    // A link to the conversation's own address (a new tab opens it too); a plain click opens it here.
    h("a", { class: "conv-open", href: `#/c/${encodeURIComponent(c.id)}`, "aria-current": c.id === state.convId ? "page" : null, onclick: (e: Event) => {
      const m = e as MouseEvent;
      if (m.ctrlKey || m.metaKey || m.shiftKey || m.button !== 0) return;
      e.preventDefault();
      void openConversation(c.id);
    } }, c.title || "Untitled"),
    h("button", { type: "button", class: "conv-delete", "aria-label": `Delete “${c.title || "Untitled"}”`, title: "Delete", onclick: () => void deleteConversation(c) }, "×"))));
  if (focused) restoreFocus(list, focused, $("new-conv"));
}

/** newConversation shows an empty chat; the first message sent makes the conversation. */
export function newConversation(byPerson = true): void {
  showChat();
  closeLive();
  state.convId = null;
  state.views = [];
  showConvInURL(null, byPerson);
  renderConversations();
  renderChat();
  if (byPerson) $("input").focus();
}

/** openConversation shows a conversation; opened by the person (byPerson), the focus moves to its heading. */
export async function openConversation(id: string, byPerson = true): Promise<void> {
  showChat();
  closeLive();
  state.convId = id;
  showConvInURL(id, byPerson);
  renderConversations();
  const conv = state.convs.find((c) => c.id === id);
  if (conv) $("chat-title").textContent = conv.title || "Untitled";
  if (byPerson) $("chat-title").focus();
  await loadMessages();
}

async function deleteConversation(c: Conversation): Promise<void> {
  await guard("delete:" + c.id, async () => {
    await api.deleteConversation(c.id);
    if (state.convId === c.id) newConversation();
    notice(`Deleted “${c.title || "Untitled"}”.`);
    await loadConversations();
  });
}
