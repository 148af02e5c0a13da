// The console's shared state: what it holds for the person signed in (state),
// the sign-in it belongs to (session), who that is (me) and their top bar.
// Every other module reads and changes it here; reset drops it at sign-out.

import type { Agent, Conversation, HubFile, Models, NeedsMeItem, Ref, Schedule, Settings, Space } from "./api.js";
import type { View } from "./chat.js";
import type { TopBar } from "./topbar.js";

export interface Live { view: View; es: EventSource; convId: string; mark: number; sentAt: number; gotText: boolean }

/** state is what the console holds for the person signed in; reset puts it back to fresh(). */
export const state = fresh();

/** fresh is the console's state before anyone signs in (sign-out goes back to it). */
function fresh() {
  return {
  spaces: [] as Space[],
  spaceId: "",
  convs: [] as Conversation[],
  convId: null as string | null,
  views: [] as View[],
  live: null as Live | null,
  settings: null as Settings | null,
  models: null as Models | null,
  needs: [] as NeedsMeItem[],
  /** needsError is what the last read of the Needs me list failed with ("": it did not). */
  needsError: "",
  /** pool is the @-menu's records; poolAt when they were read, poolStale when the activity stream said something changed. */
  pool: null as Ref[] | null,
  poolAt: 0,
  poolStale: false,
  pending: [] as Ref[],
  /** files are the attached files the next message carries (uploaded already). */
  files: [] as Ref[],
  undone: new Set<string>(),
  /** turnModel and turnEffort are the composer's choice for the next message ("": the settings'). */
  turnModel: "",
  turnEffort: "",
  /** spaceFiles are the space's files, for the composer's picker (null: not read yet). */
  spaceFiles: null as HubFile[] | null,
  folds: new Map<string, boolean>(),
  busy: new Set<string>(),
  /** refusals counts the refused stream connections in a row (the next try waits 1 s, doubling to 30 s); retryTimer is that wait. */
  refusals: 0,
  retryTimer: 0,
  /** agentsOpen: the Agents screen is shown in place of the chat (#/agents); agentId the agent it shows (null: the list). */
  agentsOpen: false,
  agentId: null as string | null,
  /** agents are the person's agents as last read (null: not read yet); schedules those of agentId (null: not read yet). */
  agents: null as Agent[] | null,
  schedules: null as Schedule[] | null,
  };
}

/** session counts the sign-ins (bumped by reset): an answer that comes back in a later session is dropped. */
export let session = 0;

/** me is the person this tab is signed in as ("": signed out). */
export let me = "";

/** setMe says who this tab is signed in as (start), or that it is signed out (""). */
export function setMe(who: string): void {
  me = who;
}

/** topbar is the signed-in console's top bar (null: none drawn); reset closes its stream. */
export let topbar: TopBar | null = null;

/** setTopbar keeps the top bar start drew. */
export function setTopbar(t: TopBar): void {
  topbar = t;
}

/** reset drops everything the console holds for the person signed in: their conversation, records, streams. */
export function reset(): void {
  session++;
  closeLive();
  clearTimeout(state.retryTimer);
  topbar?.close();
  topbar = null;
  Object.assign(state, fresh());
}

/** closeLive closes the stream of the reply this tab follows. */
export function closeLive(): void {
  state.live?.es.close();
  state.live = null;
}
