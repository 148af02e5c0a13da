import { api, ApiError } from "./api.js";
import { chip, fromMessage, renderView, stepText, upsertRow } from "./chat.js";
import { $, focusKey, h, moveFocus, replace, restoreFocus } from "./dom.js";
import { openRecord } from "./record.js";
import { TopBar } from "./topbar.js";
const state = fresh();
function fresh() {
    return {
        spaces: [],
        spaceId: "",
        convs: [],
        convId: null,
        views: [],
        live: null,
        settings: null,
        models: null,
        needs: [],
        needsError: "",
        pool: null,
        poolAt: 0,
        poolStale: false,
        pending: [],
        files: [],
        undone: new Set(),
        turnModel: "",
        turnEffort: "",
        spaceFiles: null,
        folds: new Map(),
        busy: new Set(),
        refusals: 0,
        retryTimer: 0,
    };
}
let session = 0;
function reset() {
    session++;
    closeLive();
    clearTimeout(state.retryTimer);
    topbar?.close();
    topbar = null;
    Object.assign(state, fresh());
}
let topbar = null;
function boot() {
    document.addEventListener("click", (e) => {
        const a = e.target?.closest?.("a.ref");
        const m = a?.getAttribute("href")?.match(/^#ref\/([a-z_]+)\/(.+)$/);
        if (!a || !m)
            return;
        e.preventDefault();
        void openRecord({ kind: m[1], id: decodeURIComponent(m[2]), label: a.textContent ?? "", spaceId: a.dataset.space, detail: a.dataset.detail }, state.spaceId);
    });
    window.addEventListener("hashchange", () => void route());
    window.addEventListener("storage", (e) => {
        if (e.key !== signedKey || !e.newValue)
            return;
        const [what, who] = e.newValue.split(" ");
        if (what === "out") {
            if (me)
                signIn("You signed out in another tab.");
        }
        else if (!me || who !== me)
            void start();
    });
    const failed = takeSignInError();
    const t = takeToken();
    if (failed)
        signIn(failed);
    else if (t)
        void signInWith(t);
    else
        void start(true);
}
const signInErrors = {
    denied: "Your organization's sign-in was cancelled.",
    expired: "That sign-in took too long or was already used: sign in again.",
    state: "That sign-in did not start in this browser: sign in again.",
    "provider-unreachable": "Your organization's sign-in cannot be reached now; a token still works.",
};
function takeSignInError() {
    const m = location.hash.match(/^#signin-error=([a-z-]+)/);
    if (!m)
        return null;
    history.replaceState(null, "", location.pathname + location.search);
    return signInErrors[m[1]] ?? `Signing in through your organization failed (${m[1]}).`;
}
const signedKey = "hub.signed";
let me = "";
function announce(what, who = "") {
    try {
        localStorage.setItem(signedKey, `${what} ${who} ${Date.now()}`);
    }
    catch { }
}
function takeToken() {
    const m = location.hash.match(/^#token=([^&]+)/);
    if (!m)
        return null;
    history.replaceState(null, "", location.pathname + location.search);
    return decodeURIComponent(m[1]);
}
function convInURL() {
    const m = location.hash.match(/^#\/c\/([^/?#]+)$/);
    return m ? decodeURIComponent(m[1]) : null;
}
function showConvInURL(id, push = true) {
    const want = id ? `#/c/${encodeURIComponent(id)}` : "";
    if (location.hash === want || (!id && !location.hash))
        return;
    const url = location.pathname + location.search + want;
    if (push)
        history.pushState(null, "", url);
    else
        history.replaceState(null, "", url);
}
async function route() {
    const t = takeToken();
    if (t) {
        await signInWith(t);
        return;
    }
    if (!state.spaceId || starting)
        return;
    const id = convInURL();
    if (id) {
        if (id !== state.convId)
            await openFromURL(id);
    }
    else if (!location.hash && state.convId)
        newConversation(false);
}
async function openFromURL(id) {
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
function signIn(message) {
    reset();
    me = "";
    const input = h("input", { id: "token-input", type: "password", autocomplete: "off", required: true, "aria-describedby": "token-help" });
    const form = h("form", { class: "signin", "aria-labelledby": "signin-title" }, h("h1", { id: "signin-title" }, "Sign in to Hub"), h("label", { for: "token-input" }, "Token"), input, h("p", { id: "token-help", class: "hint" }, "Paste a token from ", h("code", {}, "hub token create"), " (in ", h("code", {}, "hub dev"), ": ", h("code", {}, ".hub/dev-token"), "). This browser stays signed in, in every tab, until you sign out; the token itself is not kept."), message ? h("p", { class: "error", role: "alert" }, message) : null, h("button", { type: "submit", id: "signin-submit" }, "Sign in"));
    form.addEventListener("submit", (e) => {
        e.preventDefault();
        if (starting)
            return;
        form.querySelector("#signin-submit").disabled = true;
        void signInWith(input.value.trim());
    });
    replace($("app"), h("main", { class: "signin-page" }, form));
    input.focus();
    const s = session;
    void api.signInProviders().then((p) => {
        if (!p.oidc || s !== session || !form.isConnected)
            return;
        form.append(h("p", { class: "hint" }, "Or ", h("a", { id: "signin-oidc", href: "/api/session/oidc/login" }, "Sign in with your organization"), "."));
    }).catch(() => { });
}
let starting = false;
async function signInWith(token) {
    if (starting)
        return;
    starting = true;
    let who;
    try {
        who = (await api.signIn(token)).personId;
    }
    catch (e) {
        starting = false;
        signIn(e instanceof ApiError && e.status === 401 ? "That token was not accepted." : errorText(e));
        return;
    }
    starting = false;
    announce("in", who);
    await start();
}
async function start(quiet = false) {
    if (starting)
        return;
    starting = true;
    reset();
    const s = session;
    let name = "";
    try {
        const [who, spaces] = await Promise.all([api.whoAmI(), api.spaces()]);
        me = who.personId;
        name = who.name;
        state.spaces = spaces.spaces;
    }
    catch (e) {
        starting = false;
        if (s !== session)
            return;
        if (e instanceof ApiError && e.status === 401)
            signIn(quiet ? undefined : "Your session has ended: sign in again.");
        else
            signIn(errorText(e));
        return;
    }
    starting = false;
    if (s !== session)
        return;
    if (state.spaces.length === 0) {
        noSpace(name);
        return;
    }
    state.spaceId = sessionStorage.getItem("hub.space") ?? "";
    if (!state.spaces.some((s) => s.id === state.spaceId))
        state.spaceId = state.spaces[0]?.id ?? "";
    layout();
    topbar = new TopBar($("topbar-status"), { onChange: onActivity });
    topbar.connect();
    void loadSettings();
    void loadNeeds();
    await loadConversations();
    if (s !== session)
        return;
    const id = convInURL();
    if (id)
        await openFromURL(id);
    else
        renderChat();
}
function noSpace(name) {
    replace($("app"), h("main", { class: "signin-page" }, h("section", { class: "signin", "aria-labelledby": "nospace-title" }, h("h1", { id: "nospace-title" }, `Welcome, ${name}`), h("p", {}, "You are signed in, and in no space yet. An owner of a space adds you by this id:"), h("p", {}, h("code", { id: "person-id" }, me)), h("button", { type: "button", id: "nospace-again", onclick: () => void start() }, "Check again"), h("button", { type: "button", id: "signout", onclick: () => void signOut() }, "Sign out"))), h("div", { id: "notice", role: "status", "aria-live": "polite" }));
    $("nospace-again").focus();
}
async function signOut() {
    await api.signOut().catch(() => undefined);
    announce("out");
    sessionStorage.clear();
    history.replaceState(null, "", location.pathname + location.search);
    signIn();
}
function layout() {
    const spaceSelect = h("select", { id: "space", onchange: (e) => void switchSpace(e.target.value) }, state.spaces.map((s) => h("option", { value: s.id, selected: s.id === state.spaceId }, s.name)));
    replace($("app"), h("header", { class: "topbar" }, h("span", { class: "brand" }, "Hub"), h("label", { for: "space", class: "space-label" }, "Space"), spaceSelect, h("div", { id: "topbar-status", class: "topbar-status" }), h("button", { type: "button", id: "signout", onclick: () => void signOut() }, "Sign out")), h("div", { class: "layout" }, h("nav", { id: "convs", "aria-label": "Conversations" }, h("h2", {}, "Conversations"), h("button", { type: "button", id: "new-conv", onclick: () => newConversation() }, "New conversation"), h("ul", { id: "conv-list" })), h("main", { id: "chat", "aria-labelledby": "chat-title" }, h("h1", { id: "chat-title", tabindex: -1 }, "New conversation"), h("div", { id: "messages", role: "log", "aria-live": "polite", "aria-label": "Messages" }), composer()), h("aside", { id: "side" }, h("section", { id: "needs-me", "aria-labelledby": "needs-title" }, h("h2", { id: "needs-title", tabindex: -1 }, "Needs me"), h("ul", { id: "needs-list" })), h("section", { id: "settings", "aria-labelledby": "settings-title" }, h("h2", { id: "settings-title" }, "Settings"), h("form", { id: "settings-form" })))), h("div", { id: "notice", role: "status", "aria-live": "polite" }));
}
let noticeTimer = 0;
function notice(text) {
    clearTimeout(noticeTimer);
    const n = document.getElementById("notice");
    if (!n)
        return;
    n.textContent = text;
    n.classList.toggle("shown", !!text);
    if (text)
        noticeTimer = setTimeout(() => notice(""), 6000);
}
function errorText(e) {
    return e instanceof Error ? e.message : String(e);
}
async function guard(key, f) {
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
async function switchSpace(id) {
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
async function loadConversations() {
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
function newConversation(byPerson = true) {
    closeLive();
    state.convId = null;
    state.views = [];
    showConvInURL(null, byPerson);
    renderConversations();
    renderChat();
    if (byPerson)
        $("input").focus();
}
async function openConversation(id, byPerson = true) {
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
async function loadMessages() {
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
function noteUndoStates(messages) {
    for (const m of messages) {
        for (const c of m.toolCalls) {
            for (const [gid, st] of [[c.undoGroupId, c.undoState], [c.receipt?.undoGroupId, c.receipt?.undoState], ...(c.receipt?.steps ?? []).map((s) => [s.undoGroupId, s.undoState])]) {
                if (!gid || !st)
                    continue;
                if (st === "undone")
                    state.undone.add(gid);
                else
                    state.undone.delete(gid);
            }
        }
    }
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
function renderChat(toBottom = false) {
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
function renderLive() {
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
function follow(view, streamUrl, convId, sentAt = performance.now()) {
    closeLive();
    Object.assign(view, { text: "", rows: [], proposals: [], error: undefined, status: "running", step: { text: "Working…", since: Date.now() } });
    const es = new EventSource(streamUrl);
    const live = { view, es, convId, mark: 0, sentAt, gotText: false };
    state.live = live;
    const on = (type, f) => es.addEventListener(type, (e) => {
        if (state.live !== live)
            return;
        state.refusals = 0;
        f(JSON.parse(e.data));
        renderLive();
    });
    on("refs", (d) => { view.refs = d.refs; });
    on("status", (d) => {
        if (d.status === "paused" || d.status === "stopping") {
            view.paused = d.status === "paused";
            view.step = { text: d.text || statusWord(d.status), since: Date.now() };
            return;
        }
        if (d.discard || d.resumed)
            view.paused = false;
        if (d.reset)
            Object.assign(view, { text: "", rows: [], proposals: [], error: undefined });
        else if (d.discard)
            view.text = view.text.slice(0, live.mark);
        live.mark = view.text.length;
        view.step = { text: d.text || statusWord(d.status), since: Date.now() };
    });
    on("text", (d) => {
        if (!live.gotText) {
            live.gotText = true;
            performance.measure("hub:first-text", { start: live.sentAt, end: performance.now() });
        }
        view.text += d.delta;
        view.step = { text: "Writing…", since: Date.now() };
    });
    on("tool", (d) => upsertRow(view, d));
    on("proposal", (d) => { view.proposals = d.calls; });
    on("turn_error", (d) => { view.error = d; });
    on("done", (d) => {
        es.close();
        view.status = d.status;
        view.step = undefined;
        view.paused = false;
        if (d.refs)
            view.refs = d.refs;
        state.live = null;
        state.poolStale = true;
        sessionStorage.removeItem("hub.stream." + view.turnId);
        if (view.proposals.length)
            void loadNeeds();
        if (d.deleted)
            void loadConversations();
        else if (state.convId === convId)
            void loadMessages();
    });
    es.addEventListener("error", () => {
        if (es.readyState === EventSource.CLOSED && state.live === live) {
            state.live = null;
            retryLater(convId, () => sessionStorage.removeItem("hub.stream." + view.turnId));
        }
    });
    renderChat(true);
}
function retryLater(convId, first) {
    clearTimeout(state.retryTimer);
    const wait = Math.min(30_000, 1000 * 2 ** state.refusals);
    state.refusals++;
    state.retryTimer = setTimeout(() => {
        first?.();
        if (state.convId === convId && !state.live)
            void loadMessages();
    }, wait);
}
function statusWord(s) {
    return { working: "Thinking…", queued: "Queued…", paused: "Paused", stopping: "Stopping…", waiting: "Waiting…", retrying: "Trying again…" }[s] ?? s;
}
function closeLive() {
    state.live?.es.close();
    state.live = null;
}
async function send(text) {
    const mentions = state.pending.map((r) => ({ kind: r.kind, id: r.id }));
    const s = session, spaceId = state.spaceId, shown = state.convId;
    const moved = (convId) => s !== session || state.spaceId !== spaceId || state.convId !== convId;
    await guard("send", async () => {
        let convId = state.convId;
        if (!convId) {
            const c = await api.createConversation(spaceId, text.slice(0, 60));
            if (moved(shown)) {
                if (s === session)
                    void loadConversations();
                return;
            }
            convId = c.id;
            state.convId = convId;
            showConvInURL(convId);
            await loadConversations();
            if (moved(convId))
                return;
        }
        const sentAt = performance.now();
        const st = await api.startTurn(convId, text, mentions, state.files.map((f) => f.id), { model: state.turnModel, effort: state.turnEffort });
        if (s !== session)
            return;
        sessionStorage.setItem("hub.stream." + st.turnId, st.streamUrl);
        if (moved(convId))
            return;
        const input = $("input");
        input.value = "";
        const userView = { id: st.messageId, turnId: st.turnId, role: "user", text, status: "done", mentions: [...state.pending, ...state.files], refs: [], rows: [], proposals: [], receipts: [] };
        state.pending = [];
        state.files = [];
        renderChips();
        const reply = { id: st.replyMessageId, turnId: st.turnId, role: "assistant", text: "", status: "running", mentions: [], refs: [], rows: [], proposals: [], receipts: [] };
        state.views.push(userView, reply);
        follow(reply, st.streamUrl, convId, sentAt);
    });
}
async function stopTurn() {
    const live = state.live;
    if (!live)
        return;
    await guard("stop", async () => {
        const r = await api.stop(live.view.turnId);
        if (state.live !== live)
            return;
        live.view.step = { text: statusWord(r.status), since: Date.now() };
        renderLive();
    });
}
async function controlTurn(v, what) {
    await guard("control:" + v.turnId, async () => {
        const r = await (what === "pause" ? api.pause(v.turnId) : api.resume(v.turnId));
        if (state.live?.view !== v)
            return;
        v.paused = r.status === "paused";
        v.step = { text: statusWord(r.status), since: Date.now() };
        renderLive();
    });
}
async function applyView(v, o = {}) {
    if (!state.convId)
        return;
    const convId = state.convId, s = session;
    await guard("apply:" + v.id, async () => {
        const r = await api.apply(convId, v.id, o);
        if (s !== session)
            return;
        const byCall = new Map(v.receipts.map((x) => [x.callId, x]));
        for (const x of r.receipts)
            byCall.set(x.callId, x);
        v.receipts = [...byCall.values()];
        const ok = r.receipts.filter((x) => x.status === "succeeded").length;
        notice(`Applied: ${ok} of ${r.receipts.length} succeeded.`);
        void loadNeeds();
    });
}
async function undo(gid) {
    await guard("undo:" + gid, async () => {
        const undone = state.undone.has(gid);
        const s = session;
        const r = undone ? await api.redo(gid) : await api.undo(gid);
        if (s !== session)
            return;
        if (r.state === "undone")
            state.undone.add(gid);
        else
            state.undone.delete(gid);
        notice(`${r.state === "undone" ? "Undone" : "Redone"}: ${r.records.map((x) => x.label).join(", ") || "nothing left to change"}.`);
    });
}
async function retryTurn(v) {
    const convId = state.convId, s = session;
    if (!convId)
        return;
    await guard("retry:" + v.turnId, async () => {
        const r = await api.retry(v.turnId);
        if (s !== session)
            return;
        sessionStorage.setItem("hub.stream." + r.turnId, r.streamUrl);
        if (state.convId !== convId || !state.views.includes(v))
            return;
        v.turnId = r.turnId;
        follow(v, r.streamUrl, convId);
    });
}
function composer() {
    const input = h("textarea", { id: "input", rows: 2, "aria-label": "Message", placeholder: "Ask Hub… (@ mentions a record)", "aria-autocomplete": "list", "aria-controls": "mention-menu" });
    const menu = h("ul", { id: "mention-menu", role: "listbox", "aria-label": "Mention a record", hidden: true });
    const form = h("form", { id: "composer", "aria-label": "Ask Hub" }, h("div", { id: "chips", class: "chips" }), h("div", { id: "turn-options", class: "turn-options" }), h("div", { class: "composer-row" }, input, menu, h("input", { type: "file", id: "attach", class: "visually-hidden", multiple: true, onchange: (e) => void attach(e.target) }), h("label", { for: "attach", class: "attach-label" }, "Attach"), spaceFilePicker(), h("button", { type: "submit", id: "send" }, "Send"), h("button", { type: "button", id: "pause-turn", hidden: true, onclick: () => { if (state.live)
            void controlTurn(state.live.view, "pause"); } }, "Pause"), h("button", { type: "button", id: "resume-turn", hidden: true, onclick: () => { if (state.live)
            void controlTurn(state.live.view, "resume"); } }, "Resume"), h("button", { type: "button", id: "stop", hidden: true, onclick: () => void stopTurn() }, "Stop")));
    form.addEventListener("submit", (e) => {
        e.preventDefault();
        const text = input.value.trim();
        if (!text)
            return;
        if (state.busy.has("send"))
            notice("The last message is still being sent: send this one once it is.");
        else if (state.live)
            notice("Hub is still answering: wait for the reply, or Stop it, then send.");
        else
            void send(text);
    });
    input.addEventListener("input", () => void mentionMenu());
    input.addEventListener("keydown", (e) => {
        if (!menu.hidden) {
            const items = [...menu.querySelectorAll("[role=option]")];
            const at = items.findIndex((i) => i.getAttribute("aria-selected") === "true");
            if (e.key === "ArrowDown" || e.key === "ArrowUp") {
                e.preventDefault();
                const next = items[(at + (e.key === "ArrowDown" ? 1 : items.length - 1)) % items.length];
                items.forEach((i) => i.setAttribute("aria-selected", String(i === next)));
                if (next)
                    input.setAttribute("aria-activedescendant", next.id);
                return;
            }
            if ((e.key === "Enter" || e.key === "Tab") && at >= 0) {
                e.preventDefault();
                items[at].click();
                return;
            }
            if (e.key === "Escape") {
                e.preventDefault();
                closeMenu();
                return;
            }
        }
        if (e.key === "Enter" && !e.shiftKey) {
            e.preventDefault();
            form.requestSubmit();
        }
    });
    return form;
}
function renderComposerState() {
    const live = !!state.live && state.live.convId === state.convId;
    const was = document.activeElement;
    $("send").disabled = live || state.busy.has("send");
    $("stop").hidden = !live;
    const paused = !!state.live?.view.paused;
    const controlling = !!state.live && state.busy.has("control:" + state.live.view.turnId);
    $("pause-turn").hidden = !live || paused;
    $("resume-turn").hidden = !live || !paused;
    $("pause-turn").setAttribute("aria-disabled", String(controlling));
    $("resume-turn").setAttribute("aria-disabled", String(controlling));
    const gone = (id) => was?.id === id && ($(id).hidden || $(id).disabled);
    if (gone("pause-turn") || gone("resume-turn"))
        moveFocus($(live ? (paused ? "resume-turn" : "pause-turn") : "input"));
    else if (gone("stop") || gone("send"))
        moveFocus($("input"));
}
async function mentionMenu() {
    const input = $("input");
    const before = input.value.slice(0, input.selectionStart ?? input.value.length);
    const m = before.match(/(?:^|\s)@([^@\n]{0,40})$/);
    if (!m) {
        closeMenu();
        return;
    }
    const menu = $("mention-menu");
    if (menu.hidden && (state.poolStale || Date.now() - state.poolAt > 60_000))
        state.pool = null;
    if (!state.pool) {
        const spaceId = state.spaceId;
        let pool;
        try {
            pool = await readPool(spaceId);
        }
        catch (e) {
            if (state.spaceId !== spaceId)
                return;
            replace(menu, h("li", { class: "error", role: "alert" }, `The records could not be read: ${errorText(e)}`));
            menu.hidden = false;
            input.removeAttribute("aria-activedescendant");
            return;
        }
        if (state.spaceId !== spaceId)
            return;
        Object.assign(state, { pool, poolAt: Date.now(), poolStale: false });
    }
    const q = m[1].toLowerCase();
    const found = (state.pool ?? []).filter((r) => r.label.toLowerCase().includes(q)).slice(0, 8);
    replace(menu, found.length ? found.map((r, i) => h("li", { role: "option", id: `mention-${i}`, "aria-selected": String(i === 0), class: `kind-${r.kind}`,
        onmousedown: (e) => e.preventDefault(), onclick: () => pickMention(r, m[1].length + 1) }, h("span", { class: "kind" }, r.kind), " ", r.label))
        : h("li", { class: "none" }, "No record matches"));
    menu.hidden = false;
    if (found.length)
        input.setAttribute("aria-activedescendant", "mention-0");
}
let poolRead = null;
function readPool(spaceId) {
    if (poolRead?.spaceId === spaceId)
        return poolRead.p;
    const p = Promise.all([api.tasks(spaceId), api.projects(spaceId), api.people(spaceId)]).then(([t, pr, pe]) => [
        ...t.tasks.map((x) => ({ kind: "task", id: x.id, label: x.title })),
        ...pr.projects.map((x) => ({ kind: "project", id: x.id, label: x.name })),
        ...pe.people.map((x) => ({ kind: "person", id: x.id, label: x.name }))
    ]);
    const read = { spaceId, p };
    poolRead = read;
    const done = () => { if (poolRead === read)
        poolRead = null; };
    p.then(done, done);
    return p;
}
function closeMenu() {
    const menu = $("mention-menu");
    menu.hidden = true;
    const input = $("input");
    input.removeAttribute("aria-activedescendant");
}
function pickMention(r, typed) {
    const input = $("input");
    const caret = input.selectionStart ?? input.value.length;
    input.value = input.value.slice(0, caret - typed) + r.label + " " + input.value.slice(caret);
    const at = caret - typed + r.label.length + 1;
    input.setSelectionRange(at, at);
    if (!state.pending.some((p) => p.kind === r.kind && p.id === r.id))
        state.pending.push(r);
    closeMenu();
    renderChips();
    input.focus();
}
function renderChips() {
    const remove = (r) => { state.pending = state.pending.filter((p) => p !== r); state.files = state.files.filter((p) => p !== r); renderChips(); };
    replace($("chips"), [...state.pending, ...state.files].map((r) => h("span", { class: "pending-chip" }, chip(r), h("button", { type: "button", class: "chip-remove", "aria-label": `Remove ${r.kind === "file" ? "file" : "mention"} ${r.label}`, onclick: () => remove(r) }, "×"))));
}
async function attach(input) {
    const picked = [...(input.files ?? [])];
    input.value = "";
    await guard("attach", async () => {
        const s = session, spaceId = state.spaceId;
        for (const f of picked) {
            const up = await api.uploadFile(spaceId, f);
            if (s !== session || state.spaceId !== spaceId)
                return;
            state.files.push({ kind: "file", id: up.id, label: up.name, detail: up.contentType });
        }
        renderChips();
    });
}
async function loadNeeds() {
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
function renderNeeds() {
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
async function loadSettings() {
    const s = session;
    let settings;
    try {
        settings = await api.settings();
    }
    catch (e) {
        if (s === session)
            notice(errorText(e));
        return;
    }
    const models = await api.models().catch(() => null);
    if (s !== session)
        return;
    Object.assign(state, { settings, models });
    renderSettings();
    renderTurnOptions();
}
function renderTurnOptions() {
    const box = document.getElementById("turn-options");
    if (!box)
        return;
    const models = state.models?.models ?? [];
    const current = models.find((m) => m.id === (state.turnModel || state.settings?.model || state.models?.default));
    const efforts = current?.efforts ?? [];
    if (!efforts.includes(state.turnEffort))
        state.turnEffort = "";
    const model = h("select", { id: "turn-model", onchange: () => { state.turnModel = model.value; renderTurnOptions(); } }, h("option", { value: "", selected: !state.turnModel }, "Model: as in settings"), models.map((m) => h("option", { value: m.id, selected: state.turnModel === m.id }, m.name === m.id ? m.id : `${m.id} (${m.name})`)));
    const effort = h("select", { id: "turn-effort", onchange: () => { state.turnEffort = effort.value; } }, h("option", { value: "", selected: !state.turnEffort }, "Effort: as in settings"), efforts.map((x) => h("option", { value: x, selected: state.turnEffort === x }, x)));
    replace(box, models.length > 1 ? [h("label", { for: "turn-model", class: "visually-hidden" }, "Model for this message"), model] : null, efforts.length > 0 ? [h("label", { for: "turn-effort", class: "visually-hidden" }, "Effort for this message"), effort] : null);
}
function spaceFilePicker() {
    const list = h("ul", { id: "space-file-list", class: "space-files", "aria-label": "Files in this space" });
    const d = h("details", { id: "space-files" }, h("summary", { class: "space-files-toggle" }, "Space files"), list);
    d.addEventListener("toggle", () => {
        if (!d.open)
            return;
        void (async () => {
            const s = session, spaceId = state.spaceId;
            try {
                const files = (await api.files(spaceId)).files;
                if (s !== session || state.spaceId !== spaceId)
                    return;
                state.spaceFiles = files;
            }
            catch (e) {
                if (s === session)
                    notice(errorText(e));
                return;
            }
            replace(list, state.spaceFiles.length ? state.spaceFiles.map((f) => h("li", {}, h("button", { type: "button", class: "space-file", onclick: () => {
                    if (!state.files.some((x) => x.id === f.id))
                        state.files.push({ kind: "file", id: f.id, label: f.name, detail: f.contentType });
                    renderChips();
                    d.open = false;
                    $("input").focus();
                } }, f.name))) : h("li", { class: "none" }, "No files in this space yet."));
        })();
    });
    return d;
}
function renderSettings() {
    const s = state.settings;
    const form = document.getElementById("settings-form");
    if (!s || !form)
        return;
    const models = state.models?.models ?? [];
    const chosen = models.find((m) => m.id === (s.model || state.models?.default));
    const policy = h("select", { id: "write-policy" }, ["immediate", "preview", "needs-me"].map((p) => h("option", { value: p, selected: s.writePolicy === p }, ({ immediate: "Write at once (with Undo)", preview: "Preview, then Apply", "needs-me": "Send to Needs me" })[p])));
    const model = h("select", { id: "model", onchange: () => {
            const m = models.find((x) => x.id === model.value);
            replace(effort, h("option", { value: "" }, "Default"), (m?.efforts ?? []).map((x) => h("option", { value: x }, x)));
        } }, h("option", { value: "", selected: !s.model }, `Default${state.models ? ` (${state.models.default})` : ""}`), models.map((m) => h("option", { value: m.id, selected: s.model === m.id }, m.name)));
    const effort = h("select", { id: "effort" }, h("option", { value: "" }, "Default"), (chosen?.efforts ?? []).map((x) => h("option", { value: x, selected: s.effort === x }, x)));
    replace(form, h("label", { for: "write-policy" }, "Writes"), policy, models.length ? [h("label", { for: "model" }, "Model"), model, h("label", { for: "effort" }, "Effort"), effort] : null, h("button", { type: "submit", id: "save-settings" }, "Save settings"));
    form.onsubmit = (e) => {
        e.preventDefault();
        void guard("settings", async () => {
            const patch = { writePolicy: policy.value };
            if (models.length) {
                patch.model = model.value;
                patch.effort = effort.value;
            }
            const s = session;
            const saved = await api.patchSettings(patch);
            if (s !== session)
                return;
            state.settings = saved;
            renderSettings();
            renderTurnOptions();
            notice("Settings saved.");
        });
    };
}
function onActivity(a) {
    if (!a || a.kind === "apply" || a.ended) {
        renderNeeds();
        void loadNeeds();
        state.poolStale = true;
    }
    const live = state.live;
    if (a && live && a.kind === "turn" && a.id === live.view.turnId && !a.ended) {
        const paused = a.status === "paused";
        if (live.view.paused !== paused) {
            live.view.paused = paused;
            if (paused)
                live.view.step = { text: statusWord("paused"), since: Date.now() };
            renderLive();
        }
    }
    if (!a || a.conversationId !== state.convId || state.live || state.busy.has("send"))
        return;
    if (a.ended || (a.kind === "turn" && !state.views.some((v) => v.turnId === a.id && v.status !== "running")))
        void loadMessages();
}
boot();
