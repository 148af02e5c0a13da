// Hub's web console: sign-in, conversations, the streaming chat, proposals
// with Apply and Undo, the Needs me list, settings and the top bar.

import { api, ApiError } from "./api.js";
import type { Activity, Conversation, DoneFrame, HubFile, Message, Models, NeedsMeItem, ProposalFrame, RefsFrame, Ref, Settings, Space, StatusFrame, TextFrame, ToolFrame } from "./api.js";
import { chip, fromMessage, renderView, stepText, upsertRow } from "./chat.js";
import type { Actions, ApplyOptions, View } from "./chat.js";
import { $, focusKey, h, moveFocus, replace, restoreFocus } from "./dom.js";
import { openRecord } from "./record.js";
import { TopBar } from "./topbar.js";

interface Live { view: View; es: EventSource; convId: string; mark: number; sentAt: number; gotText: boolean }

const state = fresh();

/** fresh is the console's state before anyone signs in (sign-out goes back to it). */
function fresh() {
  return {
  spaces: [] as Space[],
  spaceId: "",
  convs: [] as Conversation[],
  convId: null as string | null,
  views: [] as View[],
  live: null as Live | null,
  settings: null as Settings | null,
  models: null as Models | null,
  needs: [] as NeedsMeItem[],
  /** needsError is what the last read of the Needs me list failed with ("": it did not). */
  needsError: "",
  /** pool is the @-menu's records; poolAt when they were read, poolStale when the activity stream said something changed. */
  pool: null as Ref[] | null,
  poolAt: 0,
  poolStale: false,
  pending: [] as Ref[],
  /** files are the attached files the next message carries (uploaded already). */
  files: [] as Ref[],
  undone: new Set<string>(),
  /** turnModel and turnEffort are the composer's choice for the next message ("": the settings'). */
  turnModel: "",
  turnEffort: "",
  /** spaceFiles are the space's files, for the composer's picker (null: not read yet). */
  spaceFiles: null as HubFile[] | null,
  folds: new Map<string, boolean>(),
  busy: new Set<string>(),
  /** refusals counts the refused stream connections in a row (the next try waits 1 s, doubling to 30 s); retryTimer is that wait. */
  refusals: 0,
  retryTimer: 0,
  };
}

/** session counts the sign-ins (bumped by reset): an answer that comes back in a later session is dropped. */
let session = 0;

/** reset drops everything the console holds for the person signed in: their conversation, records, streams. */
function reset(): void {
  session++;
  closeLive();
  clearTimeout(state.retryTimer);
  topbar?.close();
  topbar = null;
  Object.assign(state, fresh());
}

let topbar: TopBar | null = null;

// --- boot and sign-in ------------------------------------------------------------------------

