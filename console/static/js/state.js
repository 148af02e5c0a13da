export const state = fresh();
function fresh() {
    return {
        spaces: [],
        spaceId: "",
        convs: [],
        convId: null,
        views: [],
        live: null,
        settings: null,
        models: null,
        needs: [],
        needsError: "",
        pool: null,
        poolAt: 0,
        poolStale: false,
        pending: [],
        files: [],
        undone: new Set(),
        turnModel: "",
        turnEffort: "",
        spaceFiles: null,
        folds: new Map(),
        busy: new Set(),
        refusals: 0,
        retryTimer: 0,
        agentsOpen: false,
        agentId: null,
        agents: null,
        schedules: null,
    };
}
export let session = 0;
export let me = "";
export function setMe(who) {
    me = who;
}
export let topbar = null;
export function setTopbar(t) {
    topbar = t;
}
export function reset() {
    session++;
    closeLive();
    clearTimeout(state.retryTimer);
    topbar?.close();
    topbar = null;
    Object.assign(state, fresh());
}
export function closeLive() {
    state.live?.es.close();
    state.live = null;
}
