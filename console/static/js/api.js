export class ApiError extends Error {
    status;
    body;
    constructor(status, body) {
        super(body.message || `HTTP ${status}`);
        this.status = status;
        this.body = body;
    }
}
const tokenKey = "hub.token";
export function token() { return sessionStorage.getItem(tokenKey); }
export function setToken(t) {
    if (t)
        sessionStorage.setItem(tokenKey, t);
    else
        sessionStorage.removeItem(tokenKey);
}
async function call(method, path, body) {
    const headers = { Authorization: `Bearer ${token() ?? ""}` };
    const form = body instanceof FormData;
    if (body !== undefined && !form)
        headers["Content-Type"] = "application/json";
    let res;
    try {
        res = await fetch(path, { method, headers, body: body === undefined ? undefined : form ? body : JSON.stringify(body) });
    }
    catch (e) {
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
    spaces: () => call("GET", "/api/spaces"),
    conversations: (spaceId) => call("GET", `/api/assistant/conversations?spaceId=${encodeURIComponent(spaceId)}`),
    createConversation: (spaceId, title) => call("POST", "/api/assistant/conversations", { spaceId, title }),
    deleteConversation: (id) => call("DELETE", `/api/assistant/conversations/${enc(id)}`),
    messages: (id) => call("GET", `/api/assistant/conversations/${enc(id)}/messages`),
    startTurn: (id, text, mentions, files, model, effort) => call("POST", `/api/assistant/conversations/${enc(id)}/turns`, { text, mentions, ...(files.length ? { files } : {}), ...(model ? { model } : {}), ...(effort ? { effort } : {}) }),
    uploadFile: (spaceId, file) => {
        const form = new FormData();
        form.append("file", file, file.name);
        return call("POST", `/api/spaces/${enc(spaceId)}/files`, form);
    },
    turn: (turnId) => call("GET", `/api/assistant/turns/${enc(turnId)}`),
    control: (turnId, what) => call("POST", `/api/assistant/turns/${enc(turnId)}/${what}`),
    retry: (turnId) => call("POST", `/api/assistant/turns/${enc(turnId)}/retry`),
    apply: (conversationId, messageId, callIds, retryInterrupted) => call("POST", "/api/assistant/apply", { conversationId, messageId, ...(callIds ? { callIds } : {}), ...(retryInterrupted ? { retryInterrupted } : {}) }),
    undo: (undoGroupId) => call("POST", "/api/assistant/undo", { undoGroupId }),
    redo: (undoGroupId) => call("POST", "/api/assistant/redo", { undoGroupId }),
    needsMe: () => call("GET", "/api/assistant/needs-me"),
    agentStreamToken: () => call("POST", "/api/agent/stream-token"),
    agent: (what) => call("POST", `/api/agent/${what}`),
    settings: () => call("GET", "/api/me/settings"),
    patchSettings: (s) => call("PATCH", "/api/me/settings", s),
    models: () => call("GET", "/api/models"),
    tasks: (spaceId) => call("GET", `/api/spaces/${enc(spaceId)}/tasks?limit=200`),
    projects: (spaceId) => call("GET", `/api/spaces/${enc(spaceId)}/projects?limit=200`),
    people: (spaceId) => call("GET", `/api/spaces/${enc(spaceId)}/people`),
};
function enc(s) { return encodeURIComponent(s); }
