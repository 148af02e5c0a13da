// Sign-in and sign-out: the token form and the identity provider's link,
// the `#token=` and `#signin-error=` links, start (the console for the
// browser's session, or the page of someone in no space yet), and the note
// other tabs follow.

import { api, ApiError } from "./api.js";
import { $, h, replace } from "./dom.js";
import { TopBar } from "./topbar.js";
import { me, reset, session, setMe, setTopbar, state } from "./state.js";
import { errorText } from "./notice.js";
import { layout, onActivity } from "./layout.js";
import { convInURL, loadConversations, openFromURL } from "./conversations.js";
import { renderChat } from "./messages.js";
import { loadNeeds } from "./needs.js";
import { loadSettings } from "./settings.js";
import { agentsInURL, openAgents } from "./agents.js";

/** signInErrors say why a sign-in through the identity provider failed (its callback's /#signin-error=<reason>). */
const signInErrors: Record<string, string> = {
  denied: "Your organization's sign-in was cancelled.",
  expired: "That sign-in took too long or was already used: sign in again.",
  state: "That sign-in did not start in this browser: sign in again.",
  "provider-unreachable": "Your organization's sign-in cannot be reached now; a token still works.",
};

/** takeSignInError reads and drops a `#signin-error=` the identity provider's callback sent the browser back with. */
export function takeSignInError(): string | null {
  const m = location.hash.match(/^#signin-error=([a-z-]+)/);
  if (!m) return null;
  history.replaceState(null, "", location.pathname + location.search);
  return signInErrors[m[1]] ?? `Signing in through your organization failed (${m[1]}).`;
}

/** signedKey is the localStorage key a tab writes when it signs in or out, for the other tabs (their storage event). */
export const signedKey = "hub.signed";

function announce(what: "in" | "out", who = ""): void {
  try { localStorage.setItem(signedKey, `${what} ${who} ${Date.now()}`); } catch { /* storage off: the other tabs find out at their next call */ }
}

/**
 * takeToken reads the token of a `#token=` link (`hub dev` prints one) and
 * drops it from the address bar and the history: a fragment is never sent
 * to a server, and the token goes only to POST /api/session.
 */
export function takeToken(): string | null {
  const m = location.hash.match(/^#token=([^&]+)/);
  if (!m) return null;
  history.replaceState(null, "", location.pathname + location.search);
  return decodeURIComponent(m[1]);
}

/** signIn drops what the console held and draws the sign-in form, with message above Sign in when there is one. */
export function signIn(message?: string): void {
  reset();
  setMe("");
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

/** starting is true while a sign-in or start runs: a second one is not begun meanwhile. */
export let starting = false;

/** signInWith exchanges a token for the browser's session (POST /api/session), then starts the console. */
export async function signInWith(token: string): Promise<void> {
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
export async function start(quiet = false): Promise<void> {
  if (starting) return;
  starting = true;
  reset();
  const s = session;
  let name = "";
  try {
    const [who, spaces] = await Promise.all([api.whoAmI(), api.spaces()]);
    setMe(who.personId);
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
  const topbar = new TopBar($("topbar-status"), { onChange: onActivity });
  setTopbar(topbar);
  topbar.connect();
  void loadSettings();
  void loadNeeds();
  await loadConversations();
  if (s !== session) return;
  const id = convInURL();
  const agents = agentsInURL();
  if (id) await openFromURL(id);
  else if (agents) { renderChat(); await openAgents(agents.id, false); }
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

/** signOut ends the browser's session (DELETE /api/session), tells the other tabs, and draws the sign-in form. */
export async function signOut(): Promise<void> {
  await api.signOut().catch(() => undefined);
  announce("out");
  sessionStorage.clear();
  // The open conversation was the person's: the next one to sign in starts from nothing.
  history.replaceState(null, "", location.pathname + location.search);
  signIn();
}
