import { api } from "./api.js";
import { h, replace } from "./dom.js";
export class TopBar {
    el;
    events;
    es = null;
    phase = "checking";
    activities = new Map();
    paused = false;
    closed = false;
    failure = "";
    constructor(el, events) {
        this.el = el;
        this.events = events;
        this.render();
    }
    async connect() {
        this.es?.close();
        this.phase = "checking";
        this.render();
        let url;
        try {
            url = (await api.agentStreamToken()).streamUrl;
        }
        catch {
            this.phase = "unavailable";
            this.render();
            return;
        }
        if (this.closed)
            return;
        const es = new EventSource(url);
        this.es = es;
        es.addEventListener("activity", (e) => {
            const d = JSON.parse(e.data);
            this.phase = "live";
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
                this.paused = [...this.activities.values()].some((a) => a.kind === "turn") && [...this.activities.values()].filter((a) => a.kind === "turn").every((a) => a.status === "paused");
                this.events.onChange(d.activity);
            }
            this.render();
        });
        es.addEventListener("error", () => {
            if (es.readyState === EventSource.CLOSED && this.es === es) {
                this.phase = "unavailable";
                this.render();
            }
            else if (es.readyState === EventSource.CONNECTING) {
                this.phase = "checking";
                this.render();
            }
        });
    }
    close() {
        this.closed = true;
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
        const turns = acts.filter((a) => a.kind === "turn");
        const running = turns.filter((a) => a.status !== "paused" && a.status !== "stopping");
        const title = acts.map((a) => `${a.title || a.kind}: ${a.status}`).join("\n") || "Nothing is running";
        replace(this.el, h("span", { id: "pill", class: `pill pill-${word.toLowerCase().replace("…", "")}`, role: "status", "aria-live": "polite", title }, word, acts.length && this.phase === "live" ? ` · ${acts.length}` : ""), this.phase === "unavailable" ? h("button", { type: "button", id: "pill-retry", onclick: () => void this.connect() }, "Retry") : null, this.failure ? h("span", { id: "topbar-error", class: "topbar-error", role: "alert" }, this.failure) : null, h("button", { type: "button", id: "pause-all", disabled: this.phase !== "live" || running.length === 0, onclick: () => void this.all("pause") }, "Pause"), h("button", { type: "button", id: "resume-all", disabled: this.phase !== "live" || !turns.some((a) => a.status === "paused"), onclick: () => void this.all("resume") }, "Resume"), h("button", { type: "button", id: "stop-all", disabled: this.phase !== "live" || turns.length === 0, onclick: () => void this.all("stop") }, "Stop all"));
    }
    async all(what) {
        this.failure = "";
        try {
            await (what === "pause" ? api.pauseAll() : what === "resume" ? api.resumeAll() : api.stopAll());
        }
        catch (e) {
            this.failure = `${({ pause: "Pause", resume: "Resume", stop: "Stop all" })[what]} failed: ${e instanceof Error ? e.message : String(e)}`;
        }
        this.render();
    }
}
