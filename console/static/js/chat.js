import { h } from "./dom.js";
export function fromMessage(m) {
    return {
        id: m.id, turnId: m.turnId, role: m.role, text: m.text, status: m.status,
        mentions: m.mentions ?? [], refs: m.refs ?? [],
        rows: (m.toolCalls ?? []).map((c) => ({ callId: c.id, tool: c.tool, phase: c.status, summary: c.summary, error: c.error, refs: c.refs ?? [], undoGroupId: c.undoGroupId })),
        proposals: m.proposals ?? [],
        receipts: (m.toolCalls ?? []).flatMap((c) => (c.receipt ? [c.receipt] : [])),
        error: m.error,
    };
}
export function upsertRow(v, f) {
    const row = { callId: f.callId, tool: f.tool, phase: f.phase, summary: f.summary, error: f.error, refs: f.refs ?? [], undoGroupId: f.undoGroupId };
    const i = v.rows.findIndex((r) => r.callId === f.callId);
    if (i < 0)
        v.rows.push(row);
    else
        v.rows[i] = { ...v.rows[i], ...row, summary: f.summary ?? v.rows[i].summary, refs: f.refs ?? v.rows[i].refs };
}
const phaseWord = { started: "Running", done: "Done", failed: "Failed", held: "Held for Apply" };
export function foldLine(v) {
    const steps = v.rows.length;
    const changes = v.rows.filter((r) => r.phase === "done" && r.undoGroupId).length + v.receipts.filter((r) => r.status === "succeeded").length;
    const failed = v.rows.filter((r) => r.phase === "failed").length + v.receipts.filter((r) => r.status === "failed").length;
    const parts = [`${steps} ${steps === 1 ? "step" : "steps"}`];
    if (changes)
        parts.push(`${changes} ${changes === 1 ? "change" : "changes"}`);
    if (failed)
        parts.push(`${failed} failed`);
    return { line: parts.join(" · "), failed };
}
export function stepText(v, now) {
    if (!v.step)
        return "";
    const secs = Math.floor((now - v.step.since) / 1000);
    return secs >= 3 ? `${v.step.text} ${secs}s` : v.step.text;
}
export function renderView(v, live, a) {
    if (v.role === "user") {
        return h("article", { class: "msg user", id: `msg-${v.id}`, "aria-label": "You" }, v.mentions.length ? h("div", { class: "chips", role: "group", "aria-label": "Mentions" }, v.mentions.map(sentChip)) : null, h("p", { class: "text" }, v.text));
    }
    const el = h("article", { class: "msg assistant", id: `msg-${v.id}`, "aria-label": "Hub", "data-status": v.status, "data-turn": v.turnId, "aria-busy": live ? "true" : null });
    if (v.rows.length) {
        const list = h("ul", { class: "rows" }, v.rows.map((r) => renderRow(r, a)));
        if (live)
            el.append(list);
        else {
            const { line, failed } = foldLine(v);
            const d = h("details", { class: "fold", open: a.folded(v.id) ?? failed > 0 }, h("summary", {}, line), list);
            d.addEventListener("toggle", () => a.fold(v.id, d.open));
            el.append(d);
        }
    }
    if (live && v.step)
        el.append(h("p", { class: "step", id: `step-${v.id}` }, stepText(v, Date.now())));
    if (v.text)
        el.append(h("div", { class: "text" }, linkRefs(v.text, v.refs)));
    const refs = v.refs.filter((r) => r.kind !== "skill");
    if (refs.length && !live)
        el.append(h("p", { class: "refs" }, "Records: ", refs.map((r) => [refLink(r), " "])));
    if (v.proposals.length)
        el.append(renderProposals(v, a));
    if (v.receipts.length)
        el.append(renderReceipts(v, a));
    if (v.error) {
        el.append(h("div", { class: "turn-error", role: "alert" }, h("p", {}, v.error.message), v.status === "error" && v.turnId && a.canRetry(v) ? h("button", { type: "button", class: "retry-turn", disabled: a.busy("retry:" + v.turnId), onclick: () => a.retry(v) }, "Retry") : null));
    }
    if (v.status === "stopped")
        el.append(h("p", { class: "note" }, "Stopped."));
    return el;
}
function renderRow(r, a) {
    return h("li", { class: `row phase-${r.phase}`, "data-call": r.callId }, h("span", { class: "phase" }, phaseWord[r.phase] ?? r.phase), " ", h("span", { class: "tool", title: r.tool }, toolLabel(r.tool)), " ", h("span", { class: "summary" }, r.error ? `${r.summary ? r.summary + " — " : ""}${r.error.message}` : (r.summary ?? "")), r.refs.length ? h("span", { class: "row-refs" }, " ", r.refs.map((x) => [refLink(x), " "])) : null, r.phase === "done" && r.undoGroupId ? undoButton(r.undoGroupId, a) : null);
}
function undoButton(gid, a) {
    const undone = a.isUndone(gid);
    return h("button", { type: "button", class: undone ? "redo" : "undo", disabled: a.busy("undo:" + gid), onclick: () => a.undo(gid) }, undone ? "Redo" : "Undo");
}
function receiptState(r, a) {
    return r.status === "succeeded" && r.undoGroupId && a.isUndone(r.undoGroupId) ? "undone" : r.status;
}
function renderProposals(v, a) {
    const receipts = new Map(v.receipts.map((r) => [r.callId, r]));
    const applied = new Set(v.receipts.filter((r) => r.status === "succeeded").map((r) => r.callId));
    const open = (p) => !applied.has(p.callId) && (!p.status || p.status === "held" || p.status === "waiting" || p.status === "pending");
    const waiting = v.proposals.filter(open);
    const busy = a.busy("apply:" + v.id);
    const hint = waiting.length === v.proposals.length ? "Nothing changes until you apply."
        : waiting.length ? `${v.proposals.length - waiting.length} of ${v.proposals.length} done; the rest change nothing until you apply.`
            : applied.size && [...applied].every((id) => receiptState(receipts.get(id), a) === "undone") ? "Applied, then undone: nothing of it stays."
                : applied.size ? "Applied: the receipts below say what changed." : "Nothing waits for Apply here any more.";
    const badge = (p) => {
        const r = receipts.get(p.callId);
        if (r && applied.has(p.callId))
            return receiptState(r, a) === "undone" ? h("span", { class: "badge" }, "Applied, then undone") : h("span", { class: "badge ok" }, "Applied");
        return h("span", { class: "badge" }, r ? r.status : (p.status ?? ""));
    };
    return h("section", { class: "proposal", "data-waiting": String(waiting.length) }, h("h2", {}, waiting.length ? "Proposed changes" : "Proposed changes (done)"), h("p", { class: "hint proposal-state" }, hint), h("ul", {}, v.proposals.map((p) => h("li", { "data-call": p.callId }, h("span", { class: "preview" }, p.preview), " ", open(p) ? h("button", { type: "button", class: "apply-one", disabled: busy, onclick: () => a.apply(v, { callIds: [p.callId] }) }, "Apply") : badge(p)))), waiting.length > 1 ? h("button", { type: "button", class: "apply-all", disabled: busy, onclick: () => a.apply(v) }, "Apply all") : null);
}
function renderReceipts(v, a) {
    const unfinished = v.receipts.some((r) => r.status === "failed" || r.status === "unattempted" || (r.steps ?? []).some((s) => s.status !== "succeeded"));
    return h("section", { class: "receipts" }, h("h2", {}, "Receipts"), h("ul", {}, v.receipts.map((r) => h("li", { class: `receipt status-${receiptState(r, a)}`, "data-call": r.callId }, h("span", { class: "badge" }, receiptState(r, a)), " ", h("span", { class: "summary" }, r.error ? r.error.message : (r.summary ?? toolLabel(r.tool))), r.undoGroupId && r.status === "succeeded" ? [" ", undoButton(r.undoGroupId, a)] : null, r.status === "unknown" ? [" ", h("button", { type: "button", class: "resend-unknown", disabled: a.busy("apply:" + v.id),
            title: "The app may have done it already: check it first", onclick: () => a.apply(v, { callIds: [r.callId], resendUnknown: true }) }, "Send again")] : null, r.steps?.length ? h("ol", { class: "steps" }, r.steps.map((s, i) => h("li", { class: `status-${receiptState(s, a)}`, "data-step": String(i) }, `${receiptState(s, a)}: ${s.error ? s.error.message : (s.summary ?? toolLabel(s.tool))} `, s.undoGroupId && s.status === "succeeded" ? undoButton(s.undoGroupId, a) : null))) : null))), unfinished ? h("button", { type: "button", class: "retry-steps", disabled: a.busy("apply:" + v.id), onclick: () => a.apply(v, { retryInterrupted: true }) }, "Retry remaining steps") : null);
}
export function chip(r) {
    return h("span", { class: `chip kind-${r.kind}`, title: r.kind }, `@${r.label}`);
}
export function sentChip(r) {
    const a = refLink(r);
    a.classList.add("chip");
    a.textContent = `@${r.label}`;
    return a;
}
const toolWords = {
    hub_run_workflow: "Run a workflow", hub_view_file: "View a file", hub_read_web_page: "Read a web page", hub_web_search: "Search the web",
    hub_find_tools: "Find tools", hub_read_skill: "Read a skill", hub_how_to: "Look up how to", hub_update_settings: "Update settings",
};
export function toolLabel(name) {
    if (toolWords[name])
        return toolWords[name];
    const words = name.replace(/^hub_/, "").replace(/^mcp_[A-Za-z0-9]+_/, "").replace(/[_-]+/g, " ").trim();
    return words ? words[0].toUpperCase() + words.slice(1) : name;
}
export function refLink(r, passage) {
    return h("a", { class: `ref kind-${r.kind}`, href: `#ref/${r.kind}/${encodeURIComponent(r.id)}`, "data-space": r.spaceId, "data-detail": r.detail,
        "data-passage": passage, title: passage ? `${r.kind}: the passage cited` : r.detail ? `${r.kind}: ${r.detail}` : r.kind }, r.label);
}
const hubLink = /\[([^\]]+)\]\(hub:\/\/([a-z]+)\/([^)\s]+)\)|hub:\/\/([a-z]+)\/([A-Za-z0-9_-]+)/g;
function linkRefs(text, refs) {
    const out = [];
    let last = 0;
    for (const m of text.matchAll(hubLink)) {
        const kind = m[2] ?? m[4];
        const [id, passage] = (m[3] ?? m[5]).split("#", 2);
        const known = refs.find((r) => r.kind === kind && r.id === id);
        out.push(text.slice(last, m.index));
        out.push(refLink(known ?? { kind, id, label: m[1] ?? id }, passage));
        last = (m.index ?? 0) + m[0].length;
    }
    out.push(text.slice(last));
    return out;
}