function boot(): void {
  // A record link anywhere (the chat, the record panel) opens the record panel.
  document.addEventListener("click", (e) => {
    const a = (e.target as Element | null)?.closest?.("a.ref") as HTMLAnchorElement | null;
    const m = a?.getAttribute("href")?.match(/^#ref\/([a-z_]+)\/(.+)$/);
    if (!a || !m) return;
    e.preventDefault();
    void openRecord({ kind: m[1], id: decodeURIComponent(m[2]), label: a.textContent ?? "", spaceId: a.dataset.space, detail: a.dataset.detail }, state.spaceId);
  });
  // The address says what is open (#/c/<conversationId>): the back button,
  // a pasted link, and a `#token=` link pasted into an open tab.
  window.addEventListener("hashchange", () => void route());
  // One sign-in per browser: the session is a cookie every tab shares, so a
  // sign-in or sign-out in one tab is followed by the others.
  window.addEventListener("storage", (e) => {
    if (e.key !== signedKey || !e.newValue) return;
    const [what, who] = e.newValue.split(" ");
    if (what === "out") { if (me) signIn("You signed out in another tab."); }
    // Signed in there: a tab on the sign-in form starts; a signed-in one only when the browser's person changed.
    else if (!me || who !== me) void start();
  });
  const failed = takeSignInError();
  const t = takeToken();
  if (failed) signIn(failed);
  else if (t) void signInWith(t);
  else void start(true);
}

/** signInErrors say why a sign-in through the identity provider failed (its callback's /#signin-error=<reason>). */
const signInErrors: Record<string, string> = {
  denied: "Your organization's sign-in was cancelled.",
  expired: "That sign-in took too long or was already used: sign in again.",
  state: "That sign-in did not start in this browser: sign in again.",
  "provider-unreachable": "Your organization's sign-in cannot be reached now; a token still works.",
};

/** takeSignInError reads and drops a `#signin-error=` the identity provider's callback sent the browser back with. */
function takeSignInError(): string | null {
  const m = location.hash.match(/^#signin-error=([a-z-]+)/);
  if (!m) return null;
  history.replaceState(null, "", location.pathname + location.search);
  return signInErrors[m[1]] ?? `Signing in through your organization failed (${m[1]}).`;
}

/** signedKey is the localStorage key a tab writes when it signs in or out, for the other tabs (their storage event). */
const signedKey = "hub.signed";

/** me is the person this tab is signed in as ("": signed out). */
let me = "";

function announce(what: "in" | "out", who = ""): void {
  try { localStorage.setItem(signedKey, `${what} ${who} ${Date.now()}`); } catch { /* storage off: the other tabs find out at their next call */ }
}

/**
 * takeToken reads the token of a `#token=` link (`hub dev` prints one) and
 * drops it from the address bar and the history: a fragment is never sent
 * to a server, and the token goes only to POST /api/session.
 */
function takeToken(): string | null {
  const m = location.hash.match(/^#token=([^&]+)/);
  if (!m) return null;
  history.replaceState(null, "", location.pathname + location.search);
  return decodeURIComponent(m[1]);
}

/** convInURL is the conversation the address names (#/c/<id>), or null. */
function convInURL(): string | null {
  const m = location.hash.match(/^#\/c\/([^/?#]+)$/);
  return m ? decodeURIComponent(m[1]) : null;
}

/** showConvInURL puts the open conversation in the address (a new history entry when the person opened it). */
function showConvInURL(id: string | null, push = true): void {
  const want = id ? `#/c/${encodeURIComponent(id)}` : "";
  if (location.hash === want || (!id && !location.hash)) return;
  const url = location.pathname + location.search + want;
  if (push) history.pushState(null, "", url); else history.replaceState(null, "", url);
}

/** route follows the address: a `#token=` signs in; #/c/<id> opens that conversation; none, a new one. */
async function route(): Promise<void> {
  const t = takeToken();
  if (t) { await signInWith(t); return; }
  if (!state.spaceId || starting) return;
  const id = convInURL();
  if (id) { if (id !== state.convId) await openFromURL(id); }
  else if (!location.hash && state.convId) newConversation(false);
}

/** openFromURL opens the conversation the address names, in its own space (GET /api/assistant/conversations/:id says which). */
async function openFromURL(id: string): Promise<void> {
  const s = session;
  const conv = await api.conversation(id).catch((e) => {
    if (!(e instanceof ApiError && e.status === 404)) throw e;
    return null;
  });
  if (s !== session) return;
  if (!conv) {
    notice("That conversation is not there: it was deleted, or it is not yours.");
    showConvInURL(state.convId, false);
    return;
  }
  if (conv.spaceId !== state.spaceId) {
    await switchSpace(conv.spaceId);
    if (s !== session) return;
  } else if (!state.convs.some((c) => c.id === id)) {
    // Made since the list was read (in another tab, say).
    await loadConversations();
    if (s !== session) return;
  }
  await openConversation(id, false);
}

function signIn(message?: string): void {
  reset();
  me = "";
  const input = h("input", { id: "token-input", type: "password", autocomplete: "off", required: true, "aria-describedby": "token-help" });
  const form = h("form", { class: "signin", "aria-labelledby": "signin-title" },
    h("h1", { id: "signin-title" }, "Sign in to Hub"),
    h("label", { for: "token-input" }, "Token"), input,
    h("p", { id: "token-help", class: "hint" }, "Paste a token from ", h("code", {}, "hub token create"), " (in ", h("code", {}, "hub dev"), ": ",
      h("code", {}, ".hub/dev-token"), "). This browser stays signed in, in every tab, until you sign out; the token itself is not kept."),
    message ? h("p", { class: "error", role: "alert" }, message) : null,
    h("button", { type: "submit", id: "signin-submit" }, "Sign in"));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    // Disabled while the sign-in runs (its answer draws the console or this form again): a double click signs in once.
    if (starting) return;
    (form.querySelector("#signin-submit") as HTMLButtonElement).disabled = true;
    void signInWith(input.value.trim());
  });
  replace($("app"), h("main", { class: "signin-page" }, form));
  input.focus();
  // Beside the token, the identity provider's sign-in when the deployment has one.
  const s = session;
  void api.signInProviders().then((p) => {
    if (!p.oidc || s !== session || !form.isConnected) return;
    form.append(h("p", { class: "hint" }, "Or ", h("a", { id: "signin-oidc", href: "/api/session/oidc/login" }, "Sign in with your organization"), "."));
  }).catch(() => { /* the token form still works */ });
}

let starting = false;

/** signInWith exchanges a token for the browser's session (POST /api/session), then starts the console. */
async function signInWith(token: string): Promise<void> {
  if (starting) return;
  starting = true;
  let who: string;
  try {
    who = (await api.signIn(token)).personId;
  } catch (e) {
    starting = false;
    signIn(e instanceof ApiError && e.status === 401 ? "That token was not accepted." : errorText(e));
    return;
  }
  starting = false;
  announce("in", who);
  await start();
}

/** start draws the console for whoever the browser's session is (quiet: no word when there is none yet). */
async function start(quiet = false): Promise<void> {
  if (starting) return;
  starting = true;
  reset();
  const s = session;
  let name = "";
  try {
    const [who, spaces] = await Promise.all([api.whoAmI(), api.spaces()]);
    me = who.personId;
    name = who.name;
    state.spaces = spaces.spaces;
  } catch (e) {
    starting = false;
    if (s !== session) return;
    if (e instanceof ApiError && e.status === 401) signIn(quiet ? undefined : "Your session has ended: sign in again.");
    else signIn(errorText(e));
    return;
  }
  starting = false;
  if (s !== session) return;
  if (state.spaces.length === 0) {
    noSpace(name);
    return;
  }
  state.spaceId = sessionStorage.getItem("hub.space") ?? "";
  if (!state.spaces.some((s) => s.id === state.spaceId)) state.spaceId = state.spaces[0]?.id ?? "";
  layout();
  topbar = new TopBar($("topbar-status"), { onChange: onActivity });
  topbar.connect();
  void loadSettings();
  void loadNeeds();
  await loadConversations();
  if (s !== session) return;
  const id = convInURL();
  if (id) await openFromURL(id);
  else renderChat();
}

/**
 * noSpace is the console of someone in no space yet: a first sign-in through the identity provider
 * makes a person and no membership. It says who they are and the id an owner adds them by, and looks again.
 */
function noSpace(name: string): void {
  replace($("app"), h("main", { class: "signin-page" },
    h("section", { class: "signin", "aria-labelledby": "nospace-title" },
      h("h1", { id: "nospace-title" }, `Welcome, ${name}`),
      h("p", {}, "You are signed in, and in no space yet. An owner of a space adds you by this id:"),
      h("p", {}, h("code", { id: "person-id" }, me)),
      h("button", { type: "button", id: "nospace-again", onclick: () => void start() }, "Check again"),
      h("button", { type: "button", id: "signout", onclick: () => void signOut() }, "Sign out"))),
    h("div", { id: "notice", role: "status", "aria-live": "polite" }));
  ($("nospace-again") as HTMLButtonElement).focus();
}

async function signOut(): Promise<void> {
  await api.signOut().catch(() => undefined);
  announce("out");
  sessionStorage.clear();
  // The open conversation was the person's: the next one to sign in starts from nothing.
  history.replaceState(null, "", location.pathname + location.search);
  signIn();
}

function layout(): void {
  const spaceSelect = h("select", { id: "space", onchange: (e: Event) => void switchSpace((e.target as HTMLSelectElement).value) },
    state.spaces.map((s) => h("option", { value: s.id, selected: s.id === state.spaceId }, s.name)));
  replace($("app"),
    h("header", { class: "topbar" },
      h("span", { class: "brand" }, "Hub"),
      h("label", { for: "space", class: "space-label" }, "Space"), spaceSelect,
      h("div", { id: "topbar-status", class: "topbar-status" }),
      h("button", { type: "button", id: "signout", onclick: () => void signOut() }, "Sign out")),
    h("div", { class: "layout" },
      h("nav", { id: "convs", "aria-label": "Conversations" },
        h("h2", {}, "Conversations"),
        h("button", { type: "button", id: "new-conv", onclick: () => newConversation() }, "New conversation"),
        h("ul", { id: "conv-list" })),
      h("main", { id: "chat", "aria-labelledby": "chat-title" },
        h("h1", { id: "chat-title", tabindex: -1 }, "New conversation"),
        h("div", { id: "messages", role: "log", "aria-live": "polite", "aria-label": "Messages" }),
        composer()),
      h("aside", { id: "side" },
        h("section", { id: "needs-me", "aria-labelledby": "needs-title" }, h("h2", { id: "needs-title", tabindex: -1 }, "Needs me"), h("ul", { id: "needs-list" })),
        h("section", { id: "settings", "aria-labelledby": "settings-title" }, h("h2", { id: "settings-title" }, "Settings"), h("form", { id: "settings-form" })))),
    h("div", { id: "notice", role: "status", "aria-live": "polite" }));
}

let noticeTimer = 0;

function notice(text: string): void {
  clearTimeout(noticeTimer);
  // Signed out meanwhile (a late answer, or the timer that hides it): there is no notice to show.
  const n = document.getElementById("notice");
  if (!n) return;
  n.textContent = text;
  n.classList.toggle("shown", !!text);
  if (text) noticeTimer = setTimeout(() => notice(""), 6000);
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

async function guard<T>(key: string, f: () => Promise<T>): Promise<T | undefined> {
  if (state.busy.has(key)) return undefined;
  const s = session;
  // The element the person acted on is drawn again (disabled while busy): focus goes back to its replacement.
  const box = document.getElementById("messages");
  const focused = box ? focusKey(box) : null;
  state.busy.add(key);
  renderChat();
  try {
    return await f();
  } catch (e) {
    if (s !== session) return undefined;
    if (e instanceof ApiError && e.status === 401) { signIn("Your session has ended: sign in again."); return undefined; }
    notice(errorText(e));
    return undefined;
  } finally {
    if (s === session) {
      state.busy.delete(key);
      renderChat();
      // While busy the focus may have gone to the article (the button was disabled): back to the button's replacement now.
      const at = document.activeElement;
      const parked = !at || at === document.body || at.tagName === "ARTICLE" || at.id === "chat-title";
      if (box && focused && parked && document.getElementById("messages") === box) restoreFocus(box, focused, undefined, true);
    }
  }
}

// --- conversations ---------------------------------------------------------------------------

async function switchSpace(id: string): Promise<void> {
  state.spaceId = id;
  sessionStorage.setItem("hub.space", id);
  const select = document.getElementById("space") as HTMLSelectElement | null;
  if (select) select.value = id;
  state.pool = null;
  state.spaceFiles = null;
  // What the composer holds belongs to the space left: mentions, files, the space's file list.
  state.pending = [];
  state.files = [];
  renderChips();
  const files = document.getElementById("space-files") as HTMLDetailsElement | null;
  if (files) { files.open = false; replace($("space-file-list")); }
  closeLive();
  clearTimeout(state.retryTimer);
  state.refusals = 0;
  state.convId = null;
  state.views = [];
  showConvInURL(null, false);
  await loadConversations();
  renderChat();
}

async function loadConversations(): Promise<void> {
  if (!state.spaceId) return;
  const s = session, spaceId = state.spaceId;
  try {
    const convs = (await api.conversations(spaceId)).conversations;
    if (s !== session || spaceId !== state.spaceId) return;
    state.convs = convs;
  } catch (e) {
    if (s !== session) return;
    notice(errorText(e));
  }
  renderConversations();
}

function renderConversations(): void {
  const list = document.getElementById("conv-list");
  if (!list) return;
  const focused = focusKey(list);
  replace(list, state.convs.map((c) => h("li", { class: c.id === state.convId ? "current" : "", "data-conv": c.id },
    // A link to the conversation's own address (a new tab opens it too); a plain click opens it here.
    h("a", { class: "conv-open", href: `#/c/${encodeURIComponent(c.id)}`, "aria-current": c.id === state.convId ? "page" : null, onclick: (e: Event) => {
      const m = e as MouseEvent;
      if (m.ctrlKey || m.metaKey || m.shiftKey || m.button !== 0) return;
      e.preventDefault();
      void openConversation(c.id);
    } }, c.title || "Untitled"),
    h("button", { type: "button", class: "conv-delete", "aria-label": `Delete “${c.title || "Untitled"}”`, title: "Delete", onclick: () => void deleteConversation(c) }, "×"))));
  if (focused) restoreFocus(list, focused, $("new-conv"));
}

function newConversation(byPerson = true): void {
  closeLive();
  state.convId = null;
  state.views = [];
  showConvInURL(null, byPerson);
  renderConversations();
  renderChat();
  if (byPerson) $("input").focus();
}

/** openConversation shows a conversation; opened by the person (byPerson), the focus moves to its heading. */
async function openConversation(id: string, byPerson = true): Promise<void> {
  closeLive();
  state.convId = id;
  showConvInURL(id, byPerson);
  renderConversations();
  const conv = state.convs.find((c) => c.id === id);
  if (conv) $("chat-title").textContent = conv.title || "Untitled";
  if (byPerson) $("chat-title").focus();
  await loadMessages();
}

async function deleteConversation(c: Conversation): Promise<void> {
  await guard("delete:" + c.id, async () => {
    await api.deleteConversation(c.id);
    if (state.convId === c.id) newConversation();
    notice(`Deleted “${c.title || "Untitled"}”.`);
    await loadConversations();
  });
}

async function loadMessages(): Promise<void> {
  const id = state.convId;
  if (!id) return;
  const s = session;
  let messages: Message[];
  try {
    messages = (await api.messages(id)).messages;
  } catch (e) {
    if (s !== session) return;
    notice(errorText(e));
    return;
  }
  if (s !== session || state.convId !== id) return;
  noteUndoStates(messages);
  // The reply this tab streams stays the view it streams into.
  const live = state.live;
  const views = messages.map((m) => (live && live.view.id === m.id ? live.view : fromMessage(m)));
  const opened = state.views.length === 0 || state.views[0].id !== views[0]?.id;
  state.views = views;
  renderChat(opened);
  // A reply still running is followed from its first frame: after a
  // reload with the stream URL this tab was given; started in another tab
  // (or the URL lost), with a stream token of its own for the turn.
  const running = views.find((v) => v.role === "assistant" && v.status === "running");
  // A stream URL kept for a reply that ended (not with done in this tab) is no use any more.
  for (const v of views) if (v.turnId !== running?.turnId) sessionStorage.removeItem("hub.stream." + v.turnId);
  if (!running || state.live) return;
  let url = sessionStorage.getItem("hub.stream." + running.turnId);
  if (!url) {
    try {
      url = (await api.turnStreamToken(running.turnId)).streamUrl;
    } catch (e) {
      // It ended meanwhile (or is gone): the next activity redraws it. Hub
      // cannot be reached: try again later.
      if (s === session && (!(e instanceof ApiError) || e.status === 0 || e.status >= 500)) retryLater(id);
      return;
    }
    if (s !== session || state.convId !== id || state.live) return;
    sessionStorage.setItem("hub.stream." + running.turnId, url);
  }
  follow(running, url, id);
}

/** noteUndoStates takes what the api says of each Undo group (rows, receipts, a workflow's steps): after a reload an undone one offers Redo. */
function noteUndoStates(messages: Message[]): void {
  for (const m of messages) {
    for (const c of m.toolCalls) {
      for (const [gid, st] of [[c.undoGroupId, c.undoState], [c.receipt?.undoGroupId, c.receipt?.undoState], ...(c.receipt?.steps ?? []).map((s) => [s.undoGroupId, s.undoState])]) {
        if (!gid || !st) continue;
        if (st === "undone") state.undone.add(gid);
        else state.undone.delete(gid);
      }
    }
  }
}

// --- the chat --------------------------------------------------------------------------------

const actions: Actions = {
  apply: (v, o) => void applyView(v, o),
  undo: (gid) => void undo(gid),
  retry: (v) => void retryTurn(v),
  canRetry: (v) => state.views[state.views.length - 1] === v,
  isUndone: (gid) => state.undone.has(gid),
  folded: (id) => state.folds.get(id),
  fold: (id, open) => { state.folds.set(id, open); },
  busy: (key) => state.busy.has(key),
};

/** renderChat redraws the messages, keeping the scroll position unless the person was at the bottom (or toBottom). */
function renderChat(toBottom = false): void {
  const box = document.getElementById("messages");
  if (!box) return;
  const keep = box.scrollTop;
  const atBottom = toBottom || box.scrollHeight - box.scrollTop - box.clientHeight < 40;
  const conv = state.convs.find((c) => c.id === state.convId);
  $("chat-title").textContent = conv ? conv.title || "Untitled" : "New conversation";
  const focused = focusKey(box);
  replace(box, state.views.length ? state.views.map((v) => renderView(v, state.live?.view === v, actions))
    : h("p", { class: "empty" }, "Ask Hub something — “add a task called Water the plants”, or “list my tasks”. Type @ to mention a record."));
  if (focused) restoreFocus(box, focused, $("chat-title"));
  box.scrollTop = atBottom ? box.scrollHeight : keep;
  renderComposerState();
}

/** renderLive redraws the streaming reply alone. */
function renderLive(): void {
  const live = state.live;
  if (!live) return;
  const box = $("messages");
  // Follow the stream while the person is at the bottom; leave them
  // where they are when they scrolled up to read.
  const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
  const old = document.getElementById(`msg-${live.view.id}`);
  const el = renderView(live.view, true, actions);
  if (old) {
    const focused = focusKey(box);
    old.replaceWith(el);
    if (focused) restoreFocus(box, focused, $("chat-title"));
  } else renderChat();
  renderComposerState();
  if (atBottom) box.scrollTop = box.scrollHeight;
}

setInterval(() => {
  const v = state.live?.view;
  if (!v?.step) return;
  const el = document.getElementById(`step-${v.id}`);
  if (el) el.textContent = stepText(v, Date.now());
}, 1000);

function follow(view: View, streamUrl: string, convId: string, sentAt = performance.now()): void {
  closeLive();
  // Frames from the first rebuild the whole reply.
  Object.assign(view, { text: "", rows: [], proposals: [], error: undefined, status: "running", step: { text: "Working…", since: Date.now() } });
  const es = new EventSource(streamUrl);
  const live: Live = { view, es, convId, mark: 0, sentAt, gotText: false };
  state.live = live;
  const on = <T>(type: string, f: (d: T) => void) => es.addEventListener(type, (e) => {
    if (state.live !== live) return;
    state.refusals = 0;
    f(JSON.parse((e as MessageEvent).data) as T);
    renderLive();
  });
  on<RefsFrame>("refs", (d) => { view.refs = d.refs; });
  on<StatusFrame>("status", (d) => {
    // The person's pause or stop: the step's text goes on (no new mark).
    if (d.status === "paused" || d.status === "stopping") {
      view.paused = d.status === "paused";
      view.step = { text: d.text || statusWord(d.status), since: Date.now() };
      return;
    }
    // A resumed call's first frame: the turn runs again.
    if (d.discard || d.resumed) view.paused = false;
    if (d.reset) Object.assign(view, { text: "", rows: [], proposals: [], error: undefined });
    else if (d.discard) view.text = view.text.slice(0, live.mark);
    live.mark = view.text.length;
    view.step = { text: d.text || statusWord(d.status), since: Date.now() };
  });
  on<TextFrame>("text", (d) => {
    if (!live.gotText) {
      live.gotText = true;
      performance.measure("hub:first-text", { start: live.sentAt, end: performance.now() });
    }
    view.text += d.delta;
    // The step's seconds count the wait for output: they start again with each delta.
    view.step = { text: "Writing…", since: Date.now() };
  });
  on<ToolFrame>("tool", (d) => upsertRow(view, d));
  on<ProposalFrame>("proposal", (d) => { view.proposals = d.calls; });
  on<{ code: string; message: string }>("turn_error", (d) => { view.error = d; });
  on<DoneFrame>("done", (d) => {
    es.close();
    view.status = d.status;
    view.step = undefined;
    view.paused = false;
    if (d.refs) view.refs = d.refs;
    state.live = null;
    state.poolStale = true; // the reply may have made or changed records the @-menu offers
    sessionStorage.removeItem("hub.stream." + view.turnId);
    if (view.proposals.length) void loadNeeds();
    if (d.deleted) void loadConversations();
    else if (state.convId === convId) void loadMessages();
  });
  es.addEventListener("error", () => {
    // EventSource reconnects by itself with Last-Event-ID; a refused
    // reconnect (the token expired, the turn is gone) closes it.
    // The stored URL is dropped (its token is no good), and the reply is
    // read again after a wait: still running, it gets a stream token of
    // its own (once), and each refusal in a row doubles the wait.
    if (es.readyState === EventSource.CLOSED && state.live === live) {
      state.live = null;
      // Dropped only when the wait is over: a tab being reloaded closes
      // its EventSource too, and must keep the URL.
      retryLater(convId, () => sessionStorage.removeItem("hub.stream." + view.turnId));
    }
  });
  renderChat(true);
}

/** retryLater reads the conversation's messages again after a wait: 1 s, doubling with each refusal in a row, at most 30 s. */
function retryLater(convId: string, first?: () => void): void {
  clearTimeout(state.retryTimer);
  const wait = Math.min(30_000, 1000 * 2 ** state.refusals);
  state.refusals++;
  state.retryTimer = setTimeout(() => {
    first?.();
    if (state.convId === convId && !state.live) void loadMessages();
  }, wait);
}

function statusWord(s: string): string {
  return ({ working: "Thinking…", queued: "Queued…", paused: "Paused", stopping: "Stopping…", waiting: "Waiting…", retrying: "Trying again…" } as Record<string, string>)[s] ?? s;
}

function closeLive(): void {
  state.live?.es.close();
  state.live = null;
}

async function send(text: string): Promise<void> {
  const mentions = state.pending.map((r) => ({ kind: r.kind, id: r.id }));
  const s = session, spaceId = state.spaceId, shown = state.convId;
  // moved: the person opened another conversation (or space) while this was sent. Its reply is then
  // left to the conversation's own reload when they come back (its stream URL kept); the views, the
  // input and the live reply of the one shown now are not this message's.
  const moved = (convId: string | null) => s !== session || state.spaceId !== spaceId || state.convId !== convId;
  await guard("send", async () => {
    let convId = state.convId;
    if (!convId) {
      const c = await api.createConversation(spaceId, text.slice(0, 60));
      if (moved(shown)) { if (s === session) void loadConversations(); return; }
      convId = c.id;
      state.convId = convId;
      showConvInURL(convId);
      await loadConversations();
      if (moved(convId)) return;
    }
    const sentAt = performance.now();
    const st = await api.startTurn(convId, text, mentions, state.files.map((f) => f.id), { model: state.turnModel, effort: state.turnEffort });
    if (s !== session) return;
    sessionStorage.setItem("hub.stream." + st.turnId, st.streamUrl);
    if (moved(convId)) return;
    const input = $("input") as HTMLTextAreaElement;
    input.value = "";
    const userView: View = { id: st.messageId, turnId: st.turnId, role: "user", text, status: "done", mentions: [...state.pending, ...state.files], refs: [], rows: [], proposals: [], receipts: [] };
    state.pending = [];
    state.files = [];
    renderChips();
    const reply: View = { id: st.replyMessageId, turnId: st.turnId, role: "assistant", text: "", status: "running", mentions: [], refs: [], rows: [], proposals: [], receipts: [] };
    state.views.push(userView, reply);
    follow(reply, st.streamUrl, convId, sentAt);
  });
}

async function stopTurn(): Promise<void> {
  const live = state.live;
  if (!live) return;
  await guard("stop", async () => {
    const r = await api.stop(live.view.turnId);
    if (state.live !== live) return;
    live.view.step = { text: statusWord(r.status), since: Date.now() };
    renderLive();
  });
}

/** controlTurn pauses or resumes one reply's turn (the top bar does it for all of them). */
async function controlTurn(v: View, what: "pause" | "resume"): Promise<void> {
  await guard("control:" + v.turnId, async () => {
    const r = await (what === "pause" ? api.pause(v.turnId) : api.resume(v.turnId));
    if (state.live?.view !== v) return;
    v.paused = r.status === "paused";
    v.step = { text: statusWord(r.status), since: Date.now() };
    renderLive();
  });
}

async function applyView(v: View, o: ApplyOptions = {}): Promise<void> {
  if (!state.convId) return;
  const convId = state.convId, s = session;
  await guard("apply:" + v.id, async () => {
    const r = await api.apply(convId, v.id, o);
    if (s !== session) return;
    const byCall = new Map(v.receipts.map((x) => [x.callId, x]));
    for (const x of r.receipts) byCall.set(x.callId, x);
    v.receipts = [...byCall.values()];
    const ok = r.receipts.filter((x) => x.status === "succeeded").length;
    notice(`Applied: ${ok} of ${r.receipts.length} succeeded.`);
    void loadNeeds();
  });
}

async function undo(gid: string): Promise<void> {
  await guard("undo:" + gid, async () => {
    const undone = state.undone.has(gid);
    const s = session;
    const r = undone ? await api.redo(gid) : await api.undo(gid);
    if (s !== session) return;
    if (r.state === "undone") state.undone.add(gid);
    else state.undone.delete(gid);
    notice(`${r.state === "undone" ? "Undone" : "Redone"}: ${r.records.map((x) => x.label).join(", ") || "nothing left to change"}.`);
  });
}

async function retryTurn(v: View): Promise<void> {
  const convId = state.convId, s = session;
  if (!convId) return;
  await guard("retry:" + v.turnId, async () => {
    const r = await api.retry(v.turnId);
    if (s !== session) return;
    sessionStorage.setItem("hub.stream." + r.turnId, r.streamUrl);
    // Another conversation opened meanwhile: this one's reload follows the retried turn when the person comes back.
    if (state.convId !== convId || !state.views.includes(v)) return;
    v.turnId = r.turnId;
    follow(v, r.streamUrl, convId);
  });
}

// --- the composer and mentions ---------------------------------------------------------------

function composer(): HTMLElement {
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

function renderComposerState(): void {
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

function renderChips(): void {
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

// --- Needs me, settings, the top bar ---------------------------------------------------------

async function loadNeeds(): Promise<void> {
  // A failed read says so with Retry (the list as last read stays under it).
  const s = session;
  try {
    const items = (await api.needsMe()).items;
    if (s !== session) return;
    state.needs = items;
    state.needsError = "";
  } catch (e) {
    if (s !== session) return;
    state.needsError = `The Needs me list could not be read: ${errorText(e)}`;
  }
  renderNeeds();
}

/**
 * renderNeeds draws what waits for the person: the writes held for the
 * Needs me list (GET /api/assistant/needs-me), and the replies whose writes
 * wait for Apply in their own conversation (the top bar's Waiting, from the
 * activity stream), so the pill and this list agree.
 */
function renderNeeds(): void {
  const list = document.getElementById("needs-list");
  if (!list) return;
  const focused = focusKey(list);
  const applies = topbar?.waiting() ?? [];
  replace(list, state.needsError ? h("li", { class: "needs-error", role: "alert" }, h("span", { class: "error" }, state.needsError), " ",
      h("button", { type: "button", id: "needs-retry", onclick: () => void loadNeeds() }, "Retry")) : null,
    state.needs.map((n) => h("li", { "data-call": n.callId },
      h("span", { class: "preview" }, n.preview), " ",
      h("button", { type: "button", class: "needs-open", onclick: () => void openNeed(n) }, "Open"), " ",
      h("button", { type: "button", class: "needs-apply", onclick: () => void applyNeed(n) }, "Apply"))),
    applies.map((a) => h("li", { class: "needs-waiting", "data-message": a.id },
      h("span", { class: "preview" }, a.title), " ", h("span", { class: "hint" }, "waits for Apply in its conversation."), " ",
      h("button", { type: "button", class: "needs-open", onclick: () => void openFromURL(a.conversationId) }, "Open"))),
    state.needs.length || applies.length || state.needsError ? null : h("li", { class: "empty" }, "Nothing waits for you."));
  if (focused) restoreFocus(list, focused, $("needs-title"));
}

/** openNeed opens a Needs me item's conversation, in its own space (the list is the person's, across their spaces). */
async function openNeed(n: NeedsMeItem): Promise<void> {
  const s = session;
  if (n.spaceId && n.spaceId !== state.spaceId && state.spaces.some((x) => x.id === n.spaceId)) {
    await switchSpace(n.spaceId);
    if (s !== session) return;
  }
  await openConversation(n.conversationId);
}

async function applyNeed(n: NeedsMeItem): Promise<void> {
  await guard("apply:" + n.messageId, async () => {
    const s = session;
    const r = await api.apply(n.conversationId, n.messageId, { callIds: [n.callId] });
    if (s !== session) return;
    notice(`Applied: ${r.receipts.map((x) => x.summary ?? x.status).join("; ")}`);
    await loadNeeds();
    if (state.convId === n.conversationId) await loadMessages();
  });
}

async function loadSettings(): Promise<void> {
  const s = session;
  let settings: Settings;
  try {
    settings = await api.settings();
  } catch (e) {
    if (s === session) notice(errorText(e));
    return;
  }
  const models = await api.models().catch(() => null);
  if (s !== session) return;
  Object.assign(state, { settings, models });
  renderSettings();
  renderTurnOptions();
}

/** renderTurnOptions draws the composer's model and effort for the next message, when the catalog offers a choice. */
function renderTurnOptions(): void {
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

function renderSettings(): void {
  const s = state.settings;
  const form = document.getElementById("settings-form") as HTMLFormElement | null;
  if (!s || !form) return;
  const models = state.models?.models ?? [];
  const chosen = models.find((m) => m.id === (s.model || state.models?.default));
  const policy = h("select", { id: "write-policy" }, (["immediate", "preview", "needs-me"] as const).map((p) =>
    h("option", { value: p, selected: s.writePolicy === p }, ({ immediate: "Write at once (with Undo)", preview: "Preview, then Apply", "needs-me": "Send to Needs me" })[p])));
  const model = h("select", { id: "model", onchange: () => {
    const m = models.find((x) => x.id === model.value);
    replace(effort, h("option", { value: "" }, "Default"), (m?.efforts ?? []).map((x) => h("option", { value: x }, x)));
  } }, h("option", { value: "", selected: !s.model }, `Default${state.models ? ` (${state.models.default})` : ""}`),
    models.map((m) => h("option", { value: m.id, selected: s.model === m.id }, m.name)));
  const effort = h("select", { id: "effort" }, h("option", { value: "" }, "Default"),
    (chosen?.efforts ?? []).map((x) => h("option", { value: x, selected: s.effort === x }, x)));
  replace(form,
    h("label", { for: "write-policy" }, "Writes"), policy,
    models.length ? [h("label", { for: "model" }, "Model"), model, h("label", { for: "effort" }, "Effort"), effort] : null,
    h("button", { type: "submit", id: "save-settings" }, "Save settings"));
  form.onsubmit = (e) => {
    e.preventDefault();
    void guard("settings", async () => {
      const patch: Partial<Settings> = { writePolicy: policy.value as Settings["writePolicy"] };
      if (models.length) { patch.model = model.value; patch.effort = effort.value; }
      const s = session;
      const saved = await api.patchSettings(patch);
      if (s !== session) return;
      state.settings = saved;
      renderSettings();
      renderTurnOptions();
      notice("Settings saved.");
    });
  };
}

function onActivity(a: Activity | null): void {
  // Another tab's or the worker's change: the Needs me list and the open
  // conversation follow it.
  if (!a || a.kind === "apply" || a.ended) {
    renderNeeds();
    void loadNeeds();
    state.poolStale = true;
  }
  const live = state.live;
  if (a && live && a.kind === "turn" && a.id === live.view.turnId && !a.ended) {
    // Paused or resumed from the top bar (this tab's or another's).
    const paused = a.status === "paused";
    if (live.view.paused !== paused) {
      live.view.paused = paused;
      if (paused) live.view.step = { text: statusWord("paused"), since: Date.now() };
      renderLive();
    }
  }
  if (!a || a.conversationId !== state.convId || state.live || state.busy.has("send")) return;
  // A turn ended, or one started in another tab: redraw, and follow a running reply live.
  if (a.ended || (a.kind === "turn" && !state.views.some((v) => v.turnId === a.id && v.status !== "running"))) void loadMessages();
}

boot();
