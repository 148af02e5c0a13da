// The Agents screen (#/agents, one agent at #/agents/<agentId>), shown in
// place of the chat: the person's agents, a new one, and one agent's page —
// switch it on or off, delete it, send it work (its reply opens in its
// conversation), and its schedules with their next and recent runs, Pause
// with a note, Resume, Run now and Delete, and a new schedule.

import { api, ApiError } from "./api.js";
import type { Agent, Schedule, ScheduleRun } from "./api.js";
import { $, focusKey, h, moveFocus, replace, restoreFocus } from "./dom.js";
import { session, state } from "./state.js";
import { errorText, notice } from "./notice.js";
import { signIn } from "./signin.js";
import { openFromURL, showConvInURL } from "./conversations.js";

/** agentsInURL is what the address names of the Agents screen: {id: null} the list, {id} one agent; null: not the Agents screen. */
export function agentsInURL(): { id: string | null } | null {
  const m = location.hash.match(/^#\/agents(?:\/([^/?#]+))?$/);
  return m ? { id: m[1] ? decodeURIComponent(m[1]) : null } : null;
}

const agentHref = (id: string) => `#/agents/${encodeURIComponent(id)}`;

/** showChat shows the chat in place of the Agents screen; the focus, when it was on the screen, goes to the chat's heading. */
export function showChat(): void {
  if (!state.agentsOpen) return;
  state.agentsOpen = false;
  state.agentId = null;
  state.schedules = null;
  const screen = document.getElementById("agents");
  const had = !!screen && screen.contains(document.activeElement);
  if (screen) { screen.hidden = true; replace(screen); }
  const chat = document.getElementById("chat");
  if (chat) chat.hidden = false;
  if (had) moveFocus($("chat-title"));
}

/** openAgents shows the Agents screen: the list (id null) or one agent; opened by the person (byPerson), the focus moves to its heading. */
export async function openAgents(id: string | null, byPerson = true): Promise<void> {
  const s = session;
  const again = state.agentsOpen && state.agentId === id;
  if (!again) state.schedules = null;
  state.agentsOpen = true;
  state.agentId = id;
  $("chat").hidden = true;
  $("agents").hidden = false;
  if (!again) draw();
  if (byPerson) moveFocus($("agents-title"));
  const known = !!state.agents;
  await loadAgents();
  if (s !== session || !state.agentsOpen || state.agentId !== id) return;
  // Drawn before the agents were read, or from a list that did not have it (made in another tab) or
  // still had it (deleted there): the agent's page, or that it is not there, now.
  const exists = !!state.agents?.some((a) => a.id === id);
  if (id && (!known || exists !== !!document.getElementById("agent-info"))) {
    const focused = document.activeElement?.id === "agents-title";
    draw();
    if (focused) moveFocus($("agents-title"));
  }
  if (id && exists) await loadSchedules(id);
}

/** loadAgents reads the person's agents and draws what shows them. */
export async function loadAgents(): Promise<void> {
  const s = session;
  try {
    const agents = (await api.agents()).agents;
    if (s !== session) return;
    state.agents = agents;
  } catch (e) {
    if (s !== session) return;
    failed(e, "The agents could not be read");
    return;
  }
  renderAgents();
}

/** loadSchedules reads the open agent's schedules and draws them. */
export async function loadSchedules(id: string): Promise<void> {
  const s = session;
  try {
    const list = (await api.schedules(id)).schedules;
    if (s !== session || state.agentId !== id) return;
    // Read again unchanged (Run now's watch, an agent's turn that ended): nothing is drawn again.
    if (state.schedules && JSON.stringify(list) === JSON.stringify(state.schedules)) return;
    state.schedules = list;
  } catch (e) {
    if (s !== session || state.agentId !== id) return;
    failed(e, "The schedules could not be read");
    return;
  }
  renderSchedules();
}

/** failed says why a read failed in the notice line (a 401 signs the tab out). */
function failed(e: unknown, what: string): void {
  if (e instanceof ApiError && e.status === 401) { signIn("Your session has ended: sign in again."); return; }
  notice(`${what}: ${errorText(e)}`);
}

// --- drawing ------------------------------------------------------------------------------------

/** draw draws the screen for state.agentId: its frame and forms (once per opening), then its lists. */
function draw(): void {
  const screen = $("agents");
  const id = state.agentId;
  const back = state.convId ? `#/c/${encodeURIComponent(state.convId)}` : "#/";
  if (!id) {
    replace(screen,
      h("p", { class: "crumbs" }, h("a", { id: "agents-back", href: back }, "Back to the chat")),
      h("h1", { id: "agents-title", tabindex: -1 }, "Agents"),
      h("p", { class: "hint" }, "An agent works for you in some of your spaces, with a charter of its own: send it work now, or on a schedule. Its calls are checked with your role, as yours are."),
      h("ul", { id: "agent-list", "aria-labelledby": "agents-title" }),
      h("section", { id: "new-agent", "aria-labelledby": "new-agent-title" }, h("h2", { id: "new-agent-title" }, "New agent"), agentForm()));
    renderAgents();
    return;
  }
  const agent = state.agents?.find((a) => a.id === id);
  const crumbs = h("p", { class: "crumbs" }, h("a", { id: "agents-all", href: "#/agents" }, "All agents"), " · ", h("a", { id: "agents-back", href: back }, "Back to the chat"));
  if (!agent) {
    replace(screen, crumbs, h("h1", { id: "agents-title", tabindex: -1 }, "Agent"),
      h("p", { class: state.agents ? "error" : "hint" }, state.agents ? "That agent is not there: it was deleted, or it is not yours." : "Reading…"));
    return;
  }
  replace(screen, crumbs,
    h("h1", { id: "agents-title", tabindex: -1 }, agent.name),
    h("div", { id: "agent-info" }),
    h("section", { id: "agent-run", "aria-labelledby": "agent-run-title" }, h("h2", { id: "agent-run-title" }, "Send it work"), runForm(agent.id)),
    h("section", { id: "agent-schedules", "aria-labelledby": "schedules-title" },
      h("h2", { id: "schedules-title", tabindex: -1 }, "Schedules"),
      h("ul", { id: "schedule-list", "aria-labelledby": "schedules-title" }),
      h("h3", { id: "new-schedule-title" }, "Add a schedule"), scheduleForm(agent.id)));
  renderAgents();
  renderSchedules();
}

const spaceName = (id: string) => state.spaces.find((s) => s.id === id)?.name ?? id;

/** renderAgents draws the list of agents, or the open agent's facts and controls. */
function renderAgents(): void {
  const list = document.getElementById("agent-list");
  if (list) {
    const focused = focusKey(list);
    const agents = state.agents;
    replace(list, !agents ? h("li", { class: "empty" }, "Reading…")
      : agents.length === 0 ? h("li", { class: "empty" }, "No agents yet: make one below.")
      : agents.map((a) => h("li", { class: "agent", "data-agent": a.id },
        h("a", { class: "agent-open", id: "agent-open-" + a.id, href: agentHref(a.id) }, a.name), " ",
        h("span", { class: `badge ${a.enabled ? "ok" : "off"}` }, a.enabled ? "On" : "Off"), " ",
        h("span", { class: "agent-spaces" }, "in ", a.spaces.map(spaceName).join(", ")))));
    if (focused) restoreFocus(list, focused, $("agents-title"));
  }
  const info = document.getElementById("agent-info");
  const agent = state.agents?.find((a) => a.id === state.agentId);
  if (!info || !agent) return;
  const title = document.getElementById("agents-title");
  if (title && title.textContent !== agent.name) title.textContent = agent.name;
  const focused = focusKey(info);
  replace(info,
    h("dl", { class: "facts" },
      h("dt", {}, "State"), h("dd", { id: "agent-state" }, h("span", { class: `badge ${agent.enabled ? "ok" : "off"}` }, agent.enabled ? "On" : "Off"),
        agent.enabled ? null : " Its work and schedules wait until it is switched on."),
      h("dt", {}, "Spaces"), h("dd", {}, agent.spaces.map((id, i) => spaceName(id) + (i === 0 ? " (its conversations)" : "")).join(", ")),
      h("dt", {}, "Charter"), h("dd", { class: "charter" }, agent.persona || h("span", { class: "hint" }, "None: it works with your own settings.")),
      agent.model ? [h("dt", {}, "Model"), h("dd", {}, agent.model + (agent.effort ? ` (${agent.effort})` : ""))] : null),
    h("p", { class: "actions" },
      button("agent-switch", agent.enabled ? "Switch off" : "Switch on", () => void switchAgent(agent)), " ",
      button("agent-delete", "Delete agent", () => void deleteAgent(agent))));
  if (focused) restoreFocus(info, focused, $("agents-title"));
}

/** button is a button whose action runs under key (aria-disabled while it runs: it keeps the focus). */
function button(id: string, text: string, onclick: () => void, cls?: string): HTMLButtonElement {
  return h("button", { type: "button", id, class: cls, "aria-disabled": state.busy.has(id) ? "true" : null, onclick }, text);
}

const when = (iso: string) => h("time", { datetime: iso }, new Date(iso).toLocaleString(undefined,
  { weekday: "short", day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" }));

/** runWord says a run's turn status (the api's Turn status, or starting and skipped: ScheduleRun). */
const runWord: Record<string, string> = { starting: "Starting", skipped: "Skipped", queued: "Queued", working: "Working", waiting: "Waits for Apply",
  paused: "Paused", stopping: "Stopping", stopped: "Stopped", done: "Done", error: "Failed" };

/** renderSchedules draws the open agent's schedules, keeping the notes being typed. */
function renderSchedules(): void {
  const list = document.getElementById("schedule-list");
  if (!list) return;
  const focused = focusKey(list);
  const notes = new Map([...list.querySelectorAll<HTMLInputElement>("input.schedule-note")].map((i) => [i.id, i.value]));
  const all = state.schedules;
  replace(list, !all ? h("li", { class: "empty" }, "Reading…")
    : all.length === 0 ? h("li", { class: "empty" }, "No schedules: add one below.")
    : all.map((sc) => scheduleItem(sc)));
  for (const [id, v] of notes) { const i = document.getElementById(id) as HTMLInputElement | null; if (i) i.value = v; }
  if (focused) restoreFocus(list, focused, $("schedules-title"));
}

function scheduleItem(sc: Schedule): HTMLElement {
  const id = sc.id;
  const spec = sc.spec.cron ? h("span", {}, "Repeats: ", h("code", {}, sc.spec.cron))
    : sc.spec.at ? h("span", {}, "Once, at ", when(sc.spec.at))
    : h("span", {}, "On a calendar");
  const state_ = sc.missing ? "Missing" : sc.paused ? "Paused" : "Active";
  return h("li", { class: `schedule ${sc.paused ? "paused" : "active"}`, id: "schedule-" + id, "data-schedule": id },
    h("h3", { class: "schedule-text", id: "schedule-text-" + id }, sc.text),
    h("dl", { class: "facts" },
      h("dt", {}, "When"), h("dd", { class: "schedule-spec" }, spec, ` (${sc.timeZone})`),
      h("dt", {}, "Writes"), h("dd", {}, sc.writes === "immediate" ? "At once, with Undo" : "Wait for your Apply (Needs me)"),
      h("dt", {}, "State"), h("dd", { class: "schedule-state" }, h("span", { class: `badge ${sc.paused || sc.missing ? "off" : "ok"}` }, state_),
        sc.heldByAgent ? " while the agent is switched off" : null,
        sc.missing ? " Its Temporal schedule is gone: it never fires. Delete it and add it again." : null),
      sc.note ? [h("dt", {}, "Note"), h("dd", { class: "schedule-note-text" }, sc.note)] : null,
      h("dt", {}, "Next runs"), h("dd", {}, sc.nextRuns.length
        ? h("ol", { class: "next-runs" }, sc.nextRuns.map((t) => h("li", {}, when(t))))
        : h("span", { class: "hint" }, sc.paused ? "None while it is paused." : "None.")),
      h("dt", {}, "Recent runs"), h("dd", {}, sc.recentRuns.length
        ? h("ol", { class: "recent-runs" }, [...sc.recentRuns].reverse().map((r) => runItem(sc, r)))
        : h("span", { class: "hint" }, "None yet."),
        sc.firings ? h("span", { class: "hint firings" }, ` Fired ${sc.firings} ${sc.firings === 1 ? "time" : "times"}`
          + (sc.missedFirings ? `, ${sc.missedFirings} missed` : "") + (sc.skippedFirings ? `, ${sc.skippedFirings} skipped` : "") + ".") : null)),
    h("div", { class: "schedule-controls" },
      h("label", { for: "schedule-note-" + id }, "Note"),
      h("input", { id: "schedule-note-" + id, class: "schedule-note", maxlength: 500, placeholder: sc.paused ? "Why it resumes" : "Why it pauses" }),
      button("schedule-pause-" + id, sc.paused ? "Resume" : "Pause", () => void pauseSchedule(sc, !sc.paused), sc.paused ? "schedule-resume" : "schedule-pause"),
      button("schedule-trigger-" + id, "Run now", () => void triggerSchedule(sc), "schedule-trigger"),
      button("schedule-delete-" + id, "Delete", () => void deleteSchedule(sc), "schedule-delete")));
}

function runItem(sc: Schedule, r: ScheduleRun): HTMLElement {
  const status = r.turnStatus || "starting";
  return h("li", { class: "run status-" + status }, when(r.scheduledAt), " ",
    h("span", { class: "badge" }, runWord[status] ?? status),
    r.turnId ? [" ", h("a", { class: "run-open", href: `#/c/${encodeURIComponent(sc.conversationId)}` }, "Open its conversation")] : null);
}

// --- forms --------------------------------------------------------------------------------------

/** Fields name a form's inputs by the JSON path of a request's field (an api error's path). */
type Fields = Record<string, HTMLElement>;

/** fieldError shows an api error in the notice line with the field its path names, marks that field invalid and focuses it. */
function fieldError(e: unknown, fields: Fields): void {
  const path = e instanceof ApiError ? e.body.path ?? "" : "";
  const key = Object.keys(fields).filter((k) => path === k || path.startsWith(k + "/")).sort((a, b) => b.length - a.length)[0];
  const el = key ? fields[key] : null;
  if (!el) { notice(errorText(e)); return; }
  const label = el.closest("fieldset")?.querySelector("legend")?.textContent ?? (el.id ? document.querySelector(`label[for="${CSS.escape(el.id)}"]`)?.textContent : null) ?? key;
  notice(`${label}: ${errorText(e)}`);
  el.setAttribute("aria-invalid", "true");
  const target = el.matches("fieldset") ? el.querySelector<HTMLElement>("input") : el;
  target?.focus();
}

/** submit runs a form's request once at a time: its field marks are cleared, a refusal is shown by fieldError. */
async function submit(key: string, form: HTMLFormElement, fields: Fields, f: () => Promise<void>): Promise<void> {
  if (state.busy.has(key)) return;
  const s = session;
  for (const el of Object.values(fields)) el.removeAttribute("aria-invalid");
  const btn = form.querySelector<HTMLButtonElement>("button[type=submit]");
  state.busy.add(key);
  btn?.setAttribute("aria-disabled", "true");
  try {
    await f();
  } catch (e) {
    if (s !== session) return;
    if (e instanceof ApiError && e.status === 401) { signIn("Your session has ended: sign in again."); return; }
    fieldError(e, fields);
  } finally {
    if (s === session) { state.busy.delete(key); btn?.removeAttribute("aria-disabled"); }
  }
}

/** act runs a button's action once at a time (aria-disabled meanwhile); a failure is a notice. */
async function act(key: string, f: () => Promise<void>): Promise<void> {
  if (state.busy.has(key)) return;
  const s = session;
  state.busy.add(key);
  document.getElementById(key)?.setAttribute("aria-disabled", "true");
  try {
    await f();
  } catch (e) {
    if (s !== session) return;
    if (e instanceof ApiError && e.status === 401) { signIn("Your session has ended: sign in again."); return; }
    notice(errorText(e));
  } finally {
    if (s === session) { state.busy.delete(key); document.getElementById(key)?.removeAttribute("aria-disabled"); }
  }
}

function agentForm(): HTMLFormElement {
  const name = h("input", { id: "agent-name", required: true, maxlength: 80, autocomplete: "off" });
  const persona = h("textarea", { id: "agent-persona", rows: 4, maxlength: 2000, "aria-describedby": "agent-persona-help" });
  const count = h("span", { id: "agent-persona-count" }, "0 / 2,000");
  persona.addEventListener("input", () => { count.textContent = `${persona.value.length.toLocaleString("en")} / 2,000`; });
  const spaces = h("fieldset", { id: "agent-spaces", class: "spaces" }, h("legend", {}, "Spaces"),
    state.spaces.map((sp) => h("label", { class: "check" },
      h("input", { type: "checkbox", name: "agent-space", value: sp.id, checked: sp.id === state.spaceId }), " ", sp.name)),
    h("p", { class: "hint" }, "Its conversations go to the first one ticked."));
  const enabled = h("input", { type: "checkbox", id: "agent-enabled", checked: true });
  const form = h("form", { id: "agent-form", class: "stack", "aria-labelledby": "new-agent-title" },
    h("label", { for: "agent-name" }, "Name"), name,
    h("label", { for: "agent-persona" }, "Charter"), persona,
    h("p", { id: "agent-persona-help", class: "hint" }, "What it is for and how it works, in its own words (at most 2,000 characters): it takes the place of your persona in its turns. ", count),
    spaces,
    h("label", { class: "check" }, enabled, " On (it takes work, and its schedules run)"),
    h("button", { type: "submit", id: "create-agent" }, "Create agent"));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const picked = [...spaces.querySelectorAll<HTMLInputElement>("input:checked")].map((i) => i.value);
    void submit("create-agent", form, { "/name": name, "/persona": persona, "/spaces": spaces, "/enabled": enabled }, async () => {
      const s = session;
      const a = await api.createAgent({ name: name.value.trim(), persona: persona.value.trim() || undefined, spaces: picked, enabled: enabled.checked });
      if (s !== session) return;
      state.agents = [...(state.agents ?? []), a].sort((x, y) => x.name.localeCompare(y.name));
      notice(`Made the agent “${a.name}”.`);
      if (!state.agentsOpen || state.agentId) return;
      history.pushState(null, "", location.pathname + location.search + agentHref(a.id));
      await openAgents(a.id);
    });
  });
  return form;
}

function runForm(agentId: string): HTMLFormElement {
  const text = h("textarea", { id: "run-text", rows: 3, required: true });
  const form = h("form", { id: "run-form", class: "stack", "aria-labelledby": "agent-run-title" },
    h("label", { for: "run-text" }, "Work for it now"), text,
    h("p", { class: "hint" }, "It answers in a new conversation of its own, which opens here."),
    h("button", { type: "submit", id: "run-agent" }, "Run"));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const work = text.value.trim();
    if (!work) { notice("Say what the agent should do first."); text.focus(); return; }
    void submit("run-agent", form, { "/text": text }, async () => {
      const s = session;
      const st = await api.runAgent(agentId, work);
      if (s !== session) return;
      // The stream URL the turn answered is followed once its conversation opens (messages.ts reads it there).
      sessionStorage.setItem("hub.stream." + st.turnId, st.streamUrl);
      text.value = "";
      if (!state.agentsOpen || state.agentId !== agentId) return;
      showChat();
      showConvInURL(st.conversationId);
      await openFromURL(st.conversationId);
      if (s === session && state.convId === st.conversationId) moveFocus($("chat-title"));
    });
  });
  return form;
}

