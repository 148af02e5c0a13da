import { api, ApiError } from "./api.js";
import { refLink } from "./chat.js";
import { h, replace } from "./dom.js";
const kindWord = { task: "Task", project: "Project", person: "Person", file: "File", skill: "Skill", connection: "Connected app", space: "Space" };
const when = (s) => (s ? new Date(s).toLocaleString() : null);
async function named(kind, id, read, spaceId) {
    if (!id)
        return null;
    const label = await read(id).then((x) => x.name, () => id);
    return { kind, id, label, spaceId };
}
async function read(r, sp, passage) {
    const sid = r.spaceId;
    switch (r.kind) {
        case "task": {
            const t = await api.task(sp, r.id);
            const [project, assignee] = await Promise.all([named("project", t.projectId, (id) => api.project(sp, id), sid), named("person", t.assigneeId, (id) => api.person(sp, id), sid)]);
            return { title: t.title, fields: [["Status", t.status], ["Priority", t.priority], ["Due", t.dueDate], ["Project", project], ["Assignee", assignee], ["Updated", when(t.updatedAt)]] };
        }
        case "project": {
            const p = await api.project(sp, r.id);
            return { title: p.name, fields: [["Status", p.status], ["Description", p.description], ["Updated", when(p.updatedAt)]] };
        }
        case "person": {
            const p = await api.person(sp, r.id);
            return { title: p.name, fields: [["First name", p.firstName], ["Role", p.role], ["Joined", when(p.joinedAt)]] };
        }
        case "file": {
            const f = await api.file(sp, r.id);
            const href = `/api/spaces/${encodeURIComponent(sp)}/files/${encodeURIComponent(f.id)}/content`;
            const cited = passage ? await api.passage(sp, f.id, passage).then((p) => p, () => null) : undefined;
            return { title: f.name, quote: cited === undefined ? undefined : cited ?? { section: "", text: "This passage is no longer in the file: it changed since the reply cited it." },
                fields: [["Type", f.contentType], ["Size", `${f.size.toLocaleString()} bytes`], ["Added", when(f.createdAt)], ["Search", f.indexError ? `${f.indexStatus}: ${f.indexError}` : f.indexStatus], ["Content", { href, text: `Download ${f.name}` }]] };
        }
        case "skill": {
            const s = await api.skill(r.id);
            return { title: s.name, fields: [["Description", s.description], ["Purpose", s.purpose], ["Enabled", s.enabled ? "yes" : "no"], ["Updated", when(s.updatedAt)]] };
        }
        case "connection": {
            const c = (await api.connections(sp)).connections.find((x) => x.id === r.id);
            if (!c)
                throw new ApiError(404, { code: "not_found", message: "not found" });
            return { title: c.name, fields: [["Kind", c.kind], ["Address", c.url], ["Enabled", c.enabled ? "yes" : "no"], ["Failure", c.failure]] };
        }
        case "space": {
            const s = (await api.spaces()).spaces.find((x) => x.id === r.id);
            if (!s)
                throw new ApiError(404, { code: "not_found", message: "not found" });
            return { title: s.name, fields: [["Your role", s.role]] };
        }
    }
    return null;
}
let opened = 0;
export async function openRecord(r, spaceId, passage) {
    const n = ++opened;
    const dialog = document.getElementById("record") ?? panel();
    const body = dialog.querySelector(".record-body");
    const kind = kindWord[r.kind] ?? r.kind;
    const draw = (title, ...rest) => {
        replace(body, h("p", { class: "record-kind" }, kind), h("h2", { id: "record-title" }, title), ...rest);
        if (!dialog.contains(document.activeElement))
            dialog.querySelector("#record-close").focus();
    };
    draw(r.label, h("p", { class: "hint", role: "status" }, "Reading…"));
    if (!dialog.open) {
        const back = document.activeElement;
        dialog.addEventListener("close", () => { if (back?.isConnected)
            back.focus(); }, { once: true });
        dialog.showModal();
    }
    let rec;
    try {
        rec = await read(r, r.spaceId || spaceId, passage);
    }
    catch (e) {
        if (n !== opened)
            return;
        const gone = e instanceof ApiError && e.status === 404;
        draw(r.label, h("p", { class: "error record-error", role: "alert" }, gone
            ? `This ${kind.toLowerCase()} is not there any more: it was deleted, or you can no longer open it.`
            : `The ${kind.toLowerCase()} could not be read: ${e instanceof Error ? e.message : String(e)}`), gone ? null : h("button", { type: "button", class: "record-retry", onclick: () => void openRecord(r, spaceId, passage) }, "Retry"));
        return;
    }
    if (n !== opened)
        return;
    if (!rec) {
        draw(r.label, h("p", { class: "hint record-none" }, `Hub's api has no read for a ${kind} record: this is what the reply said of it.`), r.detail ? h("p", {}, r.detail) : null);
        return;
    }
    const shown = rec.fields.filter(([, v]) => v !== null && v !== undefined && v !== "");
    const quote = rec.quote && h("figure", { class: "record-passage" }, h("figcaption", {}, rec.quote.section ? `The passage cited, under “${rec.quote.section}”` : "The passage cited"), h("blockquote", {}, rec.quote.text));
    draw(rec.title, quote ?? null, h("dl", { class: "record-fields" }, shown.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v && typeof v === "object" ? ("href" in v ? h("a", { class: "record-download", href: v.href, download: "" }, v.text) : refLink(v)) : String(v))])));
}
function panel() {
    const d = h("dialog", { id: "record", class: "record", "aria-labelledby": "record-title" }, h("div", { class: "record-body" }), h("button", { type: "button", id: "record-close", onclick: () => d.close() }, "Close"));
    document.getElementById("app")?.append(d);
    return d;
}
