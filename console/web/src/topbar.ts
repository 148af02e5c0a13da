// The top bar: the pill that says what the person's assistant is doing, fed
// by /api/agent/stream, and pause, resume and stop for all of it.

import { api } from "./api.js";
import type { Activity, ActivityFrame, AgentSnapshot } from "./api.js";
import { h, replace } from "./dom.js";

/** A turn in the top bar: the person's own, or one of their agents'. */
export const isTurn = (a: Activity): boolean => a.kind === "turn" || a.kind === "agent";

type Phase = "checking" | "live" | "unavailable";

export interface TopBarEvents { onChange(a: Activity | null): void }

export class TopBar {
  private es: EventSource | null = null;
  private phase: Phase = "checking";
  private activities = new Map<string, Activity>();
  private paused = false;
  private closed = false;
  /** failure is what the api said when Pause, Resume or Stop all failed (the stream itself stays live). */
  private failure = "";
  /** refusals counts the closed streams in a row: the next connect waits 1 s, doubling to 30 s (the first frame resets it). */
  private refusals = 0;
  private timer = 0;
  // The bar's elements are drawn once and changed in place: the pill is one live region whose text
  // changes, and a button keeps the focus across frames.
  private readonly pill = h("span", { id: "pill", class: "pill", role: "status", "aria-live": "polite", tabindex: -1 });
  private readonly retry = h("button", { type: "button", id: "pill-retry", hidden: true, onclick: () => void this.connect() }, "Retry");
  private readonly error = h("span", { id: "topbar-error", class: "topbar-error", role: "alert", hidden: true });
  private readonly pause = h("button", { type: "button", id: "pause-all", onclick: () => void this.all("pause") }, "Pause");
  private readonly resume = h("button", { type: "button", id: "resume-all", onclick: () => void this.all("resume") }, "Resume");
  private readonly stop = h("button", { type: "button", id: "stop-all", onclick: () => void this.all("stop") }, "Stop all");

  constructor(private readonly el: HTMLElement, private readonly events: TopBarEvents) {
    replace(el, this.pill, this.retry, this.error, this.pause, this.resume, this.stop);
    this.render();
  }

  async connect(): Promise<void> {
    clearTimeout(this.timer);
    this.es?.close();
    this.es = null;
    this.phase = "checking";
    this.render();
    let url: string;
    try {
      url = (await api.agentStreamToken()).streamUrl;
    } catch {
      if (this.closed) return;
      this.phase = "unavailable";
      this.render();
      this.later();
      return;
    }
    if (this.closed) return;
    const es = new EventSource(url);
    this.es = es;
    es.addEventListener("activity", (e) => {
      const d = JSON.parse((e as MessageEvent).data) as AgentSnapshot | ActivityFrame;
      this.phase = "live";
      this.refusals = 0;
      if (!("activity" in d)) {
        this.activities = new Map(d.activities.map((a) => [a.id, a]));
        this.paused = d.paused;
        this.events.onChange(null);
      } else {
        if (d.activity.ended) this.activities.delete(d.activity.id);
        else this.activities.set(d.activity.id, d.activity);
        this.paused = [...this.activities.values()].some(isTurn) && [...this.activities.values()].filter(isTurn).every((a) => a.status === "paused");
        this.events.onChange(d.activity);
      }
      this.render();
    });
    es.addEventListener("error", () => {
      // A refused reconnect (the stream token expired, Hub restarted or is gone) closes the
      // EventSource: say so, and connect again with a new token after a wait (docs/api.md);
      // Retry does it at once.
      if (es.readyState === EventSource.CLOSED && this.es === es) {
        this.phase = "unavailable";
        this.render();
        this.later();
      } else if (es.readyState === EventSource.CONNECTING) {
        this.phase = "checking";
        this.render();
      }
    });
  }

  /** later connects again after 1 s, doubling with each failure in a row, at most 30 s. */
  private later(): void {
    clearTimeout(this.timer);
    const wait = Math.min(30_000, 1000 * 2 ** this.refusals);
    this.refusals++;
    this.timer = setTimeout(() => { if (!this.closed) void this.connect(); }, wait);
  }

  /** waiting are the replies whose writes wait for Apply in their conversation (the pill's Waiting): the Needs me list shows them too. */
  waiting(): Activity[] {
    return this.phase === "live" ? [...this.activities.values()].filter((a) => a.kind === "apply" && a.status === "waiting") : [];
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.es?.close();
  }

  /** status is the word the pill shows. */
  status(): string {
    if (this.phase === "checking") return "Checking…";
    if (this.phase === "unavailable") return "Unavailable";
    const st = [...this.activities.values()].map((a) => a.status);
    if (this.paused && !st.includes("stopping")) return "Paused";
    for (const [s, word] of [["stopping", "Stopping"], ["working", "Working"], ["queued", "Working"], ["paused", "Paused"], ["waiting", "Waiting"]] as const) {
      if (st.includes(s)) return word;
    }
    return "Idle";
  }

  private render(): void {
    const word = this.status();
    const acts = [...this.activities.values()];
    const turns = acts.filter(isTurn);
    const running = turns.filter((a) => a.status !== "paused" && a.status !== "stopping");
    const was = document.activeElement;
    const text = word + (acts.length && this.phase === "live" ? ` · ${acts.length}` : "");
    if (this.pill.textContent !== text) this.pill.textContent = text;
    this.pill.className = `pill pill-${word.toLowerCase().replace("…", "")}`;
    this.pill.title = acts.map((a) => `${a.title || a.kind}: ${a.status}`).join("\n") || "Nothing is running";
    this.retry.hidden = this.phase !== "unavailable";
    this.error.hidden = !this.failure;
    if (this.error.textContent !== this.failure) this.error.textContent = this.failure;
    this.pause.disabled = this.phase !== "live" || running.length === 0;
    this.resume.disabled = this.phase !== "live" || !turns.some((a) => a.status === "paused");
    this.stop.disabled = this.phase !== "live" || turns.length === 0;
    // A button that went away (disabled, hidden) with the focus on it hands it on: Pause to
    // Resume and back, else to one still enabled, else the pill.
    const btn = was instanceof HTMLButtonElement && this.el.contains(was) ? was : null;
    if (btn && (btn.disabled || btn.hidden)) {
      const next = [btn === this.pause ? this.resume : this.pause, this.stop, this.pause, this.resume].find((b) => !b.disabled);
      (next ?? this.pill).focus();
    }
  }

  private async all(what: "pause" | "resume" | "stop"): Promise<void> {
    // A refused or failed action says what the api answered; the pill
    // keeps what the activity stream says (it is still live).
    this.failure = "";
    this.render();
    try {
      await (what === "pause" ? api.pauseAll() : what === "resume" ? api.resumeAll() : api.stopAll());
    } catch (e) {
      this.failure = `${({ pause: "Pause", resume: "Resume", stop: "Stop all" })[what]} failed: ${e instanceof Error ? e.message : String(e)}`;
    }
    if (!this.closed) this.render();
  }
}