/** zonedInstant is the instant a wall time (a datetime-local value, YYYY-MM-DDTHH:MM) names in the IANA time zone tz, as RFC 3339. */
function zonedInstant(local: string, tz: string): string {
  const m = local.match(/^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/);
  if (!m) throw new ApiError(400, { code: "invalid_payload", message: "say the date and time of the run", path: "/spec/at" });
  const wall = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5]);
  let fmt: Intl.DateTimeFormat;
  try {
    fmt = new Intl.DateTimeFormat("en-US", { timeZone: tz, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric" });
  } catch {
    throw new ApiError(400, { code: "invalid_payload", message: `${tz} is not a time zone this browser knows`, path: "/timeZone" });
  }
  // The zone's offset at an instant, from the wall time it shows there; twice, for a change of offset in between.
  const offset = (t: number) => {
    const p = Object.fromEntries(fmt.formatToParts(new Date(t)).map((x) => [x.type, x.value]));
    return Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute, +p.second) - t;
  };
  let t = wall - offset(wall);
  t = wall - offset(t);
  return new Date(t).toISOString();
}

function scheduleForm(agentId: string): HTMLFormElement {
  const text = h("textarea", { id: "schedule-text", rows: 2, required: true });
  const kind = h("select", { id: "schedule-kind" }, h("option", { value: "cron" }, "Repeatedly (a cron expression)"), h("option", { value: "at" }, "Once"));
  const cron = h("input", { id: "schedule-cron", placeholder: "0 9 * * 1-5", autocomplete: "off", spellcheck: "false", "aria-describedby": "schedule-cron-help" });
  const at = h("input", { id: "schedule-at", type: "datetime-local" });
  const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const tz = h("input", { id: "schedule-tz", value: browserZone, list: "time-zones", autocomplete: "off", spellcheck: "false" });
  const zones = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  const writes = h("select", { id: "schedule-writes" },
    h("option", { value: "apply" }, "Wait for my Apply (Needs me)"), h("option", { value: "immediate" }, "At once, with Undo"));
  const cronField = h("div", { class: "stack" }, h("label", { for: "schedule-cron" }, "Cron expression"), cron,
    h("p", { id: "schedule-cron-help", class: "hint" }, "Five fields: minute hour day-of-month month day-of-week (", h("code", {}, "0 9 * * 1-5"),
      ": weekdays at 9:00), or ", h("code", {}, "@daily"), ", ", h("code", {}, "@weekly"), "…"));
  const atField = h("div", { class: "stack", hidden: true }, h("label", { for: "schedule-at" }, "Date and time"), at);
  kind.addEventListener("change", () => { cronField.hidden = kind.value !== "cron"; atField.hidden = kind.value !== "at"; });
  const form = h("form", { id: "schedule-form", class: "stack", "aria-labelledby": "new-schedule-title" },
    h("label", { for: "schedule-text" }, "Work each run asks of it"), text,
    h("label", { for: "schedule-kind" }, "Runs"), kind, cronField, atField,
    h("label", { for: "schedule-tz" }, "Time zone"), tz, h("datalist", { id: "time-zones" }, zones.map((z) => h("option", { value: z }))),
    h("label", { for: "schedule-writes" }, "Its writes"), writes,
    h("button", { type: "submit", id: "add-schedule" }, "Add schedule"));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const once = kind.value === "at";
    const fields: Fields = { "/text": text, "/spec": once ? at : cron, "/spec/cron": cron, "/spec/at": at, "/timeZone": tz, "/writes": writes };
    void submit("add-schedule", form, fields, async () => {
      const s = session;
      const zone = tz.value.trim();
      const spec = once ? { at: zonedInstant(at.value, zone || "UTC") } : { cron: cron.value.trim() };
      const sc = await api.createSchedule(agentId, { text: text.value.trim(), spec, timeZone: zone || undefined, writes: writes.value });
      if (s !== session) return;
      notice(`Added the schedule “${sc.text}”.`);
      text.value = "";
      cron.value = "";
      at.value = "";
      if (state.agentId !== agentId) return;
      state.schedules = [...(state.schedules ?? []).filter((x) => x.id !== sc.id), sc];
      renderSchedules();
    });
  });
  return form;
}

