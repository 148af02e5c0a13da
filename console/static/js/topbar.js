import { api } from "./api.js";
import { h, replace } from "./dom.js";
export const isTurn = (a) => a.kind === "turn" || a.kind === "agent";
export class TopBar {
    el;
    events;
    es = null;
    phase = "checking";
    activities = new Map();
    paused = false;
    closed = false;
    failure = "";
    refusals = 0;
    timer = 0;
    pill = h("span", { id: "pill", class: "pill", role: "status", "aria-live": "polite", tabindex: -1 });
    retry = h("button", { type: "button", id: "pill-retry", hidden: true, onclick: () => void this.connect() }, "Retry");
    error = h("span", { id: "topbar-error", class: "topbar-error", role: "alert", hidden: true });
    pause = h("button", { type: "button", id: "pause-all", onclick: () => void this.all("pause") }, "Pause");
    resume = h("button", { type: "button", id: "resume-all", onclick: () => void this.all("resume") }, "Resume");
    stop = h("button", { type: "button", id: "stop-all", onclick: () => void this.all("stop") }, "Stop all");
    constructor(el, events) {
        this.el = el;
        this.events = events;
        replace(el, this.pill, this.retry, this.error, this.pause, this.resume, this.stop);
        this.render();
    }
    async connect() {
        clearTimeout(this.timer);
        this.es?.close();
        this.es = null;
        this.phase = "checking";
        this.render();
        let url;
        try {
            url = (await api.agentStreamToken()).streamUrl;
        }
        catch {
            if (this.closed)
                return;
            this.phase = "unavailable";
            this.render();
            this.later();
            return;
        }
        if (this.closed)
            return;
        const es = new EventSource(url);
        this.es = es;
        es.addEventListener("activity", (e) => {
            const d = JSON.parse(e.data);
            this.phase = "live";
            this.refusals = 0;
            if (!("activity" in d)) {
                this.activities = new Map(d.activities.map((a) => [a.id, a]));
                this.paused = d.paused;
                this.events.onChange(null);
            }
            else {
                if (d.activity.ended)
                    this.activities.delete(d.activity.id);
                else
                    this.activities.set(d.activity.id, d.activity);
                this.paused = [...this.activities.values()].some(isTurn) && [...this.activities.values()].filter(isTurn).every((a) => a.status === "paused");
                this.events.onChange(d.activity);
            }
            this.render();
        });
        es.addEventListener("error", () => {
            if (es.readyState === EventSource.CLOSED && this.es === es) {
                this.phase = "unavailable";
                this.render();
                this.later();
            }
            else if (es.readyState === EventSource.CONNECTING) {
                this.phase = "checking";
                this.render();
            }
        });
    }
    later() {
        clearTimeout(this.timer);
        const wait = Math.min(30_000, 1000 * 2 ** this.refusals);
        this.refusals++;
        this.timer = setTimeout(() => { if (!this.closed)
            void this.connect(); }, wait);
    }
    waiting() {
        return this.phase === "live" ? [...this.activities.values()].filter((a) => a.kind === "apply" && a.status === "waiting") : [];
    }
    close() {
        this.closed = true;
        clearTimeout(this.timer);
        this.es?.close();
    }
    status() {
        if (this.phase === "checking")
            return "Checking…";
        if (this.phase === "unavailable")
            return "Unavailable";
        const st = [...this.activities.values()].map((a) => a.status);
        if (this.paused && !st.includes("stopping"))
            return "Paused";
        for (const [s, word] of [["stopping", "Stopping"], ["working", "Working"], ["queued", "Working"], ["paused", "Paused"], ["waiting", "Waiting"]]) {
            if (st.includes(s))
                return word;
        }
        return "Idle";
    }
    render() {
        const word = this.status();
        const acts = [...this.activities.values()];
        const turns = acts.filter(isTurn);
        const running = turns.filter((a) => a.status !== "paused" && a.status !== "stopping");
        const was = document.activeElement;
        const text = word + (acts.length && this.phase === "live" ? ` · ${acts.length}` : "");
        if (this.pill.textContent !== text)
            this.pill.textContent = text;
        this.pill.className = `pill pill-${word.toLowerCase().replace("…", "")}`;
        this.pill.title = acts.map((a) => `${a.title || a.kind}: ${a.status}`).join("\n") || "Nothing is running";
        this.retry.hidden = this.phase !== "unavailable";
        this.error.hidden = !this.failure;
        if (this.error.textContent !== this.failure)
            this.error.textContent = this.failure;
        this.pause.disabled = this.phase !== "live" || running.length === 0;
        this.resume.disabled = this.phase !== "live" || !turns.some((a) => a.status === "paused");
        this.stop.disabled = this.phase !== "live" || turns.length === 0;
        const btn = was instanceof HTMLButtonElement && this.el.contains(was) ? was : null;
        if (btn && (btn.disabled || btn.hidden)) {
            const next = [btn === this.pause ? this.resume : this.pause, this.stop, this.pause, this.resume].find((b) => !b.disabled);
            (next ?? this.pill).focus();
        }
    }
    async all(what) {
        this.failure = "";
        this.render();
        try {
            await (what === "pause" ? api.pauseAll() : what === "resume" ? api.resumeAll() : api.stopAll());
        }
        catch (e) {
            this.failure = `${({ pause: "Pause", resume: "Resume", stop: "Stop all" })[what]} failed: ${e instanceof Error ? e.message : String(e)}`;
        }
        if (!this.closed)
            this.render();
    }
}
