import { api } from "./api.js";
import { upsertRow } from "./chat.js";
import { $ } from "./dom.js";
import { closeLive, session, state } from "./state.js";
import { loadConversations, showConvInURL } from "./conversations.js";
import { guard, loadMessages, renderChat, renderLive } from "./messages.js";
import { renderChips } from "./composer.js";
import { loadNeeds } from "./needs.js";
export function follow(view, streamUrl, convId, sentAt = performance.now()) {
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
export function retryLater(convId, first) {
    clearTimeout(state.retryTimer);
    const wait = Math.min(30_000, 1000 * 2 ** state.refusals);
    state.refusals++;
    state.retryTimer = setTimeout(() => {
        first?.();
        if (state.convId === convId && !state.live)
            void loadMessages();
    }, wait);
}
export function statusWord(s) {
    return { working: "Thinking…", queued: "Queued…", paused: "Paused", stopping: "Stopping…", waiting: "Waiting…", retrying: "Trying again…" }[s] ?? s;
}
export async function send(text) {
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
export async function stopTurn() {
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
export async function controlTurn(v, what) {
    await guard("control:" + v.turnId, async () => {
        const r = await (what === "pause" ? api.pause(v.turnId) : api.resume(v.turnId));
        if (state.live?.view !== v)
            return;
        v.paused = r.status === "paused";
        v.step = { text: statusWord(r.status), since: Date.now() };
        renderLive();
    });
}
export async function retryTurn(v) {
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
