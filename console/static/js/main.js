import { openRecord } from "./record.js";
import { me, state } from "./state.js";
import { signedKey, signIn, signInWith, start, starting, takeSignInError, takeToken } from "./signin.js";
import { convInURL, newConversation, openFromURL } from "./conversations.js";
import { agentsInURL, openAgents, showChat } from "./agents.js";
function boot() {
    document.addEventListener("click", (e) => {
        const a = e.target?.closest?.("a.ref");
        const m = a?.getAttribute("href")?.match(/^#ref\/([a-z_]+)\/(.+)$/);
        if (!a || !m)
            return;
        e.preventDefault();
        void openRecord({ kind: m[1], id: decodeURIComponent(m[2]), label: a.textContent ?? "", spaceId: a.dataset.space, detail: a.dataset.detail }, state.spaceId, a.dataset.passage);
    });
    window.addEventListener("hashchange", () => void route());
    window.addEventListener("storage", (e) => {
        if (e.key !== signedKey || !e.newValue)
            return;
        const [what, who] = e.newValue.split(" ");
        if (what === "out") {
            if (me)
                signIn("You signed out in another tab.");
        }
        else if (!me || who !== me)
            void start();
    });
    const failed = takeSignInError();
    const t = takeToken();
    if (failed)
        signIn(failed);
    else if (t)
        void signInWith(t);
    else
        void start(true);
}
async function route() {
    const t = takeToken();
    if (t) {
        await signInWith(t);
        return;
    }
    if (!state.spaceId || starting)
        return;
    const agents = agentsInURL();
    if (agents) {
        await openAgents(agents.id);
        return;
    }
    showChat();
    const id = convInURL();
    if (id) {
        if (id !== state.convId)
            await openFromURL(id);
    }
    else if (!location.hash && state.convId)
        newConversation(false);
}
boot();
