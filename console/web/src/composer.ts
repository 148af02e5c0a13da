// The composer: the message input with its @-menu of records, the chips of
// mentions and files, Attach and the space's files, the model and effort for
// one message, and Send beside the streaming reply's own controls.

import { api } from "./api.js";
import type { Ref } from "./api.js";
import { chip } from "./chat.js";
import { $, h, moveFocus, replace } from "./dom.js";
import { session, state } from "./state.js";
import { errorText, notice } from "./notice.js";
import { guard } from "./messages.js";
import { controlTurn, send, stopTurn } from "./turns.js";

/** composer draws the composer; its parts are filled by renderChips, renderTurnOptions and renderComposerState. */
export function composer(): HTMLElement {
  const input = h("textarea", { id: "input", rows: 2, "aria-label": "Message", placeholder: "Ask Hub… (@ mentions a record)", "aria-autocomplete": "list", "aria-controls": "mention-menu" });
  const menu = h("ul", { id: "mention-menu", role: "listbox", "aria-label": "Mention a record", hidden: true });
  const form = h("form", { id: "composer", "aria-label": "Ask Hub" },
    h("div", { id: "chips", class: "chips" }),
    h("div", { id: "turn-options", class: "turn-options" }),
    h("div", { class: "composer-row" }, input, menu,
      // The native file input is hidden but for keyboards and screen
      // readers (Tab reaches it, Space opens the chooser); its label is
      // the button drawn, and a click on it opens the chooser too.
      h("input", { type: "file", id: "attach", class: "visually-hidden", multiple: true, onchange: (e: Event) => void attach(e.target as HTMLInputElement) }),
      h("label", { for: "attach", class: "attach-label" }, "Attach"),
      spaceFilePicker(),
      h("button", { type: "submit", id: "send" }, "Send"),
      // The streaming reply's own controls (the top bar's act on all turns).
      h("button", { type: "button", id: "pause-turn", hidden: true, onclick: () => { if (state.live) void controlTurn(state.live.view, "pause"); } }, "Pause"),
      h("button", { type: "button", id: "resume-turn", hidden: true, onclick: () => { if (state.live) void controlTurn(state.live.view, "resume"); } }, "Resume"),
      h("button", { type: "button", id: "stop", hidden: true, onclick: () => void stopTurn() }, "Stop")));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    // A message is refused with a word, never dropped silently (the text stays in the input).
    if (state.busy.has("send")) notice("The last message is still being sent: send this one once it is.");
    else if (state.live) notice("Hub is still answering: wait for the reply, or Stop it, then send.");
    else void send(text);
  });
  input.addEventListener("input", () => void mentionMenu());
  input.addEventListener("keydown", (e) => {
    if (!menu.hidden) {
      const items = [...menu.querySelectorAll<HTMLElement>("[role=option]")];
      const at = items.findIndex((i) => i.getAttribute("aria-selected") === "true");
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        const next = items[(at + (e.key === "ArrowDown" ? 1 : items.length - 1)) % items.length];
        items.forEach((i) => i.setAttribute("aria-selected", String(i === next)));
        if (next) input.setAttribute("aria-activedescendant", next.id);
        return;
      }
      if ((e.key === "Enter" || e.key === "Tab") && at >= 0) { e.preventDefault(); items[at].click(); return; }
      if (e.key === "Escape") { e.preventDefault(); closeMenu(); return; }
    }
    if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); form.requestSubmit(); }
  });
  return form;
}

