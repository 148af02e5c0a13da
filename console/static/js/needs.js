import { api } from "./api.js";
import { $, focusKey, h, replace, restoreFocus } from "./dom.js";
import { session, state, topbar } from "./state.js";
import { errorText, notice } from "./notice.js";
import { openConversation, openFromURL, switchSpace } from "./conversations.js";
import { guard, loadMessages } from "./messages.js";
export async function loadNeeds() {
    const s = session;
    try {
        const items = (await api.needsMe()).items;
        if (s !== session)
            return;
        state.needs = items;
        state.needsError = "";
    }
    catch (e) {
        if (s !== session)
            return;
        state.needsError = `The Needs me list could not be read: ${errorText(e)}`;
    }
    renderNeeds();
}
export function renderNeeds() {
    const list = document.getElementById("needs-list");
    if (!list)
        return;
    const focused = focusKey(list);
    const applies = topbar?.waiting() ?? [];
    replace(list, state.needsError ? h("li", { class: "needs-error", role: "alert" }, h("span", { class: "error" }, state.needsError), " ", h("button", { type: "button", id: "needs-retry", onclick: () => void loadNeeds() }, "Retry")) : null, state.needs.map((n) => h("li", { "data-call": n.callId }, h("span", { class: "preview" }, n.preview), " ", h("button", { type: "button", class: "needs-open", onclick: () => void openNeed(n) }, "Open"), " ", h("button", { type: "button", class: "needs-apply", onclick: () => void applyNeed(n) }, "Apply"))), applies.map((a) => h("li", { class: "needs-waiting", "data-message": a.id }, h("span", { class: "preview" }, a.title), " ", h("span", { class: "hint" }, "waits for Apply in its conversation."), " ", h("button", { type: "button", class: "needs-open", onclick: () => void openFromURL(a.conversationId) }, "Open"))), state.needs.length || applies.length || state.needsError ? null : h("li", { class: "empty" }, "Nothing waits for you."));
    if (focused)
        restoreFocus(list, focused, $("needs-title"));
}
async function openNeed(n) {
    const s = session;
    if (n.spaceId && n.spaceId !== state.spaceId && state.spaces.some((x) => x.id === n.spaceId)) {
        await switchSpace(n.spaceId);
        if (s !== session)
            return;
    }
    await openConversation(n.conversationId);
}
async function applyNeed(n) {
    await guard("apply:" + n.messageId, async () => {
        const s = session;
        const r = await api.apply(n.conversationId, n.messageId, { callIds: [n.callId] });
        if (s !== session)
            return;
        notice(`Applied: ${r.receipts.map((x) => x.summary ?? x.status).join("; ")}`);
        await loadNeeds();
        if (state.convId === n.conversationId)
            await loadMessages();
    });
}
