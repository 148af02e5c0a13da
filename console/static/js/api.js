export class ApiError extends Error {
    status;
    body;
    constructor(status, body) {
        super(body.message || `HTTP ${status}`);
        this.status = status;
        this.body = body;
    }
}
const csrf = { "X-Hub-CSRF": "1" };
async function call(method, path, opts = {}) {
    let url = path.replace(/\{(\w+)\}/g, (_, k) => encodeURIComponent(String(opts.path[k])));
    if (opts.query) {
        const q = new URLSearchParams();
        for (const [k, v] of Object.entries(opts.query))
            if (v !== undefined)
                q.set(k, String(v));
        url += "?" + q;
    }
    const headers = { ...csrf };
    const body = opts.body;
    const form = body instanceof FormData;
    if (body !== undefined && !form)
        headers["Content-Type"] = "application/json";
    let res;
    try {
        res = await fetch(url, { method: method.toUpperCase(), headers, credentials: "same-origin", body: body === undefined ? undefined : form ? body : JSON.stringify(body) });
    }
    catch {
        throw new ApiError(0, { code: "unavailable", message: "Hub cannot be reached" });
    }
    if (res.status === 204)
        return undefined;
    const data = await res.json().catch(() => ({}));
    if (!res.ok)
        throw new ApiError(res.status, data.error ?? { code: "http_" + res.status, message: res.statusText });
    return data;
}
export const api = {
    signIn: (token) => call("post", "/api/session", { body: { token } }),
    signOut: () => call("delete", "/api/session"),
    whoAmI: () => call("get", "/api/session"),
    signInProviders: () => call("get", "/api/session/providers"),
    spaces: () => call("get", "/api/spaces"),
    conversations: (spaceId) => call("get", "/api/assistant/conversations", { query: { spaceId } }),
    createConversation: (spaceId, title) => call("post", "/api/assistant/conversations", { body: { spaceId, title } }),
    conversation: (id) => call("get", "/api/assistant/conversations/{id}", { path: { id } }),
    deleteConversation: (id) => call("delete", "/api/assistant/conversations/{id}", { path: { id } }),
    messages: (id) => call("get", "/api/assistant/conversations/{id}/messages", { path: { id } }),
    startTurn: (id, text, mentions, files, o = {}) => call("post", "/api/assistant/conversations/{id}/turns", { path: { id }, body: {
            text, mentions, files: files.length ? files : undefined, model: o.model || undefined, effort: o.effort || undefined
        } }),
    uploadFile: (spaceId, file) => {
        const form = new FormData();
        form.append("file", file, file.name);
        return call("post", "/api/spaces/{spaceId}/files", { path: { spaceId }, body: form });
    },
    files: (spaceId) => call("get", "/api/spaces/{spaceId}/files", { path: { spaceId } }),
    turn: (turnId) => call("get", "/api/assistant/turns/{turnId}", { path: { turnId } }),
    stop: (turnId) => call("post", "/api/assistant/turns/{turnId}/stop", { path: { turnId } }),
    pause: (turnId) => call("post", "/api/assistant/turns/{turnId}/pause", { path: { turnId } }),
    resume: (turnId) => call("post", "/api/assistant/turns/{turnId}/resume", { path: { turnId } }),
    turnStreamToken: (turnId) => call("post", "/api/assistant/turns/{turnId}/stream-token", { path: { turnId } }),
    retry: (turnId) => call("post", "/api/assistant/turns/{turnId}/retry", { path: { turnId } }),
    apply: (conversationId, messageId, o = {}) => call("post", "/api/assistant/apply", { body: { conversationId, messageId, callIds: o.callIds, retryInterrupted: o.retryInterrupted, resendUnknown: o.resendUnknown } }),
    undo: (undoGroupId) => call("post", "/api/assistant/undo", { body: { undoGroupId } }),
    redo: (undoGroupId) => call("post", "/api/assistant/redo", { body: { undoGroupId } }),
    needsMe: () => call("get", "/api/assistant/needs-me"),
    agentStreamToken: () => call("post", "/api/agent/stream-token"),
    pauseAll: () => call("post", "/api/agent/pause"),
    resumeAll: () => call("post", "/api/agent/resume"),
    stopAll: () => call("post", "/api/agent/stop"),
    settings: () => call("get", "/api/me/settings"),
    patchSettings: (s) => call("patch", "/api/me/settings", { body: s }),
    models: () => call("get", "/api/models"),
    tasks: (spaceId) => call("get", "/api/spaces/{spaceId}/tasks", { path: { spaceId }, query: { limit: 200 } }),
    projects: (spaceId) => call("get", "/api/spaces/{spaceId}/projects", { path: { spaceId }, query: { limit: 200 } }),
    people: (spaceId) => call("get", "/api/spaces/{spaceId}/people", { path: { spaceId } }),
    task: (spaceId, id) => call("get", "/api/spaces/{spaceId}/tasks/{id}", { path: { spaceId, id } }),
    project: (spaceId, id) => call("get", "/api/spaces/{spaceId}/projects/{id}", { path: { spaceId, id } }),
    person: (spaceId, id) => call("get", "/api/spaces/{spaceId}/people/{id}", { path: { spaceId, id } }),
    file: (spaceId, id) => call("get", "/api/spaces/{spaceId}/files/{id}", { path: { spaceId, id } }),
    passage: (spaceId, id, key) => call("get", "/api/spaces/{spaceId}/files/{id}/passages/{key}", { path: { spaceId, id, key } }),
    skill: (id) => call("get", "/api/me/skills/{id}", { path: { id } }),
    connections: (spaceId) => call("get", "/api/spaces/{spaceId}/connections", { path: { spaceId } }),
    agents: () => call("get", "/api/agents"),
    createAgent: (a) => call("post", "/api/agents", { body: { name: a.name, persona: a.persona, spaces: a.spaces, enabled: a.enabled } }),
    switchAgent: (agentId, version, enabled) => call("patch", "/api/agents/{agentId}", { path: { agentId }, body: { version, enabled } }),
    deleteAgent: (agentId, version) => call("delete", "/api/agents/{agentId}", { path: { agentId }, query: { version } }),
    runAgent: (agentId, text) => call("post", "/api/agents/{agentId}/turns", { path: { agentId }, body: { text } }),
    schedules: (agentId) => call("get", "/api/agents/{agentId}/schedules", { path: { agentId } }),
    createSchedule: (agentId, s) => call("post", "/api/agents/{agentId}/schedules", { path: { agentId },
        body: { text: s.text, spec: { cron: s.spec.cron, at: s.spec.at }, timeZone: s.timeZone, writes: s.writes } }),
    pauseSchedule: (agentId, scheduleId, paused, note) => call("patch", "/api/agents/{agentId}/schedules/{scheduleId}", { path: { agentId, scheduleId }, body: { paused, note } }),
    triggerSchedule: (agentId, scheduleId) => call("post", "/api/agents/{agentId}/schedules/{scheduleId}/trigger", { path: { agentId, scheduleId } }),
    deleteSchedule: (agentId, scheduleId) => call("delete", "/api/agents/{agentId}/schedules/{scheduleId}", { path: { agentId, scheduleId } }),
};
