// Hub's web console: the boot and the wiring. The screens are modules of
// their own (signin.ts, layout.ts, conversations.ts, messages.ts, turns.ts,
// proposals.ts, composer.ts, needs.ts, settings.ts, topbar.ts, record.ts,
// agents.ts);
// state.ts holds what they share.

import { openRecord } from "./record.js";
import { me, state } from "./state.js";
import { signedKey, signIn, signInWith, start, starting, takeSignInError, takeToken } from "./signin.js";
import { convInURL, newConversation, openFromURL } from "./conversations.js";
import { agentsInURL, openAgents, showChat } from "./agents.js";

function boot(): void {
  // A record link anywhere (the chat, the record panel) opens the record panel.
  document.addEventListener("click", (e) => {
    const a = (e.target as Element | null)?.closest?.("a.ref") as HTMLAnchorElement | null;
    const m = a?.getAttribute("href")?.match(/^#ref\/([a-z_]+)\/(.+)$/);
    if (!a || !m) return;
    e.preventDefault();
    void openRecord({ kind: m[1], id: decodeURIComponent(m[2]), label: a.textContent ?? "", spaceId: a.dataset.space, detail: a.dataset.detail },
      state.spaceId, a.dataset.passage);
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

/** route follows the address: a `#token=` signs in; #/agents[/<id>] opens the Agents screen; #/c/<id> opens that conversation; none, a new one. */
async function route(): Promise<void> {
  const t = takeToken();
  if (t) { await signInWith(t); return; }
  if (!state.spaceId || starting) return;
  const agents = agentsInURL();
  if (agents) { await openAgents(agents.id); return; }
  showChat();
  const id = convInURL();
  if (id) { if (id !== state.convId) await openFromURL(id); }
  else if (!location.hash && state.convId) newConversation(false);
}

boot();