// --- actions ------------------------------------------------------------------------------------

function putAgent(a: Agent): void {
  state.agents = (state.agents ?? []).map((x) => (x.id === a.id ? a : x));
  renderAgents();
}

async function switchAgent(a: Agent): Promise<void> {
  await act("agent-switch", async () => {
    const s = session;
    const next = await api.switchAgent(a.id, a.version, !a.enabled);
    if (s !== session) return;
    putAgent(next);
    notice(next.enabled ? `“${next.name}” is on: it takes work, and its schedules run.` : `“${next.name}” is off: its schedules are paused until it is on again.`);
    // Switching it off or on pauses or resumes its schedules.
    if (state.agentId === a.id) await loadSchedules(a.id);
  });
}

async function deleteAgent(a: Agent): Promise<void> {
  await act("agent-delete", async () => {
    const s = session;
    await api.deleteAgent(a.id, a.version);
    if (s !== session) return;
    state.agents = (state.agents ?? []).filter((x) => x.id !== a.id);
    notice(`Deleted the agent “${a.name}” and its schedules.`);
    if (state.agentId !== a.id) return;
    history.replaceState(null, "", location.pathname + location.search + "#/agents");
    await openAgents(null);
  });
}

function putSchedule(sc: Schedule): void {
  state.schedules = (state.schedules ?? []).map((x) => (x.id === sc.id ? sc : x));
  renderSchedules();
}

