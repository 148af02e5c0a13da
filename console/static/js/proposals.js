import { api } from "./api.js";
import { session, state } from "./state.js";
import { notice } from "./notice.js";
import { guard } from "./messages.js";
import { loadNeeds } from "./needs.js";
export function noteUndoStates(messages) {
    for (const m of messages) {
        for (const c of m.toolCalls) {
            for (const [gid, st] of [[c.undoGroupId, c.undoState], [c.receipt?.undoGroupId, c.receipt?.undoState], ...(c.receipt?.steps ?? []).map((s) => [s.undoGroupId, s.undoState])]) {
                if (!gid || !st)
                    continue;
                if (st === "undone")
                    state.undone.add(gid);
                else
                    state.undone.delete(gid);
            }
        }
    }
}
export async function applyView(v, o = {}) {
    if (!state.convId)
        return;
    const convId = state.convId, s = session;
    await guard("apply:" + v.id, async () => {
        const r = await api.apply(convId, v.id, o);
        if (s !== session)
            return;
        const byCall = new Map(v.receipts.map((x) => [x.callId, x]));
        for (const x of r.receipts)
            byCall.set(x.callId, x);
        v.receipts = [...byCall.values()];
        const ok = r.receipts.filter((x) => x.status === "succeeded").length;
        notice(`Applied: ${ok} of ${r.receipts.length} succeeded.`);
        void loadNeeds();
    });
}
export async function undo(gid) {
    await guard("undo:" + gid, async () => {
        const undone = state.undone.has(gid);
        const s = session;
        const r = undone ? await api.redo(gid) : await api.undo(gid);
        if (s !== session)
            return;
        if (r.state === "undone")
            state.undone.add(gid);
        else
            state.undone.delete(gid);
        notice(`${r.state === "undone" ? "Undone" : "Redone"}: ${r.records.map((x) => x.label).join(", ") || "nothing left to change"}.`);
    });
}
