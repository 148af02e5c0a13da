import { api, ApiError } from "./api.js";
import { $, focusKey, h, replace, restoreFocus } from "./dom.js";
import { closeLive, session, state } from "./state.js";
import { errorText, notice } from "./notice.js";
import { guard, loadMessages, renderChat } from "./messages.js";
import { renderChips } from "./composer.js";
import { showChat } from "./agents.js";
export function convInURL() {
    const m = location.hash.match(/^#\/c\/([^/?#]+)$/);
    return m ? decodeURIComponent(m[1]) : null;
}
export function showConvInURL(id, push = true) {
    const want = id ? `#/c/${encodeURIComponent(id)}` : "";
    if (location.hash === want || (!id && !location.hash))
        return;
    const url = location.pathname + location.search + want;
    if (push)
        history.pushState(null, "", url);
    else
        history.replaceState(null, "", url);
}
export async function openFromURL(id) {
    const s = session;
    const conv = await api.conversation(id).catch((e) => {
        if (!(e instanceof ApiError && e.status === 404))
            throw e;
        return null;
    });
    if (s !== session)
        return;
    if (!conv) {
        notice("That conversation is not there: it was deleted, or it is not yours.");
        showConvInURL(state.convId, false);
        return;
    }
    if (conv.spaceId !== state.spaceId) {
        await switchSpace(conv.spaceId);
        if (s !== session)
            return;
    }
    else if (!state.convs.some((c) => c.id === id)) {
        await loadConversations();
        if (s !== session)
            return;
    }
    await openConversation(id, false);
}
export async function switchSpace(id) {
    showChat();
    state.spaceId = id;
    sessionStorage.setItem("hub.space", id);
    const select = document.getElementById("space");
    if (select)
        select.value = id;
    state.pool = null;
    state.spaceFiles = null;
    state.pending = [];
    state.files = [];
    renderChips();
    const files = document.getElementById("space-files");
    if (files) {
        files.open = false;
        replace($("space-file-list"));
    }
    closeLive();
    clearTimeout(state.retryTimer);
    state.refusals = 0;
    state.convId = null;
    state.views = [];
    showConvInURL(null, false);
    await loadConversations();
    renderChat();
}
export async function loadConversations() {
    if (!state.spaceId)
        return;
    const s = session, spaceId = state.spaceId;
    try {
        const convs = (await api.conversations(spaceId)).conversations;
        if (s !== session || spaceId !== state.spaceId)
            return;
        state.convs = convs;
    }
    catch (e) {
        if (s !== session)
            return;
        notice(errorText(e));
    }
    renderConversations();
}
function renderConversations() {
    const list = document.getElementById("conv-list");
    if (!list)
        return;
    const focused = focusKey(list);
    replace(list, state.convs.map((c) => h("li", { class: c.id === state.convId ? "current" : "", "data-conv": c.id }, h("a", { class: "conv-open", href: `#/c/${encodeURIComponent(c.id)}`, "aria-current": c.id === state.convId ? "page" : null, onclick: (e) => {
            const m = e;
            if (m.ctrlKey || m.metaKey || m.shiftKey || m.button !== 0)
                return;
            e.preventDefault();
            void openConversation(c.id);
        } }, c.title || "Untitled"), h("button", { type: "button", class: "conv-delete", "aria-label": `Delete “${c.title || "Untitled"}”`, title: "Delete", onclick: () => void deleteConversation(c) }, "×"))));
    if (focused)
        restoreFocus(list, focused, $("new-conv"));
}
export function newConversation(byPerson = true) {
    showChat();
    closeLive();
    state.convId = null;
    state.views = [];
    showConvInURL(null, byPerson);
    renderConversations();
    renderChat();
    if (byPerson)
        $("input").focus();
}
export async function openConversation(id, byPerson = true) {
    showChat();
    closeLive();
    state.convId = id;
    showConvInURL(id, byPerson);
    renderConversations();
    const conv = state.convs.find((c) => c.id === id);
    if (conv)
        $("chat-title").textContent = conv.title || "Untitled";
    if (byPerson)
        $("chat-title").focus();
    await loadMessages();
}
async function deleteConversation(c) {
    await guard("delete:" + c.id, async () => {
        await api.deleteConversation(c.id);
        if (state.convId === c.id)
            newConversation();
        notice(`Deleted “${c.title || "Untitled"}”.`);
        await loadConversations();
    });
}