async function pauseSchedule(sc: Schedule, paused: boolean): Promise<void> {
  const key = "schedule-pause-" + sc.id;
  await act(key, async () => {
    const s = session;
    const input = document.getElementById("schedule-note-" + sc.id) as HTMLInputElement | null;
    const note = input?.value.trim() || undefined;
    const next = await api.pauseSchedule(sc.agentId, sc.id, paused, note);
    if (s !== session) return;
    if (input) input.value = "";
    putSchedule(next);
    notice(`${paused ? "Paused" : "Resumed"} “${next.text}”${next.note ? `: ${next.note}` : "."}`);
  });
}

async function triggerSchedule(sc: Schedule): Promise<void> {
  await act("schedule-trigger-" + sc.id, async () => {
    const s = session;
    const next = await api.triggerSchedule(sc.agentId, sc.id);
    if (s !== session) return;
    putSchedule(next);
    notice(`A run of “${next.text}” starts now: its reply is in the schedule's conversation.`);
    // The firing shows in its recent runs once Temporal has started it, and its status as its turn goes.
    const firings = sc.firings;
    watchRuns(sc.agentId, (all) => {
      const now = all.find((x) => x.id === sc.id);
      return !now || (now.firings > firings && now.recentRuns.every((r) => ended.has(r.turnStatus)));
    });
  });
}

