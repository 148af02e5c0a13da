// Proposals and receipts: Apply of a reply's held writes, Undo and Redo of a
// change, and the Undo state each group is in.

import { api } from "./api.js";
import type { Message } from "./api.js";
import type { ApplyOptions, View } from "./chat.js";
import { session, state } from "./state.js";
import { notice } from "./notice.js";
import { guard } from "./messages.js";
import { loadNeeds } from "./needs.js";

/** noteUndoStates takes what the api says of each Undo group (rows, receipts, a workflow's steps): after a reload an undone one offers Redo. */
export function noteUndoStates(messages: Message[]): void {
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

/** applyView applies a reply's held writes (o: which, and what to try again) and adds their receipts to it. */
export async function applyView(v: View, o: ApplyOptions = {}): Promise<void> {
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

/** undo undoes an Undo group's change, or redoes it when it was undone. */
export async function undo(gid: string): Promise<void> {
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
