// Settings: the write policy, and the default model and effort.

import { api } from "./api.js";
import type { Settings } from "./api.js";
import { h, replace } from "./dom.js";
import { session, state } from "./state.js";
import { errorText, notice } from "./notice.js";
import { guard } from "./messages.js";
import { renderTurnOptions } from "./composer.js";

/** loadSettings reads the person's settings and the model catalog, and draws the settings form and the composer's model and effort. */
export async function loadSettings(): Promise<void> {
  const s = session;
  let settings: Settings;
  try {
    settings = await api.settings();
  } catch (e) {
    if (s === session) notice(errorText(e));
    return;
  }
  const models = await api.models().catch(() => null);
  if (s !== session) return;
  Object.assign(state, { settings, models });
  renderSettings();
  renderTurnOptions();
}

function renderSettings(): void {
  const s = state.settings;
  const form = document.getElementById("settings-form") as HTMLFormElement | null;
  if (!s || !form) return;
  const models = state.models?.models ?? [];
  const chosen = models.find((m) => m.id === (s.model || state.models?.default));
  const policy = h("select", { id: "write-policy" }, (["immediate", "preview", "needs-me"] as const).map((p) =>
    h("option", { value: p, selected: s.writePolicy === p }, ({ immediate: "Write at once (with Undo)", preview: "Preview, then Apply", "needs-me": "Send to Needs me" })[p])));
  const model = h("select", { id: "model", onchange: () => {
    const m = models.find((x) => x.id === model.value);
    replace(effort, h("option", { value: "" }, "Default"), (m?.efforts ?? []).map((x) => h("option", { value: x }, x)));
  } }, h("option", { value: "", selected: !s.model }, `Default${state.models ? ` (${state.models.default})` : ""}`),
    models.map((m) => h("option", { value: m.id, selected: s.model === m.id }, m.name)));
  const effort = h("select", { id: "effort" }, h("option", { value: "" }, "Default"),
    (chosen?.efforts ?? []).map((x) => h("option", { value: x, selected: s.effort === x }, x)));
  replace(form,
    h("label", { for: "write-policy" }, "Writes"), policy,
    models.length ? [h("label", { for: "model" }, "Model"), model, h("label", { for: "effort" }, "Effort"), effort] : null,
    h("button", { type: "submit", id: "save-settings" }, "Save settings"));
  form.onsubmit = (e) => {
    e.preventDefault();
    void guard("settings", async () => {
      const patch: Partial<Settings> = { writePolicy: policy.value as Settings["writePolicy"] };
      if (models.length) { patch.model = model.value; patch.effort = effort.value; }
      const s = session;
      const saved = await api.patchSettings(patch);
      if (s !== session) return;
      state.settings = saved;
      renderSettings();
      renderTurnOptions();
      notice("Settings saved.");
    });
  };
}
