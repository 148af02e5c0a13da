// The signed-in page: its frame (the top bar, the conversations, the chat or
// the Agents screen, Needs me, the link to Agents, and settings), and how its
// parts follow the activity stream.

import type { Activity } from "./api.js";
import { $, h, replace } from "./dom.js";
import { state } from "./state.js";
import { signOut } from "./signin.js";
import { newConversation, switchSpace } from "./conversations.js";
import { loadMessages, renderLive } from "./messages.js";
import { statusWord } from "./turns.js";
import { composer } from "./composer.js";
import { loadNeeds, renderNeeds } from "./needs.js";
import { isTurn } from "./topbar.js";
import { loadSchedules } from "./agents.js";

/** layout draws the signed-in page's frame; the parts fill their own boxes. */
export function layout(): void {
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
      // The Agents screen (agents.ts) takes the chat's place while the address is #/agents.
      h("main", { id: "agents", "aria-labelledby": "agents-title", hidden: true }),
      h("aside", { id: "side" },
        h("section", { id: "needs-me", "aria-labelledby": "needs-title" }, h("h2", { id: "needs-title", tabindex: -1 }, "Needs me"), h("ul", { id: "needs-list" })),
        h("section", { id: "agents-link", "aria-labelledby": "agents-link-title" }, h("h2", { id: "agents-link-title" }, "Agents"),
          h("p", {}, h("a", { id: "open-agents", href: "#/agents" }, "Your agents"), h("span", { class: "hint" }, ": work sent to them now or on a schedule."))),
        h("section", { id: "settings", "aria-labelledby": "settings-title" }, h("h2", { id: "settings-title" }, "Settings"), h("form", { id: "settings-form" })))),
    h("div", { id: "notice", role: "status", "aria-live": "polite" }));
}

/** onActivity is the top bar's word that an activity changed (null: the stream's snapshot, all of them at once). */
export function onActivity(a: Activity | null): void {
  // Another tab's or the worker's change: the Needs me list and the open
  // conversation follow it.
  if (!a || a.kind === "apply" || a.ended) {
    renderNeeds();
    void loadNeeds();
    state.poolStale = true;
  }
  // An agent's turn ended (a schedule's run, say): the open agent's schedules say so.
  if (a && a.kind === "agent" && a.ended && state.agentsOpen && state.agentId) void loadSchedules(state.agentId);
  const live = state.live;
  if (a && live && isTurn(a) && a.id === live.view.turnId && !a.ended) {
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
  if (a.ended || (isTurn(a) && !state.views.some((v) => v.turnId === a.id && v.status !== "running"))) void loadMessages();
}