/** renderComposerState disables Send while a reply streams and shows its Pause or Resume and Stop; a control that goes away hands the focus on. */
export function renderComposerState(): void {
  const live = !!state.live && state.live.convId === state.convId;
  const was = document.activeElement;
  ($("send") as HTMLButtonElement).disabled = live || state.busy.has("send");
  $("stop").hidden = !live;
  const paused = !!state.live?.view.paused;
  const controlling = !!state.live && state.busy.has("control:" + state.live.view.turnId);
  $("pause-turn").hidden = !live || paused;
  $("resume-turn").hidden = !live || !paused;
  // aria-disabled, not disabled, while a Pause or Resume is on its way: a disabled button would lose the focus.
  $("pause-turn").setAttribute("aria-disabled", String(controlling));
  $("resume-turn").setAttribute("aria-disabled", String(controlling));
  // A control that went away with the focus on it hands it on: Pause to Resume and back; Stop, Send and both once the reply is done, to the input.
  const gone = (id: string) => was?.id === id && ($(id).hidden || ($(id) as HTMLButtonElement).disabled);
  if (gone("pause-turn") || gone("resume-turn")) moveFocus($(live ? (paused ? "resume-turn" : "pause-turn") : "input"));
  else if (gone("stop") || gone("send")) moveFocus($("input"));
}

async function mentionMenu(): Promise<void> {
  const input = $("input") as HTMLTextAreaElement;
  const before = input.value.slice(0, input.selectionStart ?? input.value.length);
  const m = before.match(/(?:^|\s)@([^@\n]{0,40})$/);
  if (!m) { closeMenu(); return; }
  const menu = $("mention-menu");
  // The records are read again when the menu opens after a minute, or
  // after the activity stream said something ended (a task may be new).
  if (menu.hidden && (state.poolStale || Date.now() - state.poolAt > 60_000)) state.pool = null;
  if (!state.pool) {
    const spaceId = state.spaceId;
    let pool: Ref[];
    try {
      pool = await readPool(spaceId);
    } catch (e) {
      if (state.spaceId !== spaceId) return;
      replace(menu, h("li", { class: "error", role: "alert" }, `The records could not be read: ${errorText(e)}`));
      menu.hidden = false;
      input.removeAttribute("aria-activedescendant");
      return;
    }
    if (state.spaceId !== spaceId) return;
    Object.assign(state, { pool, poolAt: Date.now(), poolStale: false });
  }
  const q = m[1].toLowerCase();
  const found = (state.pool ?? []).filter((r) => r.label.toLowerCase().includes(q)).slice(0, 8);
  replace(menu, found.length ? found.map((r, i) => h("li", { role: "option", id: `mention-${i}`, "aria-selected": String(i === 0), class: `kind-${r.kind}`,
    onmousedown: (e: Event) => e.preventDefault(), onclick: () => pickMention(r, m[1].length + 1) }, h("span", { class: "kind" }, r.kind), " ", r.label))
    : h("li", { class: "none" }, "No record matches"));
  menu.hidden = false;
  if (found.length) input.setAttribute("aria-activedescendant", "mention-0");
}

let poolRead: { spaceId: string; p: Promise<Ref[]> } | null = null;

/** readPool reads the space's tasks, projects and people for the @-menu (one read at a time per space). */
function readPool(spaceId: string): Promise<Ref[]> {
  if (poolRead?.spaceId === spaceId) return poolRead.p;
  const p = Promise.all([api.tasks(spaceId), api.projects(spaceId), api.people(spaceId)]).then(([t, pr, pe]) => [
    ...t.tasks.map((x) => ({ kind: "task", id: x.id, label: x.title })),
    ...pr.projects.map((x) => ({ kind: "project", id: x.id, label: x.name })),
    ...pe.people.map((x) => ({ kind: "person", id: x.id, label: x.name }))]);
  const read = { spaceId, p };
  poolRead = read;
  const done = () => { if (poolRead === read) poolRead = null; };
  p.then(done, done);
  return p;
}

function closeMenu(): void {
  const menu = $("mention-menu");
  menu.hidden = true;
  const input = $("input");
  input.removeAttribute("aria-activedescendant");
}

function pickMention(r: Ref, typed: number): void {
  const input = $("input") as HTMLTextAreaElement;
  const caret = input.selectionStart ?? input.value.length;
  input.value = input.value.slice(0, caret - typed) + r.label + " " + input.value.slice(caret);
  const at = caret - typed + r.label.length + 1;
  input.setSelectionRange(at, at);
  if (!state.pending.some((p) => p.kind === r.kind && p.id === r.id)) state.pending.push(r);
  closeMenu();
  renderChips();
  input.focus();
}