/** ended are the statuses of a run that will not change. */
const ended = new Set(["done", "error", "stopped", "skipped"]);

let watchTimer = 0;

/** watchRuns reads the agent's schedules again every 1.5 s while its page is open, until done says so (at most 40 times). */
function watchRuns(agentId: string, done: (all: Schedule[]) => boolean, tries = 40): void {
  clearTimeout(watchTimer);
  const s = session;
  watchTimer = setTimeout(() => void (async () => {
    if (s !== session || !state.agentsOpen || state.agentId !== agentId) return;
    await loadSchedules(agentId);
    if (s === session && state.agentId === agentId && state.schedules && !done(state.schedules) && tries > 1) watchRuns(agentId, done, tries - 1);
  })(), 1500);
}

async function deleteSchedule(sc: Schedule): Promise<void> {
  await act("schedule-delete-" + sc.id, async () => {
    const s = session;
    await api.deleteSchedule(sc.agentId, sc.id);
    if (s !== session) return;
    state.schedules = (state.schedules ?? []).filter((x) => x.id !== sc.id);
    const had = document.getElementById("schedule-" + sc.id)?.contains(document.activeElement);
    renderSchedules();
    if (had) moveFocus($("schedules-title"));
    notice(`Deleted the schedule “${sc.text}”.`);
  });
}
