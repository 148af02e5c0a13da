import { api, ApiError } from "./api.js";
import { fromMessage, renderView, stepText } from "./chat.js";
import { $, focusKey, h, replace, restoreFocus } from "./dom.js";
import { session, state } from "./state.js";
import { errorText, notice } from "./notice.js";
import { signIn } from "./signin.js";
import { follow, retryLater, retryTurn } from "./turns.js";
import { applyView, noteUndoStates, undo } from "./proposals.js";
import { renderComposerState } from "./composer.js";
export async function guard(key, f) {
    if (state.busy.has(key))
        return undefined;
    const s = session;
    const box = document.getElementById("messages");
    const focused = box ? focusKey(box) : null;
    state.busy.add(key);
    renderChat();
    try {
        return await f();
    }
    catch (e) {
        if (s !== session)
            return undefined;
        if (e instanceof ApiError && e.status === 401) {
            signIn("Your session has ended: sign in again.");
            return undefined;
        }
        notice(errorText(e));
        return undefined;
    }
    finally {
        if (s === session) {
            state.busy.delete(key);
            renderChat();
            const at = document.activeElement;
            const parked = !at || at === document.body || at.tagName === "ARTICLE" || at.id === "chat-title";
            if (box && focused && parked && document.getElementById("messages") === box)
                restoreFocus(box, focused, undefined, true);
        }
    }
}
export async function loadMessages() {
    const id = state.convId;
    if (!id)
        return;
    const s = session;
    let messages;
    try {
        messages = (await api.messages(id)).messages;
    }
    catch (e) {
        if (s !== session)
            return;
        notice(errorText(e));
        return;
    }
    if (s !== session || state.convId !== id)
        return;
    noteUndoStates(messages);
    const live = state.live;
    const views = messages.map((m) => (live && live.view.id === m.id ? live.view : fromMessage(m)));
    const opened = state.views.length === 0 || state.views[0].id !== views[0]?.id;
    state.views = views;
    renderChat(opened);
    const running = views.find((v) => v.role === "assistant" && v.status === "running");
    for (const v of views)
        if (v.turnId !== running?.turnId)
            sessionStorage.removeItem("hub.stream." + v.turnId);
    if (!running || state.live)
        return;
    let url = sessionStorage.getItem("hub.stream." + running.turnId);
    if (!url) {
        try {
            url = (await api.turnStreamToken(running.turnId)).streamUrl;
        }
        catch (e) {
            if (s === session && (!(e instanceof ApiError) || e.status === 0 || e.status >= 500))
                retryLater(id);
            return;
        }
        if (s !== session || state.convId !== id || state.live)
            return;
        sessionStorage.setItem("hub.stream." + running.turnId, url);
    }
    follow(running, url, id);
}
const actions = {
    apply: (v, o) => void applyView(v, o),
    undo: (gid) => void undo(gid),
    retry: (v) => void retryTurn(v),
    canRetry: (v) => state.views[state.views.length - 1] === v,
    isUndone: (gid) => state.undone.has(gid),
    folded: (id) => state.folds.get(id),
    fold: (id, open) => { state.folds.set(id, open); },
    busy: (key) => state.busy.has(key),
};
export function renderChat(toBottom = false) {
    const box = document.getElementById("messages");
    if (!box)
        return;
    const keep = box.scrollTop;
    const atBottom = toBottom || box.scrollHeight - box.scrollTop - box.clientHeight < 40;
    const conv = state.convs.find((c) => c.id === state.convId);
    $("chat-title").textContent = conv ? conv.title || "Untitled" : "New conversation";
    const focused = focusKey(box);
    replace(box, state.views.length ? state.views.map((v) => renderView(v, state.live?.view === v, actions))
        : h("p", { class: "empty" }, "Ask Hub something — “add a task called Water the plants”, or “list my tasks”. Type @ to mention a record."));
    if (focused)
        restoreFocus(box, focused, $("chat-title"));
    box.scrollTop = atBottom ? box.scrollHeight : keep;
    renderComposerState();
}
export function renderLive() {
    const live = state.live;
    if (!live)
        return;
    const box = $("messages");
    const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
    const old = document.getElementById(`msg-${live.view.id}`);
    const el = renderView(live.view, true, actions);
    if (old) {
        const focused = focusKey(box);
        old.replaceWith(el);
        if (focused)
            restoreFocus(box, focused, $("chat-title"));
    }
    else
        renderChat();
    renderComposerState();
    if (atBottom)
        box.scrollTop = box.scrollHeight;
}
setInterval(() => {
    const v = state.live?.view;
    if (!v?.step)
        return;
    const el = document.getElementById(`step-${v.id}`);
    if (el)
        el.textContent = stepText(v, Date.now());
}, 1000);