/** renderChips draws the mentions and files the next message carries, each with a remove button. */
export function renderChips(): void {
  const remove = (r: Ref) => { state.pending = state.pending.filter((p) => p !== r); state.files = state.files.filter((p) => p !== r); renderChips(); };
  replace($("chips"), [...state.pending, ...state.files].map((r) => h("span", { class: "pending-chip" }, chip(r),
    h("button", { type: "button", class: "chip-remove", "aria-label": `Remove ${r.kind === "file" ? "file" : "mention"} ${r.label}`, onclick: () => remove(r) }, "×"))));
}

/** attach uploads the picked files to the space; the next message carries them. */
async function attach(input: HTMLInputElement): Promise<void> {
  const picked = [...(input.files ?? [])];
  input.value = "";
  await guard("attach", async () => {
    const s = session, spaceId = state.spaceId;
    for (const f of picked) {
      const up = await api.uploadFile(spaceId, f);
      if (s !== session || state.spaceId !== spaceId) return;
      state.files.push({ kind: "file", id: up.id, label: up.name, detail: up.contentType });
    }
    renderChips();
  });
}
/** renderTurnOptions draws the composer's model and effort for the next message, when the catalog offers a choice. */
export function renderTurnOptions(): void {
  const box = document.getElementById("turn-options");
  if (!box) return;
  const models = state.models?.models ?? [];
  const current = models.find((m) => m.id === (state.turnModel || state.settings?.model || state.models?.default));
  const efforts = current?.efforts ?? [];
  if (!efforts.includes(state.turnEffort)) state.turnEffort = "";
  const model = h("select", { id: "turn-model", onchange: () => { state.turnModel = model.value; renderTurnOptions(); } },
    h("option", { value: "", selected: !state.turnModel }, "Model: as in settings"),
    models.map((m) => h("option", { value: m.id, selected: state.turnModel === m.id }, m.name === m.id ? m.id : `${m.id} (${m.name})`)));
  const effort = h("select", { id: "turn-effort", onchange: () => { state.turnEffort = effort.value; } },
    h("option", { value: "", selected: !state.turnEffort }, "Effort: as in settings"),
    efforts.map((x) => h("option", { value: x, selected: state.turnEffort === x }, x)));
  replace(box,
    models.length > 1 ? [h("label", { for: "turn-model", class: "visually-hidden" }, "Model for this message"), model] : null,
    efforts.length > 0 ? [h("label", { for: "turn-effort", class: "visually-hidden" }, "Effort for this message"), effort] : null);
}

/** spaceFilePicker lists the files already in the space: a pick is attached to the next message. */
function spaceFilePicker(): HTMLElement {
  const list = h("ul", { id: "space-file-list", class: "space-files", "aria-label": "Files in this space" });
  const d = h("details", { id: "space-files" }, h("summary", { class: "space-files-toggle" }, "Space files"), list);
  d.addEventListener("toggle", () => {
    if (!d.open) return;
    void (async () => {
      const s = session, spaceId = state.spaceId;
      try {
        const files = (await api.files(spaceId)).files;
        if (s !== session || state.spaceId !== spaceId) return;
        state.spaceFiles = files;
      } catch (e) {
        if (s === session) notice(errorText(e));
        return;
      }
      replace(list, state.spaceFiles.length ? state.spaceFiles.map((f) => h("li", {},
        h("button", { type: "button", class: "space-file", onclick: () => {
          if (!state.files.some((x) => x.id === f.id)) state.files.push({ kind: "file", id: f.id, label: f.name, detail: f.contentType });
          renderChips();
          d.open = false;
          $("input").focus();
        } }, f.name))) : h("li", { class: "none" }, "No files in this space yet."));
    })();
  });
  return d;
}
