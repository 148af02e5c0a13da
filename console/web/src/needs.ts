// Needs me: the writes held for the person, with Open and Apply, and the
// replies that wait for Apply in their own conversation.

import { api } from "./api.js";
import type { NeedsMeItem } from "./api.js";
import { $, focusKey, h, replace, restoreFocus } from "./dom.js";
import { session, state, topbar } from "./state.js";
import { errorText, notice } from "./notice.js";
import { openConversation, openFromURL, switchSpace } from "./conversations.js";
import { guard, loadMessages } from "./messages.js";

/** loadNeeds reads the Needs me list and draws it. */
export async function loadNeeds(): Promise<void> {
  // A failed read says so with Retry (the list as last read stays under it).
  const s = session;
  try {
    const items = (await api.needsMe()).items;
    if (s !== session) return;
    state.needs = items;
    state.needsError = "";
  } catch (e) {
    if (s !== session) return;
    state.needsError = `The Needs me list could not be read: ${errorText(e)}`;
  }
  renderNeeds();
}

/**
 * renderNeeds draws what waits for the person: the writes held for the
 * Needs me list (GET /api/assistant/needs-me), and the replies whose writes
 * wait for Apply in their own conversation (the top bar's Waiting, from the
 * activity stream), so the pill and this list agree.
 */
export function renderNeeds(): void {
  const list = document.getElementById("needs-list");
  if (!list) return;
  const focused = focusKey(list);
  const applies = topbar?.waiting() ?? [];
  replace(list, state.needsError ? h("li", { class: "needs-error", role: "alert" }, h("span", { class: "error" }, state.needsError), " ",
      h("button", { type: "button", id: "needs-retry", onclick: () => void loadNeeds() }, "Retry")) : null,
    state.needs.map((n) => h("li", { "data-call": n.callId },
      h("span", { class: "preview" }, n.preview), " ",
      h("button", { type: "button", class: "needs-open", onclick: () => void openNeed(n) }, "Open"), " ",
      h("button", { type: "button", class: "needs-apply", onclick: () => void applyNeed(n) }, "Apply"))),
    applies.map((a) => h("li", { class: "needs-waiting", "data-message": a.id },
      h("span", { class: "preview" }, a.title), " ", h("span", { class: "hint" }, "waits for Apply in its conversation."), " ",
      h("button", { type: "button", class: "needs-open", onclick: () => void openFromURL(a.conversationId) }, "Open"))),
    state.needs.length || applies.length || state.needsError ? null : h("li", { class: "empty" }, "Nothing waits for you."));
  if (focused) restoreFocus(list, focused, $("needs-title"));
}

/** openNeed opens a Needs me item's conversation, in its own space (the list is the person's, across their spaces). */
async function openNeed(n: NeedsMeItem): Promise<void> {
  const s = session;
  if (n.spaceId && n.spaceId !== state.spaceId && state.spaces.some((x) => x.id === n.spaceId)) {
    await switchSpace(n.spaceId);
    if (s !== session) return;
  }
  await openConversation(n.conversationId);
}

async function applyNeed(n: NeedsMeItem): Promise<void> {
  await guard("apply:" + n.messageId, async () => {
    const s = session;
    const r = await api.apply(n.conversationId, n.messageId, { callIds: [n.callId] });
    if (s !== session) return;
    notice(`Applied: ${r.receipts.map((x) => x.summary ?? x.status).join("; ")}`);
    await loadNeeds();
    if (state.convId === n.conversationId) await loadMessages();
  });
}
